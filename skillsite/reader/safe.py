"""Safe mode, for untrusted clients, after Mini-A's ``mcp-skills-safe``.

- Refs are opaque, single-use and expire: every call consumes the ref it was given and
  returns fresh refs for the next step. A skill's name is not accepted as a ref.
- Searches, reads and characters are budgeted per time window; going over fails with
  ``restricted-budget-exhausted`` and ``retry_after_seconds``.
- Wildcard, too-short and termless queries fail with ``restricted-query-rejected``.
- No raw path and no full body: results carry no paths, and a read is one section or a
  line range, capped in lines and characters.

The ledger lives in memory, under a lock: one per client (see
:mod:`skillsite.reader.clients`), so its counts and refs are that client's alone; a ref
issued to one client is unknown to every other.
"""
from __future__ import annotations

import re
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Callable

from skillsite.reader.errors import ReaderError

_WILDCARD = re.compile(r"[*?]{2,}|\*|^\.+$")
_WORDY = re.compile(r"[^\W_]", re.UNICODE)
#: Live refs kept per client (the oldest go first): about 130 KB at most, so that a
#: Library's full ledger of clients stays in the tens of megabytes.
MAX_LIVE_REFS = 512


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
    """Issues and consumes opaque refs and keeps the per-window counts."""

    def __init__(self, policy: SafePolicy | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.policy = policy or SafePolicy()
        self._clock = clock
        self._lock = threading.Lock()
        self._refs: dict[str, tuple[str, float]] = {}
        self._started = clock()
        self.searches = self.reads = self.chars = 0
        #: Signs this client's read cursors: a cursor is a grant, like a ref, so one
        #: rewritten (to a whole body, or to more lines) or from another client is refused.
        self.cursor_key = secrets.token_bytes(32)

    def issue(self, name: str) -> str:
        """A fresh single-use ref to skill ``name``."""
        ref = "r-" + secrets.token_urlsafe(18)
        with self._lock:
            now = self._clock()
            if len(self._refs) >= MAX_LIVE_REFS:
                self._refs = {k: v for k, v in self._refs.items() if v[1] > now}
                while len(self._refs) >= MAX_LIVE_REFS:
                    del self._refs[next(iter(self._refs))]
            self._refs[ref] = (name, now + self.policy.ref_ttl)
        return ref

    def consume(self, ref: object) -> str:
        """The skill ``ref`` points to; the ref is spent, whether or not it was valid."""
        with self._lock:
            grant = self._refs.pop(ref, None) if isinstance(ref, str) else None
        if grant is None or grant[1] <= self._clock():
            raise ReaderError("invalid-or-expired-reference",
                              "this reference is unknown, already used or expired; safe mode "
                              "refs are single-use: use the fresh ref from the last result, or "
                              "search again")
        return grant[0]

    def check_query(self, query: str) -> None:
        text = query.strip()
        if (len(text) < self.policy.min_query_chars or not _WORDY.search(text)
                or _WILDCARD.search(text)):
            raise ReaderError("restricted-query-rejected",
                              f"safe mode rejects wildcard queries and queries shorter than "
                              f"{self.policy.min_query_chars} characters; describe the task "
                              "in words")

    def charge(self, operation: str, chars: int = 0) -> None:
        """Count one ``search`` or ``read`` (and the characters it serves), or fail."""
        with self._lock:
            now = self._clock()
            if now - self._started >= self.policy.window:
                self._started, self.searches, self.reads, self.chars = now, 0, 0, 0
            count, limit, budget = ((self.searches, self.policy.max_searches, "searches")
                                    if operation == "search"
                                    else (self.reads, self.policy.max_reads, "reads"))
            if self.chars + chars > self.policy.max_chars:
                count, limit, budget = self.chars, self.policy.max_chars, "characters"
            elif count < limit:
                if operation == "search":
                    self.searches += 1
                else:
                    self.reads += 1
                self.chars += chars
                return
            retry = max(1, int(self._started + self.policy.window - now + 0.999))
        raise ReaderError("restricted-budget-exhausted",
                          f"safe mode {budget} budget exhausted for {operation} ({count}/"
                          f"{limit} per {self.policy.window} seconds); wait {retry} seconds "
                          "before retrying, and avoid parallel fallback requests",
                          operation=operation, budget=budget, used=count, limit=limit,
                          window_seconds=self.policy.window, retry_after_seconds=retry)

    def to_dict(self) -> dict[str, object]:
        with self._lock:
            return {"searches": [self.searches, self.policy.max_searches],
                    "reads": [self.reads, self.policy.max_reads],
                    "chars": [self.chars, self.policy.max_chars],
                    "window_seconds": self.policy.window}
