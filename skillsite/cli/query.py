"""The query commands: ``search``, ``recommend``, ``open``, ``read``, ``related``,
``compose``, ``context``, ``prompt`` and ``verify``, over a built ``dist/``.

Each command parses its options, calls one :class:`~skillsite.reader.Library` method and
prints the result as text, or as JSON with ``--json`` (the shapes of ``docs/reader.md``).
Errors go to stderr with exit code 1 (not found, budget) or 2 (usage, damaged dist/).
The reader is imported inside the commands, so ``skillsite --help`` stays instant.
"""
from __future__ import annotations

import contextlib
import functools
import gc
import json
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

import click

from skillsite.entries import FORMATS, RISKS

DIST_HELP = ("The built dist/ to query (default: $SKILLSITE_DIST, else ./dist); repeat it "
             "as NAME=PATH to query several libraries, whose refs are then @NAME/<id>. "
             "Examples: --dist public/skills; --dist wiki=dist-wiki --dist ops=dist-ops")
LIBRARY_HELP = ("With several --dist NAME=PATH: the library to search (repeatable; default: "
                "all). Example: --library ops")


def _dist_option(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--dist", "dist", multiple=True,
                        default=lambda: (os.environ.get("SKILLSITE_DIST", "dist"),),
                        show_default="$SKILLSITE_DIST or ./dist", help=DIST_HELP)(command)


def _json_option(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--json", "as_json", is_flag=True,
                        help="Print JSON (the shapes of docs/reader.md).")(command)


