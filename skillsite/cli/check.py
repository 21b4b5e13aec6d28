"""``skillsite check`` and ``skillsite rules``: lint a corpus, list the rules."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from skillsite.cli import exit_quickly
from skillsite.cli.progress import Progress
from skillsite.errors import EXIT_CLEAN, EXIT_PROBLEMS
from skillsite.models import CheckResult

FORMATS = ("auto", "text", "json", "github", "sarif")


def _split(values: tuple[str, ...]) -> tuple[str, ...]:
    """Accept both ``--select a --select b`` and ``--select a,b``."""
    return tuple(v.strip() for value in values for v in value.split(",") if v.strip())


@click.command()
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
@click.option("--profile", type=click.Choice(["recommended", "strict", "all"]),
              help="Rule profile (default: the configuration's, else recommended): "
                   "recommended runs the rules measured low-noise on public corpora, strict "
                   "adds matters of taste, all adds the opt-in rules. --select and --ignore "
                   "apply on top. Example: --profile strict")
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
              help="Processes, this one included. 0 picks automatically: one for small "
                   "corpora, every idle core for large ones. Example: --jobs 2")
@click.option("--changed-since", metavar="REF",
              help="Report per-file problems only for skills changed since this git ref; "
                   "corpus-wide rules (duplicate names, dependencies) still see every skill. "
                   "Example: --changed-since origin/main")
@click.option("--color/--no-color", default=None,
              help="Color the text output (default: when writing to a terminal).")
@click.option("--baseline", type=click.Path(dir_okay=False, path_type=Path),
              help="Report only problems not in this baseline file; when it does not exist, "
                   "write it from the current problems. Matching is by rule and line "
                   "content, not line number. Example: --baseline .skillsite-baseline.json")
@click.option("--no-cache", is_flag=True,
              help="Check every file again, neither reading nor writing the cache.")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where to keep the results cache (default: $SKILLSITE_CACHE_DIR, else "
                   "~/.cache/skillsite). Example: --cache-dir .skillsite-cache")
def check(paths: tuple[Path, ...], fmt: str, output: Path | None, strict: bool,
          config_path: Path | None, select: tuple[str, ...], profile: str | None,
          ignore: tuple[str, ...], exclude: tuple[str, ...], allow_field: tuple[str, ...],
          max_file_size: int | None,
          jobs: int, changed_since: str | None, color: bool | None,
          baseline: Path | None, no_cache: bool, cache_dir: Path | None) -> None:
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
      skillsite check --baseline .skillsite-baseline.json   adopt on a legacy corpus
      skillsite check --no-cache corpus                     check every file again

    Results are cached per file: a later check re-checks only the skills whose files
    (or whose surroundings: manifests, the corpus's layout) changed since, and gives the
    same report. The cache is keyed by skillsite's version, the whole configuration and
    the files' content hashes; --no-cache bypasses it, --cache-dir moves it, and
    deleting the folder clears it.

    Exit codes: 0 no errors, 1 errors (or warnings with --strict), 2 usage error.
    """
    from skillsite.config import check_rule_ids
    from skillsite.linter import rules as registry
    from skillsite.linter.cachedir import default_dir
    from skillsite.linter.checker import check as run_check
    from skillsite.report import auto_format, render

    config = registry.load_config(config_path)
    select, ignore = _split(select), _split(ignore)
    if select or ignore:
        check_rule_ids([*select, *ignore], "command line", registry.registered())
    config = config.merged(select=select, ignore=config.ignore + ignore,
                           exclude=config.exclude + exclude,
                           allow_fields=config.allow_fields + allow_field,
                           max_file_size=max_file_size, profile=profile)
    only = None
    if changed_since:
        from skillsite.linter.gitdiff import changed_files
        only = changed_files(changed_since, Path.cwd())
    with Progress("checked", at_least=500) as progress:
        result = run_check(paths or (Path("."),), config=config, jobs=jobs, only=only,
                           progress=progress.advance, cache=None if no_cache else cache_dir
                           or default_dir())
    if not result.files:
        warn_no_skills(paths or (Path("."),))
    recorded = None  # how many problems a new baseline took in
    if baseline and not baseline.exists():
        recorded = len(result.problems)
    if baseline:
        result = _against_baseline(result, baseline)
    fmt = auto_format(os.environ) if fmt == "auto" else fmt
    use_color = color if color is not None else (output is None and sys.stdout.isatty())
    # Only SARIF describes the rules; importing them all costs start-up time.
    rules = registry.registered() if fmt == "sarif" else {}
    report = render(fmt, result, rules=rules, color=use_color and fmt in ("text", "github"))
    if recorded is not None and baseline and fmt in ("text", "github"):
        report = _baseline_summary(report, result, recorded, baseline)
    if output:
        output.write_text(report + "\n", encoding="utf-8")
        click.echo(f"Wrote {fmt} report to {output}: {result.errors} errors, "
                   f"{result.warnings} warnings.", err=True)
    else:
        click.echo(report)
    failed = result.errors or (strict and result.warnings)
    exit_quickly()
    sys.exit(EXIT_PROBLEMS if failed else EXIT_CLEAN)


def warn_no_skills(paths: tuple[Path, ...]) -> None:
    """Say on standard error that ``paths`` hold no skill: an empty or mistyped folder."""
    for path in paths:
        click.echo(f"warning: no skill files found under {path}: looked for SKILL.md, "
                   "*.skill.toml, skill.json and Markdown with type: skill", err=True)


def _baseline_summary(report: str, result: CheckResult, recorded: int, path: Path) -> str:
    """The report with its "no problems." summary saying where the problems went."""
    from skillsite.report.text import summary_line

    clean = summary_line(result)
    if not report.endswith(clean):
        return report
    head = clean.removesuffix(" no problems.")
    noun = "problem" if recorded == 1 else "problems"
    return (f"{report.removesuffix(clean)}{head} {recorded} {noun} recorded in the new "
            f"baseline {path}, not shown; later runs with --baseline report only new ones.")


def _against_baseline(result: CheckResult, path: Path) -> CheckResult:
    from skillsite.linter import baseline

    if not path.exists():
        baseline.write(path, result.problems, Path.cwd())
        click.echo(f"Wrote baseline {path} with {len(result.problems)} problems; later runs "
                   "with --baseline report only new ones.", err=True)
        return CheckResult([], result.files, result.skills)
    new, gone = baseline.new_problems(result.problems, baseline.read(path), Path.cwd())
    if gone:
        click.echo(f"{gone} baselined problems are gone; delete {path} and run again to "
                   "refresh it.", err=True)
    return CheckResult(new, result.files, result.skills)


@click.command()
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
    from skillsite.report.rules_doc import rules_json, rules_markdown, rules_text

    click.echo({"text": rules_text, "markdown": rules_markdown, "json": rules_json}[fmt]())
