"""The ``skillsite`` command line. It only parses options: the work happens in the library.

The ``main`` group lives here; each family of commands has its own module (``check``,
``build``, ``query``) and is registered by name in :data:`COMMANDS` below. A command's
module is imported only when that command runs, and heavy modules only inside commands,
so ``skillsite --help`` stays instant and ``skillsite search`` never loads ``build``.
"""
from __future__ import annotations

import contextlib
import os
import sys
from importlib import import_module
from typing import Any

import click

from skillsite.errors import SkillsiteError
from skillsite.version import __version__


class _LazyGroup(click.Group):
    """Imports a command's module only when that command runs (or ``--help`` lists them
    all), so ``skillsite search`` never loads the modules of ``check`` and ``build``."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """The process's entry (the console script, ``python -m skillsite``): as
        ``main()``, but a command that called :func:`exit_quickly` ends the process there,
        without the interpreter's teardown. In-process callers (``CliRunner``) call
        ``main()`` itself and get the usual ``SystemExit``."""
        global _quick
        _quick = False
        # numpy's OpenBLAS starts a thread per core as numpy is imported (0.04 CPU-s on
        # two cores), which the embedding model's products of a few rows never use, and
        # a build runs a worker process per core besides.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        try:
            return self.main(*args, **kwargs)
        except SystemExit as done:
            if _quick:
                _leave(done.code)
            raise

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *self.commands})

    def invoke(self, ctx: click.Context) -> object:
        """The one place a :class:`SkillsiteError` becomes a message and an exit code."""
        try:
            return super().invoke(ctx)
        except SkillsiteError as error:
            click.echo(f"Error: {error.message}", err=True)
            ctx.exit(error.exit_code)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and name in COMMANDS:
            module, attribute = COMMANDS[name]
            self.add_command(getattr(import_module(f"skillsite.cli.{module}"), attribute), name)
        return self.commands.get(name)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
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
      skillsite search "fill a pdf form"    query a built dist/ (also open, read, ...)

    Exit codes: 0 clean, 1 problems found, 2 usage or configuration error.
    """


#: Whether the running command asked to end its process without the teardown.
_quick = False


def exit_quickly() -> None:
    """Let the process end as soon as the command returns: the exit handlers run and the
    output is flushed, as at any exit, but the interpreter does not free every object and
    module one by one (some 15-20 ms after a check of 864 skills, for nothing). Only for a
    command that leaves no thread running and no file open for writing."""
    global _quick
    _quick = True


def _leave(code: object) -> None:
    """What the interpreter does at exit with ``SystemExit(code)`` that shows, then
    ``os._exit``; returns (for the usual exit) while any other thread still runs."""
    import threading

    if any(thread is not threading.main_thread() and not thread.daemon
           for thread in threading.enumerate()):
        return
    import atexit

    atexit._run_exitfuncs()
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        print(code, file=sys.stderr)
        status = 1
    try:
        sys.stdout.flush()
    except (OSError, ValueError):  # a closed pipe: the interpreter's own exit status
        status = 120
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    os._exit(status)


#: Command name -> (module under skillsite.cli, attribute). Add a line to register one.
COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("check", "check"),
    "rules": ("check", "rules"),
    "build": ("build", "build"),
    "fix": ("fix", "fix"),
    "mcp": ("mcp", "mcp"),
    "serve": ("serve", "serve"),
    **{name: ("query", attribute) for name, attribute in (
        ("search", "search"), ("recommend", "recommend"), ("open", "open_"),
        ("read", "read"), ("resolve", "resolve"), ("related", "related"), ("compose", "compose"),
        ("context", "context"), ("prompt", "prompt"), ("verify", "verify"))},
}
