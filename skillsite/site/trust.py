"""Trust flags, computed at build time, each with its evidence (rule, file and line).

Reviewers dispute flags that come without evidence, so every flag names the check that
raised it and the exact place that made it fire. Files are read from the corpus only
inside the skill's folder, never through a symlink out of the corpus root, and at most
:data:`MAX_SCAN` bytes of each.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from skillsite.site.data import SiteSkill

MAX_SCAN = 256 * 1024
SCRIPT_SUFFIXES = (".sh", ".bash", ".zsh", ".py", ".js", ".mjs", ".ts", ".rb", ".pl",
                   ".ps1", ".bat", ".cmd", ".php", ".lua")
_ENDPOINT = re.compile(r"\b(?:https?|wss?|mcp|ftp)://[^\s\"'<>()\[\]`]+", re.IGNORECASE)
_ALLOWED_TOOLS = re.compile(r"^\s*[\"']?allowed[-_]tools[\"']?\s*[:=]")
#: Endpoints of documentation examples are not network access.
_EXAMPLE_HOSTS = re.compile(r"://(?:[a-z0-9-]+\.)*(?:example\.(?:com|org|net))(?:[:/]|$)",
                            re.IGNORECASE)


@dataclass(frozen=True)
class Flag:
    kind: str          # scripts, network, allowed-tools, unrestricted-bash, security
    rule: str          # the check (or lint rule) that raised it
    path: str          # relative to the corpus root
    line: int
    detail: str


def security_rules() -> frozenset[str]:
    """IDs of the lint rules whose family is ``security`` (none until rules declare a
    family)."""
    from skillsite.linter.rules import RULES

    return frozenset(rule_id for rule_id, rule in RULES.items()
                     if getattr(rule, "family", None) == "security")


def file_flags(skill: SiteSkill, root: Path) -> list[Flag]:
    """The flags that come from the skill's files, ordered by kind, file and line."""
    flags = list(_scripts(skill, root))
    flags += _network(skill, root)
    flags += _tools(skill, root)
    return _sorted(flags)


def problem_flags(skill: SiteSkill, security: frozenset[str]) -> list[Flag]:
    """A flag for each of the skill's problems from a security rule."""
    return _sorted([Flag("security", p.rule, p.path, p.line, p.message)
                    for p in skill.problems if p.rule in security])


def _sorted(flags: list[Flag]) -> list[Flag]:
    return sorted(set(flags), key=lambda f: (f.kind, f.path, f.line, f.rule, f.detail))


def _scripts(skill: SiteSkill, root: Path) -> Iterator[Flag]:
    for path in skill.files:
        inside = path[len(skill.folder) + 1:] if skill.folder else path
        if inside.startswith("scripts/") or path.lower().endswith(SCRIPT_SUFFIXES):
            yield Flag("scripts", "scripts-present", path, 1, f"script file {inside}")
    entry = skill.metadata.get("entry")
    if skill.format == "skill-json" and isinstance(entry, str):
        yield Flag("scripts", "scripts-present", skill.path, _line_of(skill, "entry", root),
                   f"runs {entry}")


def _network(skill: SiteSkill, root: Path) -> Iterator[Flag]:
    for path in [skill.path, *skill.files]:
        for number, line in _lines(root, path):
            for found in _ENDPOINT.finditer(line):
                url = found.group(0).rstrip(".,;:")
                if not _EXAMPLE_HOSTS.search(url):
                    yield Flag("network", "network-endpoint", path, number, url[:200])


def _tools(skill: SiteSkill, root: Path) -> Iterator[Flag]:
    tools = skill.metadata.get("allowed-tools")
    if tools is None:
        return
    names = tools.split() if isinstance(tools, str) else [str(t) for t in tools] \
        if isinstance(tools, list) else [str(tools)]
    line = _line_of(skill, "allowed-tools", root)
    yield Flag("allowed-tools", "allowed-tools", skill.path, line,
               "allowed-tools: " + " ".join(names)[:300])
    if any(name.strip(",") in ("Bash", "Bash(*)", "Bash(*:*)") for name in names):
        yield Flag("unrestricted-bash", "unrestricted-bash", skill.path, line,
                   "Bash is allowed without a command pattern")


def _line_of(skill: SiteSkill, key: str, root: Path | None = None) -> int:
    if root is not None:
        for number, line in _lines(root, skill.path):
            if (_ALLOWED_TOOLS.match(line) if key == "allowed-tools"
                    else f'"{key}"' in line):
                return number
    return 1


def _lines(root: Path, path: str) -> Iterator[tuple[int, str]]:
    """Numbered lines of a corpus file, if it is a regular file under ``root``."""
    full = os.path.join(root, path)
    real_root = os.path.realpath(root)
    if not os.path.realpath(full).startswith(real_root + os.sep):
        return
    try:
        with open(full, "rb") as handle:
            data = handle.read(MAX_SCAN)
    except OSError:
        return
    if b"\x00" in data[:8192]:
        return
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        yield number, line
