"""Safe mode, for untrusted clients, after Mini-A's ``mcp-skills-safe``.

- Refs are opaque, single-use and expire: every call consumes the ref it was given and
  returns fresh refs for the next step. A skill's name is not accepted as a ref.
- Searches, reads and characters are budgeted per time window; going over fails with
  ``restricted-budget-exhausted`` and ``retry_after_seconds``.
- Wildcard, too-short and termless queries fail with ``restricted-query-rejected``.
- No raw path and no full body: results carry no paths, and a read is one section or a
  line range, capped in lines and characters.

The ledger's state is one client's (see :mod:`skillsite.reader.client_budgets`), so its counts
and refs are that client's alone: a ref issued to one client is unknown to every other.
It is kept in a store (:mod:`skillsite.reader.shared`): in memory, or in Redis for
replicas that share it. A read also spends the client's budget
(:mod:`skillsite.reader.budget`), which the same state keeps: the window and the budget
are spent in one step (:meth:`SafeLedger.charge`), so a read the budget refuses counts
nothing in the window.
"""
from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING

from skillsite.reader.errors import ReaderError
from skillsite.reader.shared import (
    MAX_LIVE_REFS,
    ClientState,
    MemoryClient,
    Refusal,
    WindowLimits,
    WindowUsage,
    unavailable,
)

if TYPE_CHECKING:
    from skillsite.reader.budget import Budget

__all__ = ["MAX_LIVE_REFS", "SafeLedger", "SafePolicy"]
_WILDCARD = re.compile(r"[*?]{2,}|\*|^\.+$")
_WORDY = re.compile(r"[^\W_]", re.UNICODE)


@dataclass(frozen=True)
class SafePolicy:
    """Limits of safe mode; the defaults sit between Mini-A's tight and moderate
    profiles."""

    search_limit: int = 5
    min_query_chars: int = 4
    meta_chars: int = 300
    read_lines: int = 40
    read_chars: int = 6000
    ref_ttl: int = 300            # seconds
    max_searches: int = 30
    max_reads: int = 15
    max_chars: int = 60_000
    window: int = 3600            # seconds


class SafeLedger:
    """Issues and consumes opaque refs and keeps the per-window counts of one client, in
    ``state`` (a fresh one in memory by default).

    A ledger made with :meth:`for_call` serves one call: the refs it issues wait in it
    until the call's window spend keeps them with the count (one step, as a store in
    Redis wants), or until :meth:`flush`."""

    def __init__(self, policy: SafePolicy | None = None,
                 state: ClientState | None = None) -> None:
        self.policy = policy or SafePolicy()
        self.state = state or MemoryClient()
        self.limits = WindowLimits(self.policy.max_searches, self.policy.max_reads,
                                   self.policy.max_chars, self.policy.window)
        self._pending: dict[str, str] | None = None  # None: refs are kept when issued

    def for_call(self) -> SafeLedger:
        """This client's ledger for one call, which keeps its refs together."""
        ledger = SafeLedger(self.policy, self.state)
        ledger._pending = {}
        return ledger

    def issue(self, name: str) -> str:
        """A fresh single-use ref to skill ``name``."""
        ref = "r-" + secrets.token_urlsafe(18)
        if self._pending is None:
            self.state.add_refs({ref: name}, self.policy.ref_ttl)
        else:
            self._pending[ref] = name
        return ref

    def flush(self) -> None:
        """Keep the refs this call issued since its last spend."""
        if self._pending:
            refs, self._pending = self._pending, {}
            self.state.add_refs(refs, self.policy.ref_ttl)

    def consume(self, ref: object) -> str:
        """The skill ``ref`` points to; the ref is spent, whether or not it was valid."""
        name = None
        if isinstance(ref, str) and len(ref) < 100:
            # a ref this call issued and has not kept yet (a program's later call in the
            # same Library.client block)
            pending = self._pending.pop(ref, None) if self._pending else None
            name = pending or self.state.take_ref(ref)
        if name is None:
            raise ReaderError("invalid-or-expired-reference",
                              "this reference is unknown, already used or expired; safe mode "
                              "refs are single-use: use the fresh ref from the last result, or "
                              "search again")
        return name

    def check_query(self, query: str) -> None:
        text = query.strip()
        if (len(text) < self.policy.min_query_chars or not _WORDY.search(text)
                or _WILDCARD.search(text)):
            raise ReaderError("restricted-query-rejected",
                              f"safe mode rejects wildcard queries and queries shorter than "
                              f"{self.policy.min_query_chars} characters; describe the task "
                              "in words")

    def charge(self, operation: str, chars: int = 0, *, budget: Budget | None = None,
               skill: str = "") -> None:
        """Count one ``search`` or ``read`` (and the characters it serves), or fail; the
        refs this call issued are kept with the count, or dropped with a refusal.

        With ``budget`` (kept in this ledger's state), the characters of ``skill`` are
        counted in it in the same step: both are counted or neither, so a read the budget
        refuses is not counted in the window. The window's limits are checked first, then
        the budget's: the error is the one the first limit in the way gives."""
        refs = self._pending or {}
        if self._pending is not None:
            self._pending = {}
        if budget is None:
            refusal = self.state.spend_window(operation, chars, self.limits, refs,
                                              self.policy.ref_ttl)
        elif budget.state is not self.state:
            raise ValueError("a window and a budget are spent in one step only when one "
                             "state keeps both")
        else:
            refusal = self.state.spend_window_and_budget(
                operation, chars, self.limits, refs, self.policy.ref_ttl, skill=skill,
                max_skills=budget.max_skills, max_chars=budget.max_chars)
        if refusal is None:
            return
        if budget is not None and refusal.of == "budget":
            raise budget.exceeded(refusal)
        raise self._exhausted(operation, refusal)

    def _exhausted(self, operation: str, refusal: Refusal) -> ReaderError:
        return ReaderError(
            "restricted-budget-exhausted",
            f"safe mode {refusal.budget} budget exhausted for {operation} ({refusal.used}/"
            f"{refusal.limit} per {self.policy.window} seconds); wait {refusal.retry_after} "
            "seconds before retrying, and avoid parallel fallback requests",
            operation=operation, budget=refusal.budget, used=refusal.used,
            limit=refusal.limit, window_seconds=self.policy.window,
            retry_after_seconds=refusal.retry_after)

    def usage(self) -> WindowUsage:
        return self.state.window(self.limits)

    @property
    def searches(self) -> int:
        return self.usage().searches

    @property
    def reads(self) -> int:
        return self.usage().reads

    @property
    def chars(self) -> int:
        return self.usage().chars

    @property
    def cursor_key(self) -> bytes:
        """Signs this client's read cursors: a cursor is a grant, like a ref, so one
        rewritten (to a whole body, or to more lines) or from another client is refused."""
        return self.state.cursor_key()

    def to_dict(self) -> dict[str, object]:
        try:
            usage = self.usage()
        except ReaderError as error:
            return unavailable(error, window_seconds=self.policy.window)
        return {"searches": [usage.searches, self.policy.max_searches],
                "reads": [usage.reads, self.policy.max_reads],
                "chars": [usage.chars, self.policy.max_chars],
                "window_seconds": self.policy.window}
