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
from json.encoder import INFINITY
from json.encoder import encode_basestring_ascii as _string
from typing import Any

from skillsite.models import CheckResult, Problem
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
        """``dumps_indented(to_data(result))``, each problem written with one format
        rather than a dict and seven encoder calls (Composio's 1,788 problems: 5.6 ->
        about 1.5 ms, at the end of every check)."""
        out: list[str] = [f'{{\n  "version": {_scalar(VERSION)},\n  "summary": ']
        try:
            _encode(result.summary(), "\n  ", out)
            out.append(',\n  "problems": ')
            _problems(ordered(result.problems), "\n  ", out)
            out.append(',\n  "trust": ')
            _encode(result.trust, "\n  ", out)
        except (TypeError, RecursionError):  # what the C encoder cannot take
            return json.dumps(to_data(result), indent=2)
        out.append("\n}")
        return "".join(out)


def _problems(problems: list[Problem], newline: str, out: list[str]) -> None:
    """What ``_encode([p.to_dict() for p in problems], newline, out)`` appends."""
    if not problems:
        out.append("[]")
        return
    inner = newline + "  "
    field = "," + inner + "  "
    opening = "["
    for problem in problems:
        line, column = problem.line, problem.column
        if type(line) is int and type(column) is int:  # noqa: E721 (a bool is no line)
            out.append(f'{opening}{inner}{{{inner}  "path": {_string(problem.path)}'
                       f'{field}"line": {int.__repr__(line)}'
                       f'{field}"column": {int.__repr__(column)}'
                       f'{field}"rule": {_string(problem.rule)}'
                       f'{field}"severity": {_string(problem.severity)}'
                       f'{field}"message": {_string(problem.message)}{inner}}}')
        else:
            out.append(opening + inner)
            _encode(problem.to_dict(), inner, out)
        opening = ","
    out.append(newline + "]")


def dumps_indented(value: Any) -> str:
    """``json.dumps(value, indent=2)``, the same text in half the time: with an indent the
    standard library encodes in Python through generators, here with the C string encoder
    and one list (10k skills' report: 0.17 -> 0.08 s)."""
    out: list[str] = []
    try:
        _encode(value, "\n", out)
    except (TypeError, RecursionError):  # a key that is no string, or what JSON cannot hold
        return json.dumps(value, indent=2)
    return "".join(out)


def _encode(value: Any, newline: str, out: list[str]) -> None:
    # A string inside a mapping or a list (most of the trust part: levels, summaries,
    # hosts, tools) is written with its key or comma, without a call of its own.
    if isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = newline + "  "
        opening, between = "{" + inner, "," + inner
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(key)
            if type(item) is str:
                out.append(f"{opening}{_string(key)}: {_string(item)}")
            else:
                out.append(f"{opening}{_string(key)}: ")
                _encode(item, inner, out)
            opening = between
        out.append(newline + "}")
    elif isinstance(value, (list, tuple)):
        if not value:
            out.append("[]")
            return
        inner = newline + "  "
        opening, between = "[" + inner, "," + inner
        for item in value:
            if type(item) is str:
                out.append(opening + _string(item))
            else:
                out.append(opening)
                _encode(item, inner, out)
            opening = between
        out.append(newline + "]")
    else:
        out.append(_scalar(value))


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return _string(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    raise TypeError(type(value).__name__)


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == INFINITY:
        return "Infinity"
    if value == -INFINITY:
        return "-Infinity"
    return float.__repr__(value)
