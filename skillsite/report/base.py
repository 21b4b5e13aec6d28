"""The shape every reporter shares, and the one problem order they all agree on."""
from __future__ import annotations

from collections.abc import Mapping
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
    """

    def __init__(self, *, rules: Mapping[str, Rule], color: bool = False) -> None:
        self.rules = rules
        self.color = color

    def render(self, result: CheckResult) -> str:
        """Return the whole report, without a trailing newline."""
        raise NotImplementedError
