"""Output formats for ``skillsite check``: text, json, github and sarif.

Each format is a :class:`~skillsite.report.base.Reporter` subclass chosen by name from
:data:`REPORTERS`; :func:`render` is the one call the CLI needs.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from skillsite.models import CheckResult
from skillsite.report.base import Reporter
from skillsite.report.github import GithubReporter
from skillsite.report.json import JsonReporter
from skillsite.report.sarif import SarifReporter
from skillsite.report.text import TextReporter

if TYPE_CHECKING:
    from skillsite.linter.rules.registry import Rule

__all__ = ["REPORTERS", "Reporter", "auto_format", "render"]

REPORTERS: dict[str, type[Reporter]] = {
    "text": TextReporter,
    "json": JsonReporter,
    "github": GithubReporter,
    "sarif": SarifReporter,
}


def render(fmt: str, result: CheckResult, *, rules: Mapping[str, Rule],
           color: bool = False, base: str | os.PathLike[str] | None = None,
           environ: Mapping[str, str] | None = None) -> str:
    """Format ``result`` as ``fmt`` (a key of :data:`REPORTERS`), without a trailing newline.

    ``rules`` maps rule IDs to rules; only SARIF uses it, to describe them. ``color``
    adds ANSI colors to the formats people read (text, and the text part of github).
    ``base`` is the directory the problems' relative paths are relative to (default: the
    current one); sarif and github restate them against the repository root, found from
    ``base`` and ``environ`` (default ``os.environ``; see :mod:`skillsite.report.roots`).
    Raises :class:`ValueError` for an unknown format.
    """
    try:
        reporter = REPORTERS[fmt]
    except KeyError:
        known = ", ".join(REPORTERS)
        raise ValueError(f"unknown output format {fmt!r} (expected one of: {known})") from None
    return reporter(rules=rules, color=color, base=base, environ=environ).render(result)


def auto_format(environ: Mapping[str, str]) -> str:
    """``"github"`` inside GitHub Actions (``GITHUB_ACTIONS=true``), else ``"text"``.

    Actions turns workflow commands into annotations on the diff, which is where a
    reviewer looks; everywhere else they would just be noise.
    """
    return "github" if environ.get("GITHUB_ACTIONS") == "true" else "text"