def _query_command(name: str) -> Callable[[Callable[..., Any]], click.Command]:
    """A command with --dist and --json whose function returns a result to print; a
    ReaderError becomes one line (or JSON with --json) on stderr and its exit code."""

    def decorate(function: Callable[..., Any]) -> click.Command:
        @functools.wraps(function)
        def run(dist: tuple[str, ...], as_json: bool, **options: Any) -> None:
            with _collector_paused():
                import skillsite.reader  # noqa: F401  (the Library, for function)
                from skillsite.cli.query_text import render
                from skillsite.reader.errors import ReaderError

            try:
                result = function(dist, **options)
            except ReaderError as error:
                if as_json:
                    click.echo(json.dumps(error.to_dict(), ensure_ascii=False), err=True)
                else:
                    click.echo(f"Error: {error.message}", err=True)
                sys.exit(error.exit_code)
            if getattr(result, "note", ""):  # semantic search could not run: say why once
                click.echo(f"Note: {result.note}", err=True)
            click.echo(json.dumps(result.to_dict(), ensure_ascii=False, indent=2) if as_json
                       else render(result))

        return click.command(name)(_dist_option(_json_option(run)))

    return decorate


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """No garbage collection while the reader's modules load. They make many objects and no
    garbage: the collector's passes over them took 8-12 ms of a cold query here."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _library(dist: tuple[str, ...]) -> Any:
    from skillsite.reader import Library

    # One query per process: check each file read by its size, not its sha256 (hashing
    # the shards a search touches costs seconds at 100k skills); `skillsite verify`
    # hashes everything.
    if len(dist) == 1 and "=" not in dist[0]:
        return Library(dist[0], hash_on_read=False)
    from skillsite.reader.mounts import parse_dists

    return Library(parse_dists(dist), hash_on_read=False)


def _libraries(names: tuple[str, ...]) -> str | list[str]:
    """``--library`` as the reader takes it: every library when none is named."""
    return list(names) if names else "*"


@_query_command("search")
@click.argument("query", default="")
@click.option("-n", "--limit", default=10, show_default=True, type=click.IntRange(1, 50),
              help="How many results (1-50).")
@click.option("--tag", "tags", multiple=True, help="Keep skills with this tag (repeatable).")
@click.option("--applies-to", "applies_to", multiple=True,
              help="Keep skills that apply to this (repeatable). Example: --applies-to k8s")
@click.option("--format", "kind", type=click.Choice(FORMATS), help="Keep one format.")
@click.option("--compatibility", help="Keep skills whose compatibility mentions this text.")
@click.option("--max-risk", type=click.Choice(RISKS),
              help="Keep skills that declare at most this risk.")
@click.option("--plugin", help="Keep the skills of this Claude Code plugin. Example: "
                               "--plugin telegram")
@click.option("--collection", help="Keep the skills of this collection (a repository built "
                                   "with others). Example: --collection anthropics-skills")
@click.option("--library", "libraries", multiple=True, help=LIBRARY_HELP)
@click.option("--semantic", is_flag=True,
              help="Also find skills by meaning (needs a dist/ built with the semantic "
                   "extra: pip install 'skillsite[semantic]').")
def search(dist: tuple[str, ...], query: str, limit: int, tags: tuple[str, ...],
           applies_to: tuple[str, ...], kind: str | None, compatibility: str | None,
           max_risk: str | None, plugin: str | None, collection: str | None,
           libraries: tuple[str, ...], semantic: bool) -> Any:
    """Find skills for QUERY: compact candidates, best first, never a body.

    A query equal to a skill's name returns it first; an empty query lists skills A-Z.
    With --semantic, skills near the query's meaning are fused in (as recommend does).

    \b
    Examples:
      skillsite search "fill a pdf form"
      skillsite search kube --tag deploy --limit 5 --json
      skillsite search "" --format virtual
      skillsite search "drain a node" --dist wiki=dist-wiki --dist ops=dist-ops --library ops
      skillsite search "make a slide deck" --semantic
    """
    return _library(dist).search(query, limit=limit, tags=tags, applies_to=applies_to,
                                 format=kind, compatibility=compatibility, max_risk=max_risk,
                                 plugin=plugin, collection=collection,
                                 library=_libraries(libraries), semantic=semantic)


@_query_command("recommend")
@click.argument("task")
@click.option("--environment", "-e", help="Where the task runs. Example: -e 'kubernetes linux'")
@click.option("--capability", "capabilities", multiple=True,
              help="A capability the agent has (repeatable). Example: --capability shell")
@click.option("-n", "--limit", default=5, show_default=True, type=click.IntRange(1, 50),
              help="How many (1-50).")
@click.option("--library", "libraries", multiple=True, help=LIBRARY_HELP)
@click.option("--lexical", is_flag=True,
              help="Rank by words only, even when dist/ has vectors.")
def recommend(dist: tuple[str, ...], task: str, environment: str | None,
              capabilities: tuple[str, ...], limit: int, libraries: tuple[str, ...],
              lexical: bool) -> Any:
    """Recommend skills for TASK: search's ranking plus what each skill says it is for ("use
    when"), not for, its intents and applies_to.

    When dist/ has vectors (built with the semantic extra), skills near the task's
    meaning are fused with the lexical ranking; each result says which half found it.

    \b
    Example:
      skillsite recommend "roll back a bad deploy" -e kubernetes
    """
    return _library(dist).recommend(task, environment=environment,
                                    capabilities=list(capabilities), limit=limit,
                                    library=_libraries(libraries), semantic=not lexical)


@_query_command("open")
@click.argument("ref")
def open_(dist: tuple[str, ...], ref: str) -> Any:
    """Show a skill's metadata and outline (headings with sizes, links, files, lint
    warnings), without its body. REF is a skill name or skill:<name>.

    \b
    Example:
      skillsite open pdf-forms
    """
    return _library(dist).open(ref)


def _lines(value: str | None) -> tuple[int | None, int | None]:
    """``--lines``: ``A-B``, ``A-`` (to the end) or ``A`` (that line alone)."""
    if value is None:
        return None, None
    start, dash, end = value.partition("-")
    try:
        first = int(start)
        if not dash:
            return first, first
        return first, int(end) if end else None
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a line range such as 10-40",
                                 param_hint="--lines") from None


@_query_command("read")
@click.argument("ref", required=False)
@click.option("-s", "--section", help="A heading (or its number from `open`).")
@click.option("--lines", help="A line range of the skill's file. Example: --lines 10-40")
@click.option("--max-chars", default=4000, show_default=True, type=int,
              help="The most characters to print; a cut says so and prints a cursor.")
@click.option("--cursor", help="Continue where the last cut read stopped.")
@click.option("--file", "file", help="A supporting file of the skill, by its path in the "
              "skill's folder (as `open` lists it). Example: --file references/forms.md")
def read(dist: tuple[str, ...], ref: str | None, section: str | None, lines: str | None,
         max_chars: int, cursor: str | None, file: str | None) -> Any:
    """Print a section, a line range or the whole body of a skill (REF), or one of its
    files. REF is a skill's id or name, or a skill:// URI (skill://pdf-forms/SKILL.md,
    or skill://pdf-forms/references/FORMS.md for a file).

    \b
    Examples:
      skillsite read pdf-forms --section "Step 3: Fill"
      skillsite read pdf-forms --lines 10-40
      skillsite read pdf-forms --file references/FORMS.md
      skillsite read --cursor <cursor from the last read>
    """
    if ref is None and cursor is None:
        raise click.UsageError("give a REF, or a --cursor to read on")
    start, end = _lines(lines)
    target: str | int | None = int(section) if section and section.isdigit() else section
    return _library(dist).read(ref, target, start_line=start, end_line=end,
                               max_chars=max_chars, cursor=cursor, file=file)


@_query_command("resolve")
@click.argument("ref")
@click.argument("args", nargs=-1)
@click.option("--max-chars", default=12000, show_default=True, type=int,
              help="The most characters of the template to print; a cut prints a cursor.")
@click.option("--cursor", help="Continue where the last cut resolve stopped (pass the "
              "same REF and ARGS).")
def resolve(dist: tuple[str, ...], ref: str, args: tuple[str, ...], max_chars: int,
            cursor: str | None) -> Any:
    """Print REF as a local SKILL.md: its front matter and its body with ARGS rendered in
    ({{args}}, {{argv}}, {{arg1}}; $ARGUMENTS, $ARGUMENTS[N], $N). Nothing is installed or
    run. Put -- before ARGS that start with a dash.

    \b
    Examples:
      skillsite resolve changelog-writer v1.2.0
      skillsite resolve pdf-forms form.pdf --json
      skillsite resolve git-bisect -- --first-parent
    """
    return _library(dist).resolve(ref, list(args), max_chars=max_chars, cursor=cursor)


@_query_command("related")
@click.argument("ref")
@click.option("-n", "--limit", default=10, show_default=True, type=click.IntRange(1, 50),
              help="How many (1-50).")
def related(dist: tuple[str, ...], ref: str, limit: int) -> Any:
    """List skills related to REF by links, depends_on and shared tags, with reasons."""
    return _library(dist).related(ref, limit=limit)


@_query_command("compose")
@click.argument("ref")
@click.option("-n", "--limit", default=4, show_default=True, type=click.IntRange(1, 8),
              help="How many (1-8).")
def compose(dist: tuple[str, ...], ref: str, limit: int) -> Any:
    """List REF's prerequisites (depends_on), one level deep, and unresolved ones."""
    return _library(dist).compose(ref, limit=limit)


