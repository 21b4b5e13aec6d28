"""``skillsite fix``: make the safe fixes, or show them as a diff."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from skillsite.config import Config
    from skillsite.models import Source

from skillsite.errors import EXIT_CLEAN, EXIT_PROBLEMS


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--dry-run", is_flag=True,
              help="Print the changes as a unified diff and change nothing.")
@click.option("--rename-folder", is_flag=True,
              help="For a name that does not match its folder, rename the folder to the "
                   "name instead of changing the name.")
@click.option("--select", multiple=True, metavar="RULE[,RULE]",
              help="Fix only these rules. Example: --select trailing-whitespace")
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Configuration file (default: the nearest skillsite.toml, or "
                   "pyproject.toml with [tool.skillsite]).")
def fix(paths: tuple[Path, ...], dry_run: bool, rename_folder: bool,
        select: tuple[str, ...], config_path: Path | None) -> None:
    """Fix the safe problems of every SKILL.md under PATHS (default: the current folder).

    Only fixes that never change meaning are made, by editing the text in place, so
    comments, key order and quoting stay as written:

    \b
      name-directory-mismatch  the name becomes the folder's (--rename-folder: the reverse)
      yaml-syntax              a value holding ': ' is quoted
      allowed-tools-format     a list of tool names becomes one space-separated string
      trailing-whitespace      spaces and tabs at line ends go
      unclosed-fence           the missing closing fence is added at the end

    After fixing, each file is checked again; if a fixed rule still reports a problem,
    that file is left untouched.

    \b
    Examples:
      skillsite fix --dry-run skills/ | less
      skillsite fix --select trailing-whitespace,unclosed-fence
      skillsite fix --rename-folder skills/pdf-tools

    Exit codes: 0 done (or nothing to do), 1 a file could not be fixed safely, 2 usage error.
    """
    from skillsite.config import check_rule_ids
    from skillsite.linter.fixes import FIXERS
    from skillsite.linter.rules import RULES, load_config

    rules = {r.strip() for value in select for r in value.split(",") if r.strip()} or None
    check_rule_ids(sorted(rules or ()), "command line", RULES)
    if rules and not rules <= set(FIXERS):
        raise click.UsageError(f"no safe fix for {', '.join(sorted(rules - set(FIXERS)))}; "
                               f"fixable: {', '.join(FIXERS)}")
    if rename_folder:
        rules = (rules or set(FIXERS)) - {"name-directory-mismatch"}
    config = load_config(config_path)
    failed = _fix_all(paths or (Path("."),), config, rules, dry_run, rename_folder)
    sys.exit(EXIT_PROBLEMS if failed else EXIT_CLEAN)


def _fix_all(paths: tuple[Path, ...], config: Config, rules: set[str] | None, dry_run: bool,
             rename_folder: bool) -> bool:
    import difflib

    from skillsite.linter import fixing
    from skillsite.linter.checker import display_path
    from skillsite.linter.discover import discover
    from skillsite.linter.rules.context import Context

    # Every fixable rule, whatever the profile: a fix is asked for by name or by "fix".
    ctx = Context(config.merged(profile="all"))
    changed = failed = 0
    sources = [s for s in discover(list(paths), exclude=ctx.config.exclude)
               if s.kind == "skill-md"]
    readable = []
    for source in sources:
        try:
            result = fixing.fix_file(source, ctx, Path.cwd(), rules)
        except fixing.NotFixable as reason:
            click.echo(f"{display_path(source.path, Path.cwd())}: skipped: {reason}; "
                       "`skillsite check` reports it", err=True)
            continue
        readable.append(source)
        for rule in result.refused:
            failed += 1
            click.echo(f"{result.display}: not fixed: the {rule} problem is still there "
                       "after the edit; fix it by hand", err=True)
        if result.after != result.before:
            changed += 1
            if dry_run:
                click.echo("".join(difflib.unified_diff(
                    result.before.splitlines(keepends=True),
                    result.after.splitlines(keepends=True),
                    f"a/{result.display}", f"b/{result.display}")), nl=False)
            else:
                fixing.write(result)
            click.echo(f"{result.display}: {'would fix' if dry_run else 'fixed'} "
                       f"{', '.join(result.fixed)}", err=True)
    if rename_folder:
        changed += _rename(readable, ctx.config.max_file_size, dry_run)
    click.echo(f"{'Would change' if dry_run else 'Changed'} {changed} of {len(sources)} "
               f"SKILL.md files.", err=True)
    return bool(failed)


def _rename(sources: list[Source], max_size: int, dry_run: bool) -> int:
    from skillsite.linter import fixing

    renamed = 0
    for source in sources:
        try:
            move = fixing.folder_rename(source, max_size)
        except fixing.NotFixable:  # changed since it was fixed; reported next run
            continue
        if move:
            renamed += 1
            click.echo(f"{'would rename' if dry_run else 'renamed'} {move[0]} -> "
                       f"{move[1].name}", err=True)
            if not dry_run:
                move[0].rename(move[1])
    return renamed
