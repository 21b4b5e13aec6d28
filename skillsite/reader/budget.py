"""How much one client is served: at most N distinct skills loaded and M characters.

Off unless asked for (``Library(budget=...)``, ``skillsite mcp --max-skills``): a
standalone server keeps its own retrieval settings. ``Budget()`` is Mini-A's bound of an
agent run (docs/formats.md, Mini-A budgets), 3 skills and 12,000 characters, for a runtime
that bounds its runs the same way. Each client has its own
(:mod:`skillsite.reader.client_budgets`): the MCP server keeps one per MCP session. ``None``
turns a limit off.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from skillsite.reader.errors import ReaderError
from skillsite.reader.shared import ClientState, MemoryClient, Refusal, budget_refusal, unavailable

DEFAULT_MAX_SKILLS = 3
DEFAULT_MAX_CHARS = 12_000

#: How a client gets a fresh budget. A sessionless server (``--shared``) knows its client
#: by a hash of its token or header, whose budgets are dropped once unused that long.
RENEW = ("start a new session, or on a sessionless --shared server (no sessions), wait "
         "until this client's budgets are dropped, an hour after its last call")


@dataclass
class Budget:
    """The skill and character budgets of one client (``Budget()``: Mini-A's per-run
    bound), kept in ``state`` (a fresh one in memory by default; see
    :mod:`skillsite.reader.shared`)."""

    max_skills: int | None = DEFAULT_MAX_SKILLS
    max_chars: int | None = DEFAULT_MAX_CHARS
    state: ClientState = field(default_factory=MemoryClient, repr=False, compare=False)

    @property
    def limited(self) -> bool:
        return self.max_skills is not None or self.max_chars is not None

    @property
    def loaded(self) -> list[str]:
        return list(self.state.served().loaded)

    @property
    def served(self) -> int:
        return self.state.served().chars

    def allowance(self, name: str, wanted: int) -> int:
        """How many characters of skill ``name`` may be served now (at most ``wanted``);
        fails with ``budget-exceeded`` when the skill or character budget is spent."""
        if not self.limited:
            return wanted
        served = self.state.served()
        # at least one more character of it
        refusal = budget_refusal(served, name, 1, self.max_skills, self.max_chars)
        if refusal is not None:
            raise self.exceeded(refusal)
        return wanted if self.max_chars is None else min(wanted, self.max_chars - served.chars)

    def charge(self, name: str, chars: int) -> None:
        """Count ``chars`` characters of skill ``name`` served, or fail with
        ``budget-exceeded`` when they no longer fit (another call of this client, on
        another replica, spent the room meanwhile)."""
        refusal = self.state.spend_budget(name, chars, self.max_skills, self.max_chars)
        if refusal is not None:
            raise self.exceeded(refusal)

    def exceeded(self, refusal: Refusal) -> ReaderError:
        """The ``budget-exceeded`` error of a refusal of this budget's limits."""
        if refusal.budget == "skills":
            return ReaderError(
                "budget-exceeded",
                f"this client has already loaded {refusal.used} skills "
                f"({', '.join(refusal.loaded)}), its budget; read more of those, or {RENEW}",
                budget="skills", used=refusal.used, limit=refusal.limit)
        return ReaderError(
            "budget-exceeded",
            f"this client has already been served {refusal.used} characters, its budget "
            f"of {refusal.limit}; {RENEW}",
            budget="characters", used=refusal.used, limit=refusal.limit)

    def to_dict(self) -> dict[str, object]:
        limits = {"max_skills": self.max_skills, "max_chars": self.max_chars}
        try:
            served = self.state.served()
        except ReaderError as error:
            return unavailable(error, **limits)
        return {**limits, "skills_loaded": list(served.loaded), "chars_served": served.chars}

