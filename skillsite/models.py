"""Plain data that flows through the pipeline: sources, documents and problems."""
from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ERROR = "error"
WARNING = "warning"
#: Rules whose finding keeps a skill out of ``dist/`` whatever the configuration:
#: publishing the skill would publish what the rule found (a credential).
WITHHOLDING_RULES = frozenset({"embedded-credential"})


@dataclass(frozen=True, init=False)
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
    #: ``os.path.abspath(os.path.dirname(path))`` when discovery knows it without working
    #: it out (it walked an absolute, normalized root); None otherwise.
    folder: str | None = field(default=None, compare=False, repr=False)

    def __init__(self, path: Path, root: Path, kind: str, tree: Any = None,
                 folder: str | None = None) -> None:
        # One per file found: the fields go straight into the instance's dict (the frozen
        # dataclass's own __init__ sets each through object.__setattr__, 3x the time).
        fields = self.__dict__
        fields["path"], fields["root"], fields["kind"] = path, root, kind
        fields["tree"], fields["folder"] = tree, folder


@dataclass(frozen=True, order=True)
class Problem:
    """One finding, located at a 1-based line and column of ``path``."""

    path: str
    line: int
    column: int
    rule: str
    severity: str
    message: str

    def __reduce__(self) -> tuple[type[Problem], tuple[str, int, int, str, str, str]]:
        # A pooled check's workers send problems back by the thousand: its fields as a
        # tuple unpickle about three times faster than a new object and its __dict__.
        return Problem, (self.path, self.line, self.column, self.rule, self.severity,
                         self.message)

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
#: What :meth:`Document.memo` finds for a key not computed yet (None may be a value).
_UNSET: Any = object()


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
    #: The bytes that were parsed (and hashed as ``sha256``): what the build keeps and
    #: publishes of the file, so that a change after linting never reaches ``dist/``.
    raw: bytes = field(default=b"", repr=False, compare=False)
    #: Whether ``raw`` holds what was read of the file (else it could not be read).
    was_read: bool = field(default=False, repr=False, compare=False)
    #: Values several rules derive from the document, computed once (see ``memo``).
    derived: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def memo(self, key: str, compute: Any) -> Any:
        """``compute()``, computed once per document and remembered under ``key``."""
        # Not try/except KeyError: half the calls are a document's first (a raised
        # KeyError costs about four lookups).
        found = self.derived.get(key, _UNSET)
        if found is _UNSET:
            found = self.derived[key] = compute()
        return found

    @property
    def sha256(self) -> str:
        """The sha256 of ``raw`` ("" when the file could not be read), worked out when
        first asked: the build keeps it, a check never asks."""
        if not self.was_read:
            return ""
        found: str | None = self.derived.get("sha256")
        if found is None:
            found = self.derived["sha256"] = hashlib.sha256(self.raw).hexdigest()
        return found

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
    #: Each skill's trust assessment (``skillsite.linter.trust``), by its display path.
    trust: dict[str, dict[str, Any]] = field(default_factory=dict)

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
