"""Plain data that flows through the pipeline: sources, documents and problems."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ERROR = "error"
WARNING = "warning"

#: The four formats skillsite reads, by the name used in output and in the catalog.
FORMATS = ("skill-md", "skill-toml", "skill-json", "virtual")

SECTION_SEPARATOR = "\n\n"  # between sections in a skill's body


@dataclass(frozen=True)
class Source:
    """One file found by discovery.

    ``path`` is the file as found (never resolved through a symlink), ``root`` the corpus
    root it was found under, and ``kind`` one of :data:`FORMATS`.
    """

    path: Path
    root: Path
    kind: str
    #: The folders of a ``SKILL.md``'s skill as discovery listed them (a
    #: ``linter.skilltree.Tree``), so that the bundle walk need not list them again;
    #: None when discovery did not list them (then the walk does).
    tree: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, order=True)
class Problem:
    """One finding, located at a 1-based line and column of ``path``."""

    path: str
    line: int
    column: int
    rule: str
    severity: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "rule": self.rule,
            "severity": self.severity,
            "message": self.message,
        }


Position = tuple[int, int]


@dataclass(frozen=True)
class Issue:
    """A problem met while reading a file, before it has a path and a severity."""

    rule: str
    line: int
    column: int
    message: str


@dataclass
class Document:
    """A parsed skill: its data, its body, and where each value came from.

    ``positions`` maps a JSON pointer (``""`` for the whole mapping, ``"/name"``,
    ``"/tools/0/class"``) to the 1-based (line, column) of that value; ``key_positions``
    does the same for the key that introduces it. ``body_line`` is the line the
    Markdown body starts on.
    """

    source: Source
    data: dict[str, Any] | None
    body: str = ""
    body_line: int = 1
    positions: dict[str, Position] = field(default_factory=dict)
    key_positions: dict[str, Position] = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)
    sha256: str = ""
    #: Values several rules derive from the document, computed once (see ``memo``).
    derived: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def memo(self, key: str, compute: Any) -> Any:
        """``compute()``, computed once per document and remembered under ``key``."""
        if key not in self.derived:
            self.derived[key] = compute()
        return self.derived[key]

    def where(self, pointer: str) -> Position:
        """Best location for ``pointer``: the value, else its key, else its nearest parent."""
        while True:
            if pointer in self.positions:
                return self.positions[pointer]
            if pointer in self.key_positions:
                return self.key_positions[pointer]
            if not pointer:
                return (1, 1)
            pointer = pointer.rsplit("/", 1)[0]

    def key_where(self, pointer: str) -> Position:
        """Location of the key that introduces ``pointer`` (falls back to :meth:`where`)."""
        return self.key_positions.get(pointer) or self.where(pointer)


@dataclass
class CheckResult:
    """Everything ``skillsite check`` found."""

    problems: list[Problem]
    files: int
    skills: int

    @property
    def errors(self) -> int:
        return sum(1 for p in self.problems if p.severity == ERROR)

    @property
    def warnings(self) -> int:
        return sum(1 for p in self.problems if p.severity == WARNING)

    @property
    def success(self) -> bool:
        return self.errors == 0

    def summary(self) -> dict[str, int]:
        return {"files": self.files, "skills": self.skills,
                "errors": self.errors, "warnings": self.warnings}


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

    @property
    def headings(self) -> tuple[str, ...]:
        return tuple(s.heading for s in self.sections if s.heading)

    @property
    def body(self) -> str:
        return SECTION_SEPARATOR.join(s.text for s in self.sections)


@dataclass(frozen=True)
class IndexDoc:
    """What the index knows of one skill; ``name`` is its unique key."""

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


class PhaseClock:
    """Seconds spent per phase of a build or of its site stage, for ``build -v`` and the
    benchmarks."""

    def __init__(self) -> None:
        self.timings: dict[str, float] = {}
        self.last = time.monotonic()

    def lap(self, phase: str) -> None:
        now = time.monotonic()
        self.timings[phase] = round(now - self.last, 3)
        self.last = now