@_query_command("context")
def context(dist: tuple[str, ...]) -> Any:
    """Summarize dist/: skill counts per format, tags, version, build time."""
    return _library(dist).context()


@_query_command("prompt")
@click.argument("refs", nargs=-1)
@click.option("--style", type=click.Choice(("xml", "markdown")), default="xml",
              show_default=True, help="xml: skills-ref to-prompt; markdown: Flux's preamble.")
@click.option("--max-chars", type=int, help="Budget; whole skills only (default with no "
              "REFs: 8000).")
@click.option("--location-root", help="Prefix each skill's path with this folder (xml).")
def prompt(dist: tuple[str, ...], refs: tuple[str, ...], style: str, max_chars: int | None,
           location_root: str | None) -> Any:
    """Print the skills block of a system prompt for REFs (default: every skill).

    \b
    Examples:
      skillsite prompt pdf-forms git-bisect
      skillsite prompt --style markdown --max-chars 8000
    """
    return _library(dist).prompt(list(refs) or None, style, max_chars,
                                 location_root=location_root)


@click.command("verify")
@click.argument("path", required=False)
@click.option("--dist", "dist", multiple=True,
              help="The built dist/ to verify, as the query commands take it (instead of "
                   "PATH); repeat it as NAME=PATH to verify several libraries. Example: "
                   "--dist wiki=dist-wiki --dist ops=dist-ops")
@_json_option
def verify(path: str | None, dist: tuple[str, ...], as_json: bool) -> None:
    """Check every file of PATH or each --dist (default: $SKILLSITE_DIST or ./dist) against
    the sha256 in its manifest, and report each mismatch. Exit 0 clean, 2 damaged."""
    from pathlib import Path

    from skillsite.reader.artifacts import Artifacts
    from skillsite.reader.mounts import parse_dists

    if path and dist:
        raise click.UsageError("give the dist/ as PATH or as --dist, not both")
    given = parse_dists(dist) if dist else path or os.environ.get("SKILLSITE_DIST", "dist")
    folders = given if isinstance(given, dict) else {"": given}
    reports: dict[str, Any] = {}
    damaged = 0
    for name, folder in folders.items():
        artifacts = Artifacts(Path(folder))
        mismatches = artifacts.verify()
        damaged += len(mismatches)
        reports[name] = {"dist": folder, "files": len(artifacts.files),
                         "mismatches": [m.to_dict() for m in mismatches]}
        if not as_json:
            for mismatch in mismatches:
                click.echo(f"{folder}/{mismatch.describe()}", err=True)
            state = f"{len(mismatches)} damaged" if mismatches else "all match"
            click.echo(f"Checked {len(artifacts.files)} files of {folder}: {state}."
                       + (" Rebuild it with `skillsite build`." if mismatches else ""))
    if as_json:
        shown = reports.get("", {"libraries": reports})
        click.echo(json.dumps(shown, indent=2))
    sys.exit(2 if damaged else 0)



