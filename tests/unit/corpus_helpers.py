"""Helpers for the unit tests: write a small corpus into ``tmp_path`` and lint it.

A corpus is a dict from a path (relative to the corpus root) to the file's content: text
(written byte for byte, so ``\\r\\n`` survives), bytes, or a :class:`Link` for a symlink.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import skillsite
from skillsite.config import Config
from skillsite.models import CheckResult


@dataclass(frozen=True)
class Link:
    """A symlink to ``target`` (relative to the link's folder, or absolute)."""

    target: str


@dataclass(frozen=True)
class Fifo:
    """A named pipe: a path that looks like a skill but is not a regular file."""


Content = str | bytes | Link | Fifo
Found = tuple[str, int, int, str]


def write(root: Path, files: Mapping[str, Content]) -> Path:
    """Create ``files`` under ``root``; returns ``root``."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Link):
            os.symlink(content.target, path)
        elif isinstance(content, Fifo):
            os.mkfifo(path)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            with open(path, "w", encoding="utf-8", newline="") as handle:
                handle.write(content)
    return root


def skill_md(name: str, fields: str = "", body: str = "Fill in PDF forms.\n", *,
             description: str = "Fills PDF forms. Use when a form must be filled.") -> str:
    """A SKILL.md: ``name`` on line 2, ``description`` on line 3, ``fields`` from line 4."""
    return f"---\nname: {name}\ndescription: {description}\n{fields}---\n{body}"


def page(name: str, fields: str = "", body: str = "# Page\n\nText.\n") -> str:
    """A Mini-A skill page: ``type`` on line 2, ``name`` on line 3, ``fields`` from line 4."""
    return f"---\ntype: skill\nname: {name}\n{fields}---\n{body}"


def toml(name: str = "annotate", fields: str = "", *, skill_type: str = "knowledge") -> str:
    """An oxo-flow manifest with the four required keys on lines 1-4, ``fields`` from line 5."""
    return (f'name = "{name}"\nversion = "1.0.0"\ndescription = "Annotates variants."\n'
            f'skill_type = "{skill_type}"\n{fields}')


def check(root: Path, *, config: Config | None = None,
          paths: list[str] | None = None) -> CheckResult:
    """``skillsite.check`` over ``root`` (or ``paths`` under it), paths shown relative to it."""
    targets = [root / p for p in paths] if paths is not None else [root]
    return skillsite.check(targets, base=root, config=config, jobs=1)


def found(result: CheckResult) -> list[Found]:
    """The problems as ``(path, line, column, rule)``, in report order."""
    return [(p.path, p.line, p.column, p.rule) for p in result.problems]


def lint(root: Path, files: Mapping[str, Content], *, config: Config | None = None,
         paths: list[str] | None = None) -> list[Found]:
    """Write ``files`` under ``root``, check it, and return :func:`found`."""
    return found(check(write(root, files), config=config, paths=paths))
