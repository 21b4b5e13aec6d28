"""Inline suppression comments, and the problems they silence.

In Markdown::

    <!-- skillsite-disable-next-line broken-link -->
    <!-- skillsite-disable pipe-to-shell, unpinned-runner -->  ...  <!-- skillsite-enable -->

In YAML front matter, TOML and scripts, a ``#`` comment: at the end of a line it silences
that line, on a line of its own the next one::

    name: PDF_Tools  # skillsite: disable=name-format

A comment without rule IDs silences every rule. A suppression that silences nothing is
itself reported (``unused-suppression``), so stale ones do not pile up.
"""
from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field

from skillsite.linter.markers import contains
from skillsite.models import Problem

_MARKDOWN = re.compile(r"<!--\s*skillsite-(disable-next-line|disable|enable)\b([^>]*?)-->")
_HASH = re.compile(r"#\s*skillsite:\s*disable(?:=([\w\s,-]+))?")
UNUSED = "unused-suppression"


@dataclass
class Suppression:
    """Rules (empty: all) silenced on lines ``first``..``last`` (1-based, inclusive)."""

    line: int
    column: int
    rules: frozenset[str]
    first: int
    last: int
    used: bool = field(default=False)

    def covers(self, problem: Problem) -> bool:
        return (self.first <= problem.line <= self.last
                and (not self.rules or problem.rule in self.rules))


def suppressions(text: str) -> list[Suppression]:
    """Every suppression comment in ``text``; empty when it mentions none (cheap)."""
    if not contains(text, "skillsite"):
        return []
    lines = text.split("\n")
    found: list[Suppression] = []
    open_ranges: list[Suppression] = []
    for number, line in enumerate(lines, 1):
        if "skillsite" not in line:
            continue
        for match in _MARKDOWN.finditer(line):
            kind, rules = match.group(1), _ids(match.group(2))
            if kind == "disable-next-line":
                found.append(Suppression(number, match.start() + 1, rules, number + 1,
                                         number + 1))
            elif kind == "disable":
                region = Suppression(number, match.start() + 1, rules, number + 1, len(lines))
                found.append(region)
                open_ranges.append(region)
            else:
                _close(open_ranges, rules, number)
        for match in _HASH.finditer(line):
            rules = _ids(match.group(1) or "")
            target = number if line[:match.start()].strip() else number + 1
            found.append(Suppression(number, match.start() + 1, rules, target, target))
    return found


def silences(text: str, rule: str, line: int) -> bool:
    """Whether an inline comment in ``text`` silences ``rule`` on ``line``."""
    return any(s.first <= line <= s.last and (not s.rules or rule in s.rules)
               for s in suppressions(text))


def _close(open_ranges: list[Suppression], rules: frozenset[str], line: int) -> None:
    for region in reversed(open_ranges):
        if not rules or region.rules == rules or region.rules & rules:
            region.last = line - 1
            open_ranges.remove(region)
            return


def _ids(text: str) -> frozenset[str]:
    return frozenset(part for part in re.split(r"[\s,]+", text.strip()) if part)


def apply(problems: list[Problem], texts: dict[str, str]
          ) -> tuple[list[Problem], list[tuple[str, Suppression]]]:
    """``problems`` without those an inline comment silences in their own file (``texts``
    maps a path to that file's text), and the ``(path, suppression)`` that silenced
    nothing."""
    by_path = {path: suppressions(text) for path, text in texts.items()}
    if not any(by_path.values()):
        return problems, []
    kept = []
    for problem in problems:
        covering = [s for s in by_path.get(problem.path, ()) if s.covers(problem)]
        for suppression in covering:
            suppression.used = True
        if not covering:
            kept.append(problem)
    unused = [(path, s) for path, found in by_path.items() for s in found if not s.used]
    return kept, unused


def unused_message(suppression: Suppression, known: Collection[str]) -> str:
    unknown = sorted(suppression.rules - set(known))
    if unknown:
        return (f"this suppression names unknown rule(s) {', '.join(unknown)}; "
                "run 'skillsite rules' to list them")
    what = ", ".join(sorted(suppression.rules)) if suppression.rules else "every rule"
    return f"this suppression of {what} silences nothing; remove it"
