"""The shapes a build writes and the reader reads back: skill entries, their sections,
and what the index knows of a skill.

Kept apart from :mod:`skillsite.models` (the linter's sources, documents and problems)
so that a query never creates the linter's dataclasses: about a millisecond each here.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from skillsite.formats import FORMATS, RISKS, Format, Risk  # noqa: F401  (re-exported)

SECTION_SEPARATOR = "\n\n"  # between sections in a skill's body


@dataclass(frozen=True)
class Section:
    """One part of a skill's body, from a heading to the next of its level or above;
    line numbers are 1-based lines of the skill's file."""

    heading: str
    level: int
    start_line: int
    end_line: int
    text: str


@dataclass(frozen=True)
class SkillEntry:
    """One skill in the shape every artifact (catalog, graph, content, index, site) is
    written from."""

    name: str
    description: str
    format: str
    path: str                      # the skill's file, relative to the corpus root
    sha256: str                    # of the skill's file
    tags: tuple[str, ...] = ()
    version: str | None = None
    depends_on: tuple[str, ...] = ()
    title: str = ""
    intents: tuple[str, ...] = ()
    applies_to: tuple[str, ...] = ()
    compatibility: str = ""
    sections: tuple[Section, ...] = ()
    files: tuple[str, ...] = ()    # supporting files, relative to the corpus root
    links: tuple[str, ...] = ()    # local link targets inside the corpus, relative to it
    metadata: dict[str, Any] = field(default_factory=dict)
    #: What a client invokes it by and every artifact keys it by: ``[<collection>/]
    #: [<plugin>:]<name>`` (see ``skillsite.linter.namespaces``); the name when empty.
    id: str = ""
    collection: str = ""
    plugin: str = ""

    @property
    def key(self) -> str:
        """The skill's id: unique in a ``dist/``."""
        return self.id or self.name

    @property
    def headings(self) -> tuple[str, ...]:
        return tuple(s.heading for s in self.sections if s.heading)

    @property
    def body(self) -> str:
        return SECTION_SEPARATOR.join(s.text for s in self.sections)


@dataclass(frozen=True)
class IndexDoc:
    """What the index knows of one skill; ``name`` is its unique key (the skill's id)."""

    name: str
    title: str = ""
    description: str = ""
    tags: tuple[str, ...] = ()
    intents: tuple[str, ...] = ()
    applies_to: tuple[str, ...] = ()
    compatibility: str = ""
    headings: tuple[str, ...] = ()
    body: str = ""
    #: The skill's ranking record, when the content store keeps one: ranking reads it
    #: instead of tokenizing the fields again (see ``skillsite.index.ranking_record``).
    terms: str = ""
