"""What ``context``, ``prompt``, ``names`` and ``skill_files`` return."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from skillsite.reader.results.base import Result


@dataclass(frozen=True)
class TagCount(Result):
    """A tag and how many skills carry it."""

    tag: str
    count: int


@dataclass(frozen=True)
class Context(Result):
    """What ``dist/`` holds, and how to query it (:meth:`Library.context`)."""

    skills: int
    formats: dict[str, int]
    tags: tuple[TagCount, ...]
    tags_total: int
    #: Over several libraries: the value the libraries that serve share, else their
    #: distinct values joined by ", " (each one's own is in ``libraries``).
    artifact_version: str
    skillsite_version: str
    #: ISO 8601; over several libraries the newest of their builds.
    build_time: str
    index_backend: str
    safe: bool
    budgets: dict[str, Any]
    hint: str
    #: Claude Code plugins and collections: name, skills, and what their manifests say.
    plugins: tuple[dict[str, Any], ...] = ()
    collections: tuple[dict[str, Any], ...] = ()
    #: This client's calls per operation and characters of skill text served (counts
    #: only, never what was asked or read).
    retrieval: dict[str, Any] = field(default_factory=dict)
    #: With several libraries: each one's ``library``, ``skills``, ``formats``,
    #: ``artifact_version``, ``skillsite_version``, ``build_time`` and ``index_backend``
    #: (its own), or, for one refused,
    #: its error JSON (``{"error", "message", "library"}``); the figures above are the sum
    #: of those that serve. Empty for a Library over one plain dist/.
    libraries: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Prompt(Result):
    """What ``prompt`` returns."""

    style: str
    text: str
    chars: int
    skills: tuple[str, ...]           # included, in order
    omitted: tuple[str, ...]          # left out to stay within ``max_chars``


@dataclass(frozen=True)
class FileInfo(Result):
    """One file of a skill, as ``skill_files`` lists it."""

    path: str                          # relative to the skill's folder
    size: int
    sha256: str | None
    stored: bool                       # False: over the size cap, listed but not kept
    generated: bool = False            # a SKILL.md view made for another format


@dataclass(frozen=True)
class NamePage(Result):
    """One page of skill names, A-Z (:meth:`Library.names`)."""

    names: tuple[str, ...]
    total: int
    cursor: str | None      # pass it back for the next page; None on the last one
