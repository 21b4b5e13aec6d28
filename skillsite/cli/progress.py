"""The one progress line of the command line, on standard error.

Shown only on a terminal outside CI, and only once the work is large enough to be worth
watching: a bar when the total is known (``build``), else a running count (``check``,
whose discovery walk is still going while files are checked).
"""
from __future__ import annotations

import os
import sys

import click

_WIDTH = 30


class Progress:
    def __init__(self, verb: str, *, at_least: int = 200) -> None:
        self.verb = verb
        self.at_least = at_least
        self.done = 0
        self.live = sys.stderr.isatty() and not os.environ.get("CI")
        self.shown = False

    def __enter__(self) -> Progress:
        return self

    def advance(self, count: int) -> None:
        """``count`` more items done, out of a total not known yet."""
        self.done += count
        if self.live and self.done >= self.at_least and self.done % 500 < count:
            self._show(f"{self.verb} {self.done} files")

    def update(self, done: int, total: int) -> None:
        """``done`` of ``total`` items."""
        self.done = done
        if self.live and total >= self.at_least:
            filled = _WIDTH * done // max(total, 1)
            self._show(f"{self.verb} [{'#' * filled}{'.' * (_WIDTH - filled)}] {done}/{total}")

    def _show(self, line: str) -> None:
        click.echo(f"\r{line}", nl=False, err=True)
        self.shown = True

    def __exit__(self, *exc: object) -> None:
        if self.shown:
            click.echo("\r" + " " * 60 + "\r", nl=False, err=True)
