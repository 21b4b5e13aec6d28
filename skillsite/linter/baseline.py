"""A baseline: the problems a corpus already had, so that only new ones are reported.

A problem is matched by its rule, its file and a fingerprint of the *content* of its line
(white space ignored), never by its line number: editing lines above a finding does not
revive it, and changing the line itself does. Identical findings are counted, so a second
copy of a baselined problem is new. The file is JSON::

    {"version": 1, "problems": [{"rule": "...", "path": "...", "fingerprint": "...",
                                 "message": "..."}]}
"""
from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from skillsite.errors import ConfigError
from skillsite.models import Problem

VERSION = 1
Key = tuple[str, str, str]


class _Lines:
    """The lines of each file, read once."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.files: dict[str, list[str]] = {}

    def line(self, path: str, number: int) -> str:
        if path not in self.files:
            try:
                text = (self.base / path).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            self.files[path] = text.replace("\r\n", "\n").split("\n")
        lines = self.files[path]
        return lines[number - 1] if 0 < number <= len(lines) else ""


def fingerprint(rule: str, line: str) -> str:
    content = " ".join(line.split())
    return hashlib.sha256(f"{rule}\0{content}".encode()).hexdigest()[:16]


def _keys(problems: Iterable[Problem], base: Path) -> list[tuple[Key, Problem]]:
    lines = _Lines(base)
    return [((p.rule, p.path, fingerprint(p.rule, lines.line(p.path, p.line))), p)
            for p in problems]


def write(path: Path, problems: list[Problem], base: Path) -> None:
    """Write the baseline of ``problems`` (paths relative to ``base``) to ``path``."""
    entries = [{"rule": key[0], "path": key[1], "fingerprint": key[2], "message": p.message}
               for key, p in _keys(problems, base)]
    tmp = path.with_name(path.name + f".tmp-{os.getpid()}")
    tmp.write_text(json.dumps({"version": VERSION, "problems": entries}, indent=1) + "\n",
                   encoding="utf-8")
    os.replace(tmp, path)


def read(path: Path) -> Counter[Key]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != VERSION:
            raise ValueError(data.get("version"))
        return Counter((e["rule"], e["path"], e["fingerprint"]) for e in data["problems"])
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        raise ConfigError(f"baseline {path} is not a skillsite baseline; delete it to "
                          "write a new one") from None


def new_problems(problems: list[Problem], known: Counter[Key], base: Path
                 ) -> tuple[list[Problem], int]:
    """The problems not in the baseline ``known``, and how many baselined ones are gone."""
    left = Counter(known)
    new = []
    for key, problem in _keys(problems, base):
        if left[key] > 0:
            left[key] -= 1
        else:
            new.append(problem)
    return new, sum(left.values())
