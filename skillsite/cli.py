"""The ``skillsite`` command line. It only parses options: the work happens in the library.

Heavy modules are imported inside commands so ``skillsite --help`` stays instant.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Callable

import click

from skillsite import __version__
from skillsite.errors import EXIT_CLEAN, EXIT_PROBLEMS
from skillsite.models import Problem

FORMATS = ("auto", "text", "json", "github", "sarif")


def _split(values: tuple[str, ...]) -> tuple[str, ...]:
    """Accept both ``--select a --select b`` and ``--select a,b``."""
    return tuple(v.strip() for value in values for v in value.split(",") if v.strip())


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="skillsite")
def main() -> None:
    """Lint, catalog and serve a corpus of agent skills.

    skillsite reads Agent Skills SKILL.md files (and the Claude Code, Flux and ongrid
    dialects), oxo-flow *.skill.toml manifests, ongrid skill.json manifests and Mini-A
    virtual skill pages (Markdown with `type: skill` front matter).

    \b
    Examples:
      skillsite build                       corpus/ -> dist/ (catalog, graph, index, content)
      skillsite check                       lint everything under the current folder
      skillsite check corpus --format sarif -o skillsite.sarif
      skillsite rules                       list every rule with its ID and severity

    Exit codes: 0 clean, 1 problems found, 2 usage or configuration error.
    """


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS), default="auto",
              show_default=True,
              help="Output format. 'auto' is 'github' inside GitHub Actions, else 'text'. "
                   "Example: --format sarif")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the report to this file instead of standard output. "
                   "Example: -o skillsite.sarif")
@click.option("--strict", is_flag=True,
              help="Exit 1 on warnings too, not only on errors.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Configuration file (default: the nearest skillsite.toml, or "
                   "pyproject.toml with [tool.skillsite]).")
@click.option("--select", multiple=True, metavar="RULE[,RULE]",
              help="Run only these rules. Example: --select name-format,broken-link")
@click.option("--ignore", multiple=True, metavar="RULE[,RULE]",
              help="Skip these rules. Example: --ignore body-too-long")
@click.option("--exclude", multiple=True, metavar="GLOB",
              help="Skip files and folders matching this glob (relative to each path, or a "
                   "bare name). Example: --exclude 'drafts/*'")
@click.option("--allow-field", multiple=True, metavar="FIELD",
              help="Accept this extra front-matter field without an unknown-field warning. "
                   "Example: --allow-field x-owner")
@click.option("--max-file-size", type=click.IntRange(min=1), metavar="BYTES",
              help="Size cap per file (default 1048576). Larger files are reported, not read.")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, show_default=True,
              help="Worker processes. 0 picks automatically: one for small corpora, every "
                   "core for large ones. Example: --jobs 2")
@click.option("--changed-since", metavar="REF",
              help="Report per-file problems only for skills changed since this git ref; "
                   "corpus-wide rules (duplicate names, dependencies) still see every skill. "
                   "Example: --changed-since origin/main")
@click.option("--color/--no-color", default=None,
              help="Color the text output (default: when writing to a terminal).")
def check(paths: tuple[Path, ...], fmt: str, output: Path | None, strict: bool,
          config_path: Path | None, select: tuple[str, ...], ignore: tuple[str, ...],
          exclude: tuple[str, ...], allow_field: tuple[str, ...], max_file_size: int | None,
          jobs: int, changed_since: str | None, color: bool | None) -> None:
    """Validate every skill under PATHS (default: the current folder).

    Each file is checked against the JSON Schema for its format (schemas/) and the
    semantic rules (`skillsite rules` lists them). Every problem names a file, a line, a
    column, a rule ID and a severity:

    \b
      skills/pdf/SKILL.md:2:7: error name-format name 'PDF' is invalid: ...

    \b
    Examples:
      skillsite check corpus
      skillsite check --strict --format json > problems.json
      skillsite check --changed-since origin/main --format github
      skillsite check --ignore unknown-field --jobs 2 skills/

    Exit codes: 0 no errors, 1 errors (or warnings with --strict), 2 usage error.
    """
    from skillsite.checker import check as run_check
    from skillsite.config import check_rule_ids, load_config
    from skillsite.report import auto_format, render
    from skillsite.rules import RULES

    config = load_config(config_path)
    select, ignore = _split(select), _split(ignore)
    check_rule_ids([*select, *ignore], "command line", RULES)
    config = config.merged(select=select, ignore=config.ignore + ignore,
                           exclude=config.exclude + exclude,
                           allow_fields=config.allow_fields + allow_field,
                           max_file_size=max_file_size)
    only = None
    if changed_since:
        from skillsite.gitdiff import changed_files
        only = changed_files(changed_since, Path.cwd())
    with _progress() as progress:
        result = run_check(paths or (Path("."),), config=config, jobs=jobs, only=only,
                           progress=progress)
    fmt = auto_format(os.environ) if fmt == "auto" else fmt
    use_color = color if color is not None else (output is None and sys.stdout.isatty())
    report = render(fmt, result, rules=RULES, color=use_color and fmt in ("text", "github"))
    if output:
        output.write_text(report + "\n", encoding="utf-8")
        click.echo(f"Wrote {fmt} report to {output}: {result.errors} errors, "
                   f"{result.warnings} warnings.", err=True)
    else:
        click.echo(report)
    failed = result.errors or (strict and result.warnings)
    sys.exit(EXIT_PROBLEMS if failed else EXIT_CLEAN)


class _progress:
    """A progress counter on standard error, shown only on a terminal."""

    def __enter__(self) -> Callable[[int], None]:
        self.count = 0
        self.live = sys.stderr.isatty() and not os.environ.get("CI")
        return self.step

    def step(self, n: int) -> None:
        self.count += n
        if self.live and self.count % 500 < n:
            click.echo(f"\rchecked {self.count} files", nl=False, err=True)

    def __exit__(self, *exc: object) -> None:
        if self.live and self.count >= 500:
            click.echo("\r" + " " * 30 + "\r", nl=False, err=True)


@main.command()
@click.argument("corpus", required=False, default="corpus",
                type=click.Path(file_okay=False, path_type=Path))
@click.option("-o", "--out", default="dist", show_default=True,
              type=click.Path(file_okay=False, path_type=Path),
              help="Where to write the artifacts. Replaced atomically; the previous build is "
                   "reused for files that did not change. Example: -o public/skills")
@click.option("--index", "backend", type=click.Choice(("tantivy", "whoosh")),
              default="tantivy", show_default=True,
              help="Search index engine. tantivy is much faster; whoosh is pure Python. "
                   "Example: --index whoosh")
@click.option("--strict", is_flag=True,
              help="Fail (exit 1, dist/ untouched) if any skill has an error, instead of "
                   "leaving those skills out.")
@click.option("--clean", is_flag=True,
              help="Ignore the previous build and rebuild everything.")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, show_default=True,
              help="Worker processes for parsing. 0 picks automatically. Example: --jobs 2")
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Configuration file (default: the nearest skillsite.toml, or "
                   "pyproject.toml with [tool.skillsite]).")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors and the summary line.")
@click.option("-v", "--verbose", is_flag=True, help="Also print the time each phase took.")
def build(corpus: Path, out: Path, backend: str, strict: bool, clean: bool, jobs: int,
          config_path: Path | None, quiet: bool, verbose: bool) -> None:
    """Build the catalog, skill graph, search index and content store into DIST.

    CORPUS defaults to ./corpus and the output to ./dist. Every skill is linted first;
    skills with errors are reported and left out (use --strict to fail instead), and the
    rest are written to:

    \b
      manifest.json   format version, counts, index backend, sha256 of every file
      catalog.json    the compact listing (name, description, format, path, tags, ...)
      graph.json      skills and tags, with link / depends_on / tag edges
      content/        each skill's sections, metadata and supporting files (SQLite)
      index/          the prebuilt search index
      build-cache/    what the next build reuses (safe to delete)

    \b
    Examples:
      skillsite build                        corpus/ -> dist/
      skillsite build skills -o public/skills --jobs 2
      skillsite build --strict --index whoosh

    Exit codes: 0 built, 1 --strict found errors, 2 usage or configuration error.
    """
    from skillsite.builder import BuildFailed
    from skillsite.builder import build as run_build
    from skillsite.checker import display_path
    from skillsite.config import load_config

    config = load_config(config_path)
    try:
        with _BuildProgress() as progress:
            result = run_build(corpus, out, config=config, jobs=jobs, backend=backend,
                               strict=strict, incremental=not clean, progress=progress)
    except BuildFailed as failure:
        _print_build_problems(failure.problems, corpus, quiet)
        raise
    _print_build_problems(result.problems, corpus, quiet)
    cwd = Path.cwd()
    formats = ", ".join(f"{n} {f}" for f, n in result.formats.items()) or "none"
    left_out = f", {len(result.excluded)} left out because of errors" if result.excluded else ""
    click.echo(f"Built {display_path(result.dist, cwd)}/ in {result.seconds:.1f} s: "
               f"{result.included} skills ({formats}){left_out}; index: {result.backend}; "
               f"{result.rechecked} of {result.files} files checked"
               f"{' (incremental)' if result.incremental else ''}.")
    if verbose:
        for phase, seconds in result.timings.items():
            click.echo(f"  {phase:<34}{seconds:8.2f} s")


def _print_build_problems(problems: list[Problem], corpus: Path, quiet: bool) -> None:
    """The lint report on standard error, paths relative to the current folder."""
    from skillsite.checker import display_path
    from skillsite.report.text import TextReporter

    cwd = Path.cwd()
    shown = [Problem(display_path(corpus / p.path, cwd), p.line, p.column, p.rule,
                     p.severity, p.message) for p in problems
             if not quiet or p.severity == "error"]
    if shown:
        click.echo(TextReporter(rules={}).render_problems(shown), err=True)


class _BuildProgress:
    """A progress bar on standard error while files are checked, only on a terminal."""

    def __enter__(self) -> Callable[[int, int], None]:
        self.live = sys.stderr.isatty() and not os.environ.get("CI")
        self.shown = False
        return self.update

    def update(self, done: int, total: int) -> None:
        if not self.live or total < 200:
            return
        width = 30
        filled = width * done // max(total, 1)
        click.echo(f"\rchecking [{'#' * filled}{'.' * (width - filled)}] {done}/{total}",
                   nl=False, err=True)
        self.shown = True

    def __exit__(self, *exc: object) -> None:
        if self.shown:
            click.echo("\r" + " " * 60 + "\r", nl=False, err=True)


@main.command()
@click.option("--format", "fmt", type=click.Choice(("text", "markdown", "json")),
              default="text", show_default=True,
              help="'markdown' prints the rule reference page (docs/rules.md).")
def rules(fmt: str) -> None:
    """List every rule: its ID, default severity, scope and summary.

    \b
    Examples:
      skillsite rules
      skillsite rules --format markdown > docs/rules.md
    """
    from skillsite.rules_doc import rules_json, rules_markdown, rules_text

    click.echo({"text": rules_text, "markdown": rules_markdown, "json": rules_json}[fmt]())


if __name__ == "__main__":  # pragma: no cover
    main()
