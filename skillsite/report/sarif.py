"""SARIF 2.1.0, the format GitHub code scanning (``codeql-action/upload-sarif``) reads.

One run, whose ``tool.driver.rules`` describes every rule in the ``rules`` mapping
(sorted by ID) plus any rule a problem names that the mapping lacks, so every result's
``ruleIndex`` points at a descriptor. Paths become URIs relative to ``%SRCROOT%``, which
the run's ``originalUriBaseIds`` defines as the repository root (an absolute ``file:``
URI, :mod:`skillsite.report.roots`), so GitHub code scanning places them whatever
directory the check ran in; a file outside the repository gets an absolute ``file:`` URI.
Lines and columns are 1-based and counted in code points, as the ``columnKind`` says.
"""
from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from skillsite.models import ERROR, WARNING, CheckResult, Problem
from skillsite.report.base import Reporter, ordered
from skillsite.report.plain import first_sentence, plain_summary
from skillsite.report.roots import from_root

if TYPE_CHECKING:
    from skillsite.linter.rules.registry import Rule

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://pypi.org/project/skillsite/"
SRCROOT = "%SRCROOT%"
_LEVELS = {ERROR: "error", WARNING: "warning"}


def _tool_version() -> str:
    try:
        from skillsite.version import __version__
    except ImportError:  # the package metadata is not there yet (or not installed)
        return "0.0.0"
    return str(__version__)


def _level(severity: str) -> str:
    return _LEVELS.get(severity, "warning")


def descriptor(rule_id: str, rule: Rule | None, severity: str = ERROR) -> dict[str, Any]:
    """A reportingDescriptor; without a ``rule``, a bare one built from the problem. Its
    ``shortDescription`` is the first sentence of the rule's doc, without markup."""
    summary = (first_sentence(plain_summary(rule.doc)) if rule else "") or rule_id
    doc = (rule.doc if rule else "") or summary
    return {
        "id": rule_id,
        "name": rule_id,
        "shortDescription": {"text": summary},
        "fullDescription": {"text": doc},
        "help": {"text": doc},
        "defaultConfiguration": {"level": _level(rule.severity if rule else severity)},
    }


def descriptors(problems: list[Problem], rules: Mapping[str, Rule]) -> list[dict[str, Any]]:
    """Descriptors for every known rule and every rule a problem names, sorted by ID."""
    unknown = {p.rule: p.severity for p in problems if p.rule not in rules}
    return [descriptor(rule_id, rules.get(rule_id), unknown.get(rule_id, ERROR))
            for rule_id in sorted({*rules, *unknown})]


def artifact_location(path: str, base: Path | None = None,
                      root: Path | None = None) -> dict[str, Any]:
    """``path`` (relative to ``base``, or absolute) as a URI reference relative to
    ``%SRCROOT%`` (``root``); one outside ``root`` as an absolute ``file:`` URI. Both
    default to the current directory."""
    base = base or Path(os.path.realpath(os.getcwd()))
    relative = from_root(path, base, root or base)
    if relative is None:
        return {"uri": Path(os.path.normpath(os.path.join(base, path))).as_uri()}
    # quote() also escapes ':', so a first segment like "c:x" can't read as a URI scheme.
    # A name that is not UTF-8 keeps its bytes (percent-encoded), as as_uri() does.
    return {"uri": quote(relative.encode("utf-8", "surrogateescape"), safe="/"),
            "uriBaseId": SRCROOT}


def root_uri(root: Path) -> str:
    """``root`` as an absolute ``file:`` URI ending in ``/``, as ``originalUriBaseIds``
    needs for relative references to resolve under it."""
    uri = root.as_uri()
    return uri if uri.endswith("/") else uri + "/"


def result_entry(problem: Problem, index: int, base: Path | None = None,
                 root: Path | None = None) -> dict[str, Any]:
    """A SARIF result for one problem; ``index`` is its rule's place in the descriptors;
    ``base`` and ``root`` as :func:`artifact_location` takes them."""
    region = {"startLine": max(problem.line, 1), "startColumn": max(problem.column, 1)}
    return {
        "ruleId": problem.rule,
        "ruleIndex": index,
        "level": _level(problem.severity),
        "message": {"text": problem.message},
        "locations": [{"physicalLocation": {
            "artifactLocation": artifact_location(problem.path, base, root),
            "region": region,
        }}],
    }


def to_data(result: CheckResult, rules: Mapping[str, Rule], base: Path | None = None,
            root: Path | None = None) -> dict[str, Any]:
    """The SARIF log as plain data (what :class:`SarifReporter` serialises): the
    problems' paths are relative to ``base`` (default: the current directory) and
    restated against ``root`` (default: ``base``), the run's ``%SRCROOT%``."""
    base = base or Path(os.path.realpath(os.getcwd()))
    root = root or base
    problems = ordered(result.problems)
    rule_list = descriptors(problems, rules)
    index = {d["id"]: i for i, d in enumerate(rule_list)}
    driver = {"name": "skillsite", "informationUri": INFORMATION_URI,
              "version": _tool_version(), "rules": rule_list}
    run = {
        "tool": {"driver": driver},
        "originalUriBaseIds": {SRCROOT: {"uri": root_uri(root)}},
        "columnKind": "unicodeCodePoints",
        "results": [result_entry(p, index[p.rule], base, root) for p in problems],
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


class SarifReporter(Reporter):
    """A SARIF 2.1.0 log with one run."""

    def render(self, result: CheckResult) -> str:
        return json.dumps(to_data(result, self.rules, self.base, self.root), indent=2)
