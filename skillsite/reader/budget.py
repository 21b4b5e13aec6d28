"""How much one client is served: at most N distinct skills loaded and M characters.

Off unless asked for (``Library(budget=...)``, ``skillsite mcp --max-skills``): a
standalone server keeps its own retrieval settings. ``Budget()`` is Mini-A's bound of an
agent run (docs/formats.md, Mini-A budgets), 3 skills and 12,000 characters, for a runtime
that bounds its runs the same way. Each client has its own
(:mod:`skillsite.reader.clients`): the MCP server keeps one per MCP session. ``None``
turns a limit off.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

from skillsite.reader.errors import ReaderError

DEFAULT_MAX_SKILLS = 3
DEFAULT_MAX_CHARS = 12_000


@dataclass
class Budget:
    """The skill and character budgets of one client, under a lock (``Budget()``:
    Mini-A's per-run bound)."""

    max_skills: int | None = DEFAULT_MAX_SKILLS
    max_chars: int | None = DEFAULT_MAX_CHARS

    def __post_init__(self) -> None:
        self.loaded: list[str] = []
        self.served = 0
        self._lock = threading.Lock()

    def allowance(self, name: str, wanted: int) -> int:
        """How many characters of skill ``name`` may be served now (at most ``wanted``);
        fails with ``budget-exceeded`` when the skill or character budget is spent."""
        with self._lock:
            if (self.max_skills is not None and name not in self.loaded
                    and len(self.loaded) >= self.max_skills):
                raise ReaderError(
                    "budget-exceeded",
                    f"this session has already loaded {len(self.loaded)} skills "
                    f"({', '.join(self.loaded)}), its budget; read more of those, or start "
                    "a new session", budget="skills", used=len(self.loaded),
                    limit=self.max_skills)
            if self.max_chars is None:
                return wanted
            left = self.max_chars - self.served
            if left <= 0:
                raise ReaderError(
                    "budget-exceeded",
                    f"this session has already served {self.served} characters, its budget "
                    f"of {self.max_chars}; start a new session",
                    budget="characters", used=self.served, limit=self.max_chars)
            return min(wanted, left)

    def charge(self, name: str, chars: int) -> None:
        with self._lock:
            if name not in self.loaded:
                self.loaded.append(name)
            self.served += chars

    def to_dict(self) -> dict[str, object]:
        with self._lock:
            return {"max_skills": self.max_skills, "max_chars": self.max_chars,
                    "skills_loaded": list(self.loaded), "chars_served": self.served}
