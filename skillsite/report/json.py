"""The machine-readable report. Its shape is a public contract, versioned by ``version``::

    {
      "version": 1,
      "summary": {"files": N, "skills": N, "errors": N, "warnings": N},
      "problems": [
        {"path": "skills/pdf/SKILL.md", "line": 2, "column": 7, "rule": "name-format",
         "severity": "error" | "warning", "message": "..."}
      ],
      "trust": {
        "skills/pdf/SKILL.md": {"level": "none" | "review" | "high", "summary": "...",
          "reasons": [{"rule", "path", "line", "column", "message"}],
          "capabilities": {"scripts": {"count", "languages"}, "network": [hosts],
                           "writes_files": bool, "credentials": [names],
                           "allowed_tools": [tools]}}
      }
    }

``files`` counts the files checked and ``skills`` the skills found in them; ``line`` and
``column`` are 1-based. Problems are sorted by (path, line, column, rule). The output is
``json.dumps(..., indent=2)``. Adding a key is a compatible change; renaming or removing
one, or changing a meaning, bumps ``version``.
"""
from __future__ import annotations

import json
from typing import Any

from skillsite.models import CheckResult
from skillsite.report.base import Reporter, ordered

#: Bump when a consumer written against the previous shape could misread the new one.
VERSION = 1


def to_data(result: CheckResult) -> dict[str, Any]:
    """The report as plain data (what :class:`JsonReporter` serialises)."""
    return {
        "version": VERSION,
        "summary": result.summary(),
        "problems": [p.to_dict() for p in ordered(result.problems)],
        "trust": result.trust,
    }


class JsonReporter(Reporter):
    """The versioned JSON document described in this module's docstring."""

    def render(self, result: CheckResult) -> str:
        return json.dumps(to_data(result), indent=2)
