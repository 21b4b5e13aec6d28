"""Budgets per client: a bounded ledger of the budgets, safe-mode counts and refs of each
client of one Library.

A face that serves several clients (the MCP server over streamable HTTP, one client per
MCP session) names the client of each call with :meth:`Library.client
<skillsite.reader.library.Library.client>`; the Library itself is the budget of a
caller that names none (the CLI, a Python program, stdio: one client).

The ledger is bounded: at most ``max_clients`` entries. An entry that no call is using
and that has been idle for ``idle_seconds`` is dropped when room is needed (by default
the safe window, so that a dropped client would have had a fresh window anyway); when
every entry is in use or recent, a new client is refused with ``too-many-clients`` and
``retry_after_seconds``, and the clients already in the ledger are unaffected. A face
also :meth:`Clients.forget` a client that has gone (a closed session).

Every operation that spends a budget runs under its client's lock (what it spends is
declared with the operation: :mod:`skillsite.reader.session`), so concurrent calls of one
client cannot both pass a check that only one of them may pass (no overshoot), while
different clients never wait for each other. The state itself is kept in a store
(:mod:`skillsite.reader.shared`), whose spends are atomic: with the store in Redis, calls
of one client on two replicas cannot overshoot either, and an entry here holds only the
lock, so any entry that no call is using may be dropped (``idle_seconds=0``).

Each call gets a :class:`Lease` of its client's entry, with a ledger of its own that keeps
the refs the call issues with its spend (one step), and the rest when the call ends.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from skillsite.reader.budget import Budget
from skillsite.reader.errors import ReaderError
from skillsite.reader.safe import SafeLedger

DEFAULT_MAX_CLIENTS = 256


@dataclass
class ClientEntry:
    """One client's budgets and lock, and how recently and how much it is in use."""

    key: str
    budget: Budget
    ledger: SafeLedger | None
    last_seen: float
    lock: threading.RLock = field(default_factory=threading.RLock)
    busy: int = 0


@dataclass
class Lease:
    """One call's use of a client's entry: its budget, its lock, and a ledger for the
    call (:meth:`SafeLedger.for_call <skillsite.reader.safe.SafeLedger.for_call>`)."""

    entry: ClientEntry
    budget: Budget
    ledger: SafeLedger | None
    lock: threading.RLock


class Clients:
    """The ledger: client key -> :class:`ClientEntry`, at most ``max_clients`` of them.
    ``make(key)`` gives a new client's budget and safe ledger."""

    def __init__(self, make: Callable[[str], tuple[Budget, SafeLedger | None]], *,
                 max_clients: int = DEFAULT_MAX_CLIENTS, idle_seconds: float = 3600,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if max_clients < 1:
            raise ValueError("max_clients must be at least 1")
        self.max_clients = max_clients
        self.idle_seconds = idle_seconds
        self._make = make
        self._clock = clock
        self._entries: dict[str, ClientEntry] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def acquire(self, key: str) -> Lease:
        """A lease of client ``key``'s entry, created if new, marked in use until
        :meth:`release`; ``too-many-clients`` when the ledger is full."""
        with self._lock:
            now = self._clock()
            entry = self._entries.get(key)
            if entry is None:
                if len(self._entries) >= self.max_clients:
                    self._evict_idle(now)
                if len(self._entries) >= self.max_clients:
                    raise self._full(now)
                budget, ledger = self._make(key)
                entry = self._entries[key] = ClientEntry(key, budget, ledger, now)
            entry.busy += 1
            entry.last_seen = now
        return Lease(entry, entry.budget, entry.ledger.for_call() if entry.ledger else None,
                     entry.lock)

    def release(self, lease: Lease) -> None:
        """The call has ended: the refs it issued and has not spent with are kept."""
        try:
            if lease.ledger is not None:
                lease.ledger.flush()
        finally:
            with self._lock:
                lease.entry.busy -= 1
                lease.entry.last_seen = self._clock()

    def forget(self, key: str) -> None:
        """Drop client ``key`` (it has gone: its session ended). A call still running for
        it finishes on its entry, which is then unreachable."""
        with self._lock:
            self._entries.pop(key, None)

    def _evict_idle(self, now: float) -> None:
        for key, entry in list(self._entries.items()):
            if not entry.busy and now - entry.last_seen >= self.idle_seconds:
                del self._entries[key]

    def _full(self, now: float) -> ReaderError:
        idle = [e.last_seen for e in self._entries.values() if not e.busy]
        wait = min(idle) + self.idle_seconds - now if idle else self.idle_seconds
        retry = max(1, int(wait + 0.999))
        return ReaderError(
            "too-many-clients",
            f"this server already keeps budgets for {len(self._entries)} clients, its limit "
            f"(skillsite mcp --max-clients {self.max_clients}); close a session you no longer "
            f"use, or retry in {retry} seconds, when an idle client's budgets are dropped",
            clients=len(self._entries), limit=self.max_clients, retry_after_seconds=retry)

