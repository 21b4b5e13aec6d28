"""Trust flags, computed at build time, each with its evidence (rule, file and line).

Reviewers dispute flags that come without evidence, so every flag names the check that
raised it and the exact place that made it fire. Files are never read from the corpus:
``read(path)`` gives the bytes the build linted and kept in the content store (at most
:data:`MAX_SCAN` of each are scanned), so a FIFO or a file changed since is never opened.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from skillsite.site.data import SiteSkill

MAX_SCAN = 256 * 1024
SCRIPT_SUFFIXES = (".sh", ".bash", ".zsh", ".py", ".js", ".mjs", ".ts", ".rb", ".pl",
                   ".ps1", ".bat", ".cmd", ".php", ".lua")
_ENDPOINT = re.compile(r"\b(?:https?|wss?|mcp|ftp)://[^\s\"'<>()\[\]`]+", re.IGNORECASE)
_ALLOWED_TOOLS = re.compile(r"^\s*[\"']?allowed[-_]tools[\"']?\s*[:=]")
#: Endpoints of documentation examples are not network access.
_EXAMPLE_HOSTS = re.compile(r"://(?:[a-z0-9-]+\.)*(?:example\.(?:com|org|net))(?:[:/]|$)",
                            re.IGNORECASE)


#: The kept bytes of a skill's file, by path relative to the corpus root (None: none kept).
Read = Callable[[str], "bytes | None"]


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


def file_flags(skill: SiteSkill, read: Read) -> list[Flag]:
    """The flags that come from the skill's files, ordered by kind, file and line."""
    flags = list(_scripts(skill, read))
    flags += _network(skill, read)
    flags += _tools(skill, read)
    return _sorted(flags)


def problem_flags(skill: SiteSkill, security: frozenset[str]) -> list[Flag]:
    """A flag for each of the skill's problems from a security rule."""
    return _sorted([Flag("security", p.rule, p.path, p.line, p.message)
                    for p in skill.problems if p.rule in security])


#: Characters a skill name may hold without meaning anything to a shell or a terminal.
_PLAIN_NAME = re.compile(r"^[A-Za-z0-9 ._:+-]+$")


def name_flags(skill: SiteSkill) -> list[Flag]:
    """A flag when the skill's name holds characters that mean something to a shell or
    a terminal (``$( )``, quotes, ``;``, control characters): someone pasting a command
    with it should look first."""
    if _PLAIN_NAME.match(skill.name):
        return []
    odd = sorted({c for c in skill.name if not _PLAIN_NAME.match(c)})
    shown = " ".join(repr(c) for c in odd[:10])
    return [Flag("security", "name-shell-characters", skill.path, 1,
                 f"the name holds characters a shell or terminal interprets: {shown}")]


def _sorted(flags: list[Flag]) -> list[Flag]:
    return sorted(set(flags), key=lambda f: (f.kind, f.path, f.line, f.rule, f.detail))


def _scripts(skill: SiteSkill, read: Read) -> Iterator[Flag]:
    for path in skill.files:
        inside = path[len(skill.folder) + 1:] if skill.folder else path
        if inside.startswith("scripts/") or path.lower().endswith(SCRIPT_SUFFIXES):
            yield Flag("scripts", "scripts-present", path, 1, f"script file {inside}")
    entry = skill.metadata.get("entry")
    if skill.format == "skill-json" and isinstance(entry, str):
        yield Flag("scripts", "scripts-present", skill.path, _line_of(skill, "entry", read),
                   f"runs {entry}")


def _network(skill: SiteSkill, read: Read) -> Iterator[Flag]:
    for path in [skill.path, *skill.files]:
        for number, line in _lines(read, path):
            for found in _ENDPOINT.finditer(line):
                url = found.group(0).rstrip(".,;:")
                if not _EXAMPLE_HOSTS.search(url):
                    yield Flag("network", "network-endpoint", path, number, url[:200])


def _tools(skill: SiteSkill, read: Read) -> Iterator[Flag]:
    tools = skill.metadata.get("allowed-tools")
    if tools is None:
        return
    names = tools.split() if isinstance(tools, str) else [str(t) for t in tools] \
        if isinstance(tools, list) else [str(tools)]
    line = _line_of(skill, "allowed-tools", read)
    yield Flag("allowed-tools", "allowed-tools", skill.path, line,
               "allowed-tools: " + " ".join(names)[:300])
    if any(name.strip(",") in ("Bash", "Bash(*)", "Bash(*:*)") for name in names):
        yield Flag("unrestricted-bash", "unrestricted-bash", skill.path, line,
                   "Bash is allowed without a command pattern")


def _line_of(skill: SiteSkill, key: str, read: Read | None = None) -> int:
    if read is not None:
        for number, line in _lines(read, skill.path):
            if (_ALLOWED_TOOLS.match(line) if key == "allowed-tools"
                    else f'"{key}"' in line):
                return number
    return 1


def _lines(read: Read, path: str) -> Iterator[tuple[int, str]]:
    """Numbered lines of the kept bytes of a skill's file, unless binary."""
    data = read(path)
    if data is None:
        return
    data = data[:MAX_SCAN]
    if b"\x00" in data[:8192]:
        return
    yield from enumerate(data.decode("utf-8", "replace").splitlines(), 1)
