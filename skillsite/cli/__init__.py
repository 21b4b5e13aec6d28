"""The ``skillsite`` command line. It only parses options: the work happens in the library.

The ``main`` group lives here; each family of commands has its own module (``check``,
``build``) and is registered below. Heavy modules are imported inside commands, so
``skillsite --help`` stays instant.
"""
from __future__ import annotations

import click

from skillsite import __version__


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


def _register() -> None:
    from skillsite.cli import build, check, query

    for command in (check.check, check.rules, build.build, *query.COMMANDS):
        main.add_command(command)


_register()
