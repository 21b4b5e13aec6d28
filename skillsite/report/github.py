"""GitHub Actions workflow commands, so problems show up as annotations on the PR diff.

Annotations alone make a poor log, so the plain text report follows them: someone
reading the job log sees the same lines as on their own terminal.
"""
from __future__ import annotations

import os
from pathlib import Path

from skillsite.filenames import printable
from skillsite.models import ERROR, CheckResult, Problem
from skillsite.report.base import Reporter, ordered
from skillsite.report.text import TextReporter


def escape_data(value: str) -> str:
    """Escape a command's message the way ``@actions/core`` does."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """Escape a property value: as data, plus the ``:`` and ``,`` that delimit properties."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def annotation(problem: Problem, path: str | None = None) -> str:
    """``::error file=...,line=...,col=...,title=rule::message`` for one problem, with
    ``path`` as its file (default: the problem's own)."""
    command = "error" if problem.severity == ERROR else "warning"
    properties = ",".join(f"{key}={escape_property(str(value))}" for key, value in (
        ("file", printable(path if path is not None else problem.path)), ("line", problem.line),
        ("col", problem.column), ("title", problem.rule)))
    return f"::{command} {properties}::{escape_data(printable(problem.message))}"


class GithubReporter(Reporter):
    """One annotation per problem, its file relative to the repository root (GitHub
    places annotations by that path, whatever directory the step ran in; one outside
    the repository keeps its absolute path), then the text report."""

    def render(self, result: CheckResult) -> str:
        lines = [annotation(p, self.from_root(p.path) or _absolute(self.base, p.path))
                 for p in ordered(result.problems)]
        lines.append(TextReporter(rules=self.rules, color=self.color).render(result))
        return "\n".join(lines)


def _absolute(base: Path, path: str) -> str:
    return os.path.normpath(os.path.join(base, path))
