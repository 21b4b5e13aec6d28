"""What the reader returns: frozen dataclasses, each with ``to_dict()`` for JSON.

These shapes are a public contract, documented in ``docs/reader.md``; the MCP server
returns the same dictionaries. New fields may be added; a field never changes meaning.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any


class Result:
    """``to_dict()`` for the dataclasses below: nested results and tuples become plain
    dictionaries and lists, in field order."""

    def to_dict(self) -> dict[str, Any]:
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}  # type: ignore[arg-type]


def _plain(value: Any) -> Any:
    if isinstance(value, Result):
        return value.to_dict()
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


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
    artifact_version: str
    skillsite_version: str
    build_time: str
    index_backend: str
    safe: bool
    budgets: dict[str, Any]
    hint: str


@dataclass(frozen=True)
class Candidate(Result):
    """One search or recommend hit: compact, never a body."""

    ref: str
    name: str
    title: str
    description: str        # one line, at most DESCRIPTION_CHARS
    format: str
    tags: tuple[str, ...]
    score: float
    matched: tuple[str, ...]  # the fields the query matched, e.g. ("name", "body")


@dataclass(frozen=True)
class SearchResult(Result):
    """What ``search`` and ``recommend`` return."""

    query: str
    limit: int
    browse: bool            # an empty query lists skills A-Z
    results: tuple[Candidate, ...]


@dataclass(frozen=True)
class Heading(Result):
    """One section of a skill, as ``open`` lists it."""

    index: int              # 0-based; ``read(ref, section=index)`` reads it
    heading: str            # "" for text before the first heading
    level: int
    start_line: int
    end_line: int
    chars: int


@dataclass(frozen=True)
class Warning(Result):
    """A lint warning of the skill's own file."""

    line: int
    column: int
    rule: str
    message: str


@dataclass(frozen=True)
class SkillInfo(Result):
    """A skill's metadata and outline (:meth:`Library.open`): no body."""

    ref: str
    name: str
    title: str
    description: str
    format: str
    path: str | None        # relative to the corpus root; None in safe mode
    version: str | None
    tags: tuple[str, ...]
    intents: tuple[str, ...]
    applies_to: tuple[str, ...]
    compatibility: str
    risk: str | None
    depends_on: tuple[str, ...]
    headings: tuple[Heading, ...]
    links: tuple[str, ...]
    files: tuple[str, ...]  # supporting files, relative to the skill's folder
    warnings: tuple[Warning, ...]
    chars: int              # of the whole body
    lines: int


@dataclass(frozen=True)
class Passage(Result):
    """Text read from a skill (:meth:`Library.read`)."""

    ref: str
    name: str
    section: str | None
    start_line: int
    end_line: int
    text: str
    chars: int
    truncated: bool
    cursor: str | None      # pass it back to read on; None when nothing is left


@dataclass(frozen=True)
class Neighbour(Result):
    """A skill related to another, with the reasons why."""

    ref: str
    name: str
    title: str
    description: str
    reasons: tuple[str, ...]  # "links to", "linked from", "depends on", "shared tag: x"...
    score: float


@dataclass(frozen=True)
class Related(Result):
    """What ``related`` returns."""

    ref: str
    name: str
    results: tuple[Neighbour, ...]


@dataclass(frozen=True)
class Compact(Result):
    """A skill in a few fields, as ``compose`` lists its prerequisites."""

    ref: str
    name: str
    title: str
    description: str
    format: str
    tags: tuple[str, ...]


@dataclass(frozen=True)
class Composition(Result):
    """What ``compose`` returns: one level of prerequisites."""

    ref: str
    name: str
    depends_on: tuple[Compact, ...]   # in the skill's declared order, one level deep
    unresolved: tuple[str, ...]       # declared dependencies that are not in dist/
    truncated: bool                   # more dependencies than ``limit``


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
