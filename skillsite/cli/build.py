"""``skillsite build``: corpus -> dist/, with a progress bar and the lint report."""
from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import click

from skillsite.cli import exit_quickly
from skillsite.cli.progress import Progress
from skillsite.models import Problem


@click.command()
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
                   "publishing those skills with their problems.")
@click.option("--exclude-invalid", is_flag=True, default=None,
              help="Leave skills with lint errors out of dist/ (configuration: "
                   "exclude-invalid = true). By default they are published with their "
                   "problems.")
@click.option("--clean", is_flag=True,
              help="Ignore the previous build and rebuild everything.")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, show_default=True,
              help="Worker processes for parsing. 0 picks automatically. Example: --jobs 2")
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Configuration file (default: the nearest skillsite.toml, or "
                   "pyproject.toml with [tool.skillsite]).")
@click.option("--no-site", is_flag=True,
              help="Skip the catalog site (dist/site/): faster when only agents read dist/.")
@click.option("--mkdocs-config", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="mkdocs.yml for the catalog site (theme, logo, extra pages in its "
                   "docs_dir). Default: skillsite/site/mkdocs.yml in the package. "
                   "Example: --mkdocs-config site/mkdocs.yml")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors and the summary line.")
@click.option("-v", "--verbose", is_flag=True, help="Also print the time each phase took.")
def build(corpus: Path, out: Path, backend: str, strict: bool, exclude_invalid: bool | None,
          clean: bool, jobs: int, config_path: Path | None, no_site: bool,
          mkdocs_config: Path | None, quiet: bool, verbose: bool) -> None:
    """Build the catalog, skill graph, search index and content store into DIST.

    CORPUS defaults to ./corpus and the output to ./dist. Every skill is linted first;
    skills with errors are reported and published with their problems (--exclude-invalid
    leaves them out, --strict fails instead; a skill holding a credential is always
    withheld), and written to:

    \b
      manifest.json   format version, counts, index backend, sha256 of every file
      catalog.json    the compact listing (name, description, format, path, tags, ...)
      graph.json      skills and tags, with link / depends_on / tag edges
      groups.json     plugins and collections, with their marketplace metadata
      content/        each skill's sections, metadata and supporting files (SQLite)
      index/          the prebuilt search index
      vectors/        one vector per skill for recommend's semantic half, with
                      pip install 'skillsite[semantic]' (else left out, said once)
      build-cache/    what the next build reuses (safe to delete)
      site/           the browsable catalog (mkdocs-material, Pagefind search,
                      /.well-known/agent-skills/index.json); skip with --no-site
      site-cache/     what the next site build reuses (safe to delete)

    \b
    Examples:
      skillsite build                        corpus/ -> dist/
      skillsite build skills -o public/skills --jobs 2
      skillsite build --strict --index whoosh
      skillsite build --no-site              only what agents read

    Exit codes: 0 built, 1 --strict found errors, 2 usage or configuration error.
    """
    from skillsite.builder.early import Early

    # The lock and the scan for changes first: the scan's helpers compare the corpus with
    # the previous build while this process imports the build's modules.
    with Early(corpus, out, incremental=not clean) as early:
        from skillsite.builder.pipeline import BuildFailed
        from skillsite.builder.pipeline import build as run_build
        from skillsite.linter.rules import load_config

        config = load_config(config_path)
        if exclude_invalid:
            config = config.merged(exclude_invalid=True)
        try:
            with Progress("checking") as progress:
                result = run_build(corpus, out, config=config, jobs=jobs, backend=backend,
                                   strict=strict, incremental=not clean,
                                   progress=progress.update, site=not no_site,
                                   mkdocs_config=mkdocs_config, early=early)
        except BuildFailed as failure:
            _print_build_problems(failure.problems, corpus, quiet)
            raise
    from skillsite.linter.checker import display_path

    _print_build_problems(result.problems, corpus, quiet)
    if not result.files:
        from skillsite.cli.check import warn_no_skills
        warn_no_skills((corpus,))
    cwd = Path.cwd()
    formats = ", ".join(f"{n:,} {f}" for f, n in result.formats.items()) or "none"
    left_out = f", {len(result.excluded):,} left out" if result.excluded else ""
    click.echo(f"Built {display_path(result.dist, cwd)}/ in {result.seconds:.1f} s: "
               f"{result.included:,} skills ({formats}){left_out}; index: {result.backend}; "
               f"{result.rechecked:,} of {result.files:,} files checked"
               f"{' (incremental)' if result.incremental else ''}.")
    if result.semantic_note:
        click.echo(f"Vectors: {result.semantic_note}.")
    elif result.embedded:
        click.echo(f"Vectors: {result.embedded} skill(s) embedded.")
    print_left_out("Left out", result.excluded)
    print_left_out("Not readable as skills", result.unreadable)
    if result.site is not None:
        click.echo(f"Site: {display_path(result.dist, cwd)}/site/ with {result.site.pages:,} "
                   f"skill pages ({result.site.rendered:,} rendered) in "
                   f"{result.site.seconds:.1f} s.")
    if verbose:
        for phase, seconds in result.timings.items():
            click.echo(f"  {phase:<34}{seconds:8.2f} s")
        for phase, seconds in (result.site.timings if result.site else {}).items():
            click.echo(f"    site: {phase:<26}{seconds:8.2f} s")
    # The caches and the result are left for the process's end, which the command reaches
    # without freeing them one by one (millions of objects at 100k skills); another
    # build in this process replaces them.
    _LEFT[:] = [early.kept, result]
    exit_quickly()


#: What the last build left for the process's end (see the end of :func:`build`).
_LEFT: list[object] = []


def print_left_out(what: str, paths: list[str], shown: int = 5) -> None:
    """Never silent: how many files, and the first paths (their problems say why)."""
    if paths:
        more = f" and {len(paths) - shown} more" if len(paths) > shown else ""
        from skillsite.filenames import printable

        listed = ", ".join(printable(path) for path in paths[:shown])
        click.echo(f"{what}: {len(paths)} file(s): {listed}{more} "
                   "(see their problems above, or the site's problems page).")


def _print_build_problems(problems: list[Problem], corpus: Path, quiet: bool) -> None:
    """The lint report on standard error, paths relative to the current folder."""
    from skillsite.report.text import TextReporter

    shown_path = _shown_paths(corpus, Path.cwd())
    shown = [Problem(shown_path(p.path), p.line, p.column, p.rule, p.severity, p.message)
             for p in problems if not quiet or p.severity == "error"]
    if shown:
        click.echo(TextReporter(rules={}).render_problems(shown), err=True)


def _shown_paths(corpus: Path, cwd: Path) -> Callable[[str], str]:
    """``display_path(corpus / path, cwd)`` for a problem's ``path`` (relative to the
    corpus), by joining strings where that is the same: a 100k corpus reports thousands of
    problems, and a ``Path`` and an ``abspath`` each cost more than the rest of the line."""
    from skillsite.linter.checker import display_path

    root = os.path.join(os.path.abspath(corpus), "")
    inside = os.path.join(str(cwd), "")

    def shown(path: str) -> str:
        if (os.sep != "/" or not path or path.startswith("/") or path.endswith("/")
                or "//" in path or not _PLAIN.isdisjoint(path.split("/"))):
            return display_path(corpus / path, cwd)  # what abspath would normalize
        full = root + path
        return full[len(inside):] if full.startswith(inside) else full

    return shown


_PLAIN = frozenset((".", ".."))  # the segments a plain relative path does not have
