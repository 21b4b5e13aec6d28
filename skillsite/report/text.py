"""The human-readable report: ``path:line:col: severity rule message``, grouped by file.

The location prefix is the one compilers use, so editors and terminals can jump to it.
"""
from __future__ import annotations

from itertools import groupby

from skillsite.filenames import printable
from skillsite.models import ERROR, CheckResult, Problem
from skillsite.report.base import Reporter, ordered

_COLORS = {ERROR: "\033[1;31m"}  # bold red; anything else (warnings) is yellow
_WARNING_COLOR = "\033[33m"
_RESET = "\033[0m"


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" if count == 1 else f"{count:,} {word}s"


def summary_line(result: CheckResult) -> str:
    """``Checked 14 files (12 skills): 2 errors, 1 warning.`` or ``...: no problems.``"""
    head = f"Checked {_plural(result.files, 'file')} ({_plural(result.skills, 'skill')})"
    if not result.problems:
        return f"{head}: no problems."
    return f"{head}: {_plural(result.errors, 'error')}, {_plural(result.warnings, 'warning')}."


class TextReporter(Reporter):
    """One line per problem, a blank line between files, then a summary line."""

    def render(self, result: CheckResult) -> str:
        return "\n\n".join([*self._blocks(result.problems), summary_line(result)])

    def render_problems(self, problems: list[Problem]) -> str:
        """The problems alone, grouped by file, without the summary line."""
        return "\n\n".join(self._blocks(problems))

    def _blocks(self, problems: list[Problem]) -> list[str]:
        return ["\n".join(self._line(p) for p in group)
                for _, group in groupby(ordered(problems), key=lambda p: p.path)]

    def _line(self, problem: Problem) -> str:
        # Indent continuation lines so a multi-line message can't pass for a new problem.
        message = printable(problem.message).replace("\r\n", "\n").replace("\n", "\n    ")
        return (f"{printable(problem.path)}:{problem.line}:{problem.column}: "
                f"{self._severity(problem.severity)} {problem.rule} {message}")

    def _severity(self, severity: str) -> str:
        if not self.color:
            return severity
        return f"{_COLORS.get(severity, _WARNING_COLOR)}{severity}{_RESET}"
