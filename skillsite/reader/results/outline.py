"""What ``open`` returns: a skill's metadata and outline."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from skillsite.reader.results.base import Result


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
    #: Unique in its library: ``[<collection>/][<plugin>:]<name>``; open and read take it.
    id: str
    #: The skill's bare name: its id without collection and plugin.
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
    plugin: str = ""
    collection: str = ""
    #: The lint errors of the skill's own file (a skill with errors is still published).
    errors: tuple[Warning, ...] = ()
    #: Ids of skills with byte-identical content (the same sha256).
    copies: tuple[str, ...] = ()
    #: The file at the build's commit on its forge, when the corpus is a git work tree.
    source_url: str | None = None
    #: ISO 8601 time of the last commit that changed the file (git), else its mtime.
    changed: str | None = None
    #: The build's trust assessment: ``{"level": "none" | "review" | "high", "summary",
    #: "reasons": [{"rule", "path", "line", ...}], "capabilities": {...}}``.
    trust: dict[str, Any] | None = None
    #: The library the skill is in ("" when the Library reads one plain dist/); its ref
    #: then carries the library as a prefix: ``@<library>/<id>``.
    library: str = ""
