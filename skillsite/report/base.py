"""The shape every reporter shares, and the one problem order they all agree on."""
from __future__ import annotations

import os
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from skillsite.models import CheckResult, Problem

if TYPE_CHECKING:
    from skillsite.linter.rules.registry import Rule


def ordered(problems: list[Problem]) -> list[Problem]:
    """Problems by (path, line, column, rule), so every format lists them alike.

    The order must not depend on the order rules happened to run in, or output would
    churn between runs and diff badly in CI logs and review comments.
    """
    return sorted(problems, key=lambda p: (p.path, p.line, p.column, p.rule))


class Reporter:
    """Turns a :class:`CheckResult` into the text of one output format.

    Reporters decide nothing: they only format. ``rules`` is there for formats that
    describe the rules themselves (SARIF); ``color`` for formats read by people.
    ``base`` is the directory the problems' relative paths are relative to (the current
    one by default) and ``environ`` the environment (``os.environ`` by default): the
    formats GitHub reads restate paths against the repository root they give
    (:mod:`skillsite.report.roots`).
    """

    def __init__(self, *, rules: Mapping[str, Rule], color: bool = False,
                 base: str | os.PathLike[str] | None = None,
                 environ: Mapping[str, str] | None = None) -> None:
        self.rules = rules
        self.color = color
        self.given_base = base
        self.environ = os.environ if environ is None else environ

    @cached_property
    def base(self) -> Path:
        """The directory the problems' relative paths are relative to, absolute."""
        return Path(os.path.realpath(self.given_base if self.given_base is not None
                                     else os.getcwd()))

    @cached_property
    def root(self) -> Path:
        """The root of the repository the problems are in (:mod:`skillsite.report.roots`)."""
        from skillsite.report.roots import repository_root

        return repository_root(self.base, self.environ)

    def from_root(self, path: str) -> str | None:
        """``path`` relative to :attr:`root` (``/`` separators); None outside it."""
        from skillsite.report.roots import from_root

        return from_root(path, self.base, self.root)

    def render(self, result: CheckResult) -> str:
        """Return the whole report, without a trailing newline."""
        raise NotImplementedError
