"""Where a client's budgets, safe-mode counts and refs are kept: one small interface, two
stores.

- :class:`MemoryStore` (the default): in this process, as one server has always kept them.
- ``RedisStore`` (:mod:`skillsite.reader.shared_redis`, ``skillsite mcp --shared
  redis://...``): in Redis, so that every replica of a server sees the same state and any
  replica can serve any request of a client.

A :class:`ClientState` is one client's state in a store. Every change is one atomic step
that checks the limits and spends, or refuses and changes nothing
(:meth:`ClientState.spend_window`, :meth:`ClientState.spend_budget`), so that two
replicas serving one client at once can never both pass a check that only one may pass.
A safe-mode ``read`` spends both the window and the budget: it does so in one step too
(:meth:`ClientState.spend_window_and_budget`), which checks the window's limits, then the
budget's, and spends both or neither, so that a read refused by the budget is not counted
in the window. Reading (:meth:`~ClientState.window`, :meth:`~ClientState.served`) only
sizes an answer; the spend that follows checks again. Refusals come back as a
:class:`Refusal`, and :mod:`skillsite.reader.safe` and :mod:`skillsite.reader.budget` word
the errors, so both stores answer alike.
"""
from __future__ import annotations

import math
import secrets
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from skillsite.reader.errors import ReaderError

#: Live refs kept per client in memory (the oldest go first): about 130 KB at most, so
#: that a Library's full ledger of clients stays in the tens of megabytes.
MAX_LIVE_REFS = 512
#: What a window counts: searches, reads (open and read), and characters.
WINDOW_OPERATIONS = ("search", "read")
#: The error of a spend while the store cannot be reached.
UNAVAILABLE = "shared-store-unavailable"


class WindowLimits(NamedTuple):
    """Safe mode's limits per window (from :class:`~skillsite.reader.safe.SafePolicy`)."""

    max_searches: int
    max_reads: int
    max_chars: int
    window: int  # seconds


class WindowUsage(NamedTuple):
    """What a client has spent of its current window, and when that window ends."""

    searches: int
    reads: int
    chars: int
    retry_after: int  # seconds until the window starts afresh


class Served(NamedTuple):
    """What a client has been served: the distinct skills, in order, and characters."""

    loaded: tuple[str, ...]
    chars: int


class Refusal(NamedTuple):
    """Why a spend was refused: the ``budget`` in the way (``searches``, ``reads``,
    ``characters`` of a window; ``skills``, ``characters`` of a client budget), how much
    of it is ``used`` of its ``limit``, seconds until a window refills (0: never), and
    which limits refused (``of``: ``window`` or ``budget``)."""

    budget: str
    used: int
    limit: int
    retry_after: int = 0
    loaded: tuple[str, ...] = ()
    of: str = "window"


class ClientState(ABC):
    """One client's state in a store."""

    @abstractmethod
    def add_refs(self, refs: Mapping[str, str], ttl: int) -> None:
        """Keep ``refs`` (ref -> skill name) for ``ttl`` seconds."""

    @abstractmethod
    def take_ref(self, ref: str) -> str | None:
        """The skill ``ref`` names, and the ref is gone (None: unknown, taken or old)."""

    @abstractmethod
    def window(self, limits: WindowLimits) -> WindowUsage:
        """The current window's counts."""

    @abstractmethod
    def spend_window(self, operation: str, chars: int, limits: WindowLimits,
                     refs: Mapping[str, str], ttl: int) -> Refusal | None:
        """Count one ``operation`` (``search`` or ``read``) and ``chars`` characters in
        the window, and keep ``refs`` for ``ttl`` seconds; or, when a limit is in the
        way, the refusal, with nothing counted or kept."""

    @abstractmethod
    def served(self) -> Served:
        """The skills and characters served so far."""

    @abstractmethod
    def spend_budget(self, skill: str, chars: int, max_skills: int | None,
                     max_chars: int | None) -> Refusal | None:
        """Count ``chars`` characters of ``skill`` served; or, when that would load one
        skill more than ``max_skills`` or serve more than ``max_chars`` characters in
        all, the refusal, with nothing counted (``None``: no limit)."""

    @abstractmethod
    def spend_window_and_budget(self, operation: str, chars: int, limits: WindowLimits,
                                refs: Mapping[str, str], ttl: int, *, skill: str,
                                max_skills: int | None, max_chars: int | None
                                ) -> Refusal | None:
        """:meth:`spend_window` and :meth:`spend_budget` (of ``chars`` characters of
        ``skill``) in one step: both are counted, or, when a limit of either is in the
        way, neither, and the refusal is the first found (the window's limits are checked
        before the budget's, as when the two were spent one after the other)."""

    @abstractmethod
    def cursor_key(self) -> bytes:
        """The key this client's read cursors are signed with (the same on every
        replica, and another for every other client)."""


class SharedStore(ABC):
    """Where the state of every client is kept; ``shared``: by every replica (then the
    state outlives this process's entry of a client)."""

    shared = False

    @abstractmethod
    def client(self, key: str) -> ClientState:
        """The state of client ``key`` (created empty on its first spend)."""


class MemoryStore(SharedStore):
    """Every client's state in this process: a fresh :class:`MemoryClient` each time it
    is asked for (the Library's ledger of clients keeps one per client)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock

    def client(self, key: str) -> ClientState:
        return MemoryClient(self.clock)


class MemoryClient(ClientState):
    """One client's state in memory, under a lock."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._refs: dict[str, tuple[str, float]] = {}
        self._started: float | None = None
        self._counts = {"search": 0, "read": 0, "chars": 0}
        self._loaded: dict[str, None] = {}  # ordered, for the error that lists them
        self._served = 0
        self._cursor_key = secrets.token_bytes(32)

    def add_refs(self, refs: Mapping[str, str], ttl: int) -> None:
        with self._lock:
            self._keep(refs, ttl)

    def _keep(self, refs: Mapping[str, str], ttl: int) -> None:
        now = self.clock()
        for ref, name in refs.items():
            if len(self._refs) >= MAX_LIVE_REFS:
                self._refs = {k: v for k, v in self._refs.items() if v[1] > now}
                while len(self._refs) >= MAX_LIVE_REFS:
                    del self._refs[next(iter(self._refs))]
            self._refs[ref] = (name, now + ttl)

    def take_ref(self, ref: str) -> str | None:
        with self._lock:
            grant = self._refs.pop(ref, None)
        return grant[0] if grant is not None and grant[1] > self.clock() else None

    def window(self, limits: WindowLimits) -> WindowUsage:
        with self._lock:
            return self._usage(limits, self.clock())

    def _usage(self, limits: WindowLimits, now: float) -> WindowUsage:
        if self._started is None or now - self._started >= limits.window:
            return WindowUsage(0, 0, 0, limits.window)
        left = self._started + limits.window - now
        return WindowUsage(self._counts["search"], self._counts["read"],
                           self._counts["chars"], max(1, math.ceil(left)))

    def spend_window(self, operation: str, chars: int, limits: WindowLimits,
                     refs: Mapping[str, str], ttl: int) -> Refusal | None:
        with self._lock:
            now = self.clock()
            usage = self._usage(limits, now)
            refusal = window_refusal(usage, operation, chars, limits)
            if refusal is None:
                self._count_window(usage, now, operation, chars, refs, ttl)
            return refusal

    def served(self) -> Served:
        with self._lock:
            return self._served_now()

    def spend_budget(self, skill: str, chars: int, max_skills: int | None,
                     max_chars: int | None) -> Refusal | None:
        with self._lock:
            refusal = budget_refusal(self._served_now(), skill, chars, max_skills, max_chars)
            if refusal is None:
                self._count_budget(skill, chars)
            return refusal

    def spend_window_and_budget(self, operation: str, chars: int, limits: WindowLimits,
                                refs: Mapping[str, str], ttl: int, *, skill: str,
                                max_skills: int | None, max_chars: int | None
                                ) -> Refusal | None:
        with self._lock:
            now = self.clock()
            usage = self._usage(limits, now)
            refusal = (window_refusal(usage, operation, chars, limits)
                       or budget_refusal(self._served_now(), skill, chars, max_skills,
                                         max_chars))
            if refusal is None:
                self._count_window(usage, now, operation, chars, refs, ttl)
                self._count_budget(skill, chars)
            return refusal

    # The parts of a spend, each called under the lock once every limit passed.
    def _count_window(self, usage: WindowUsage, now: float, operation: str, chars: int,
                      refs: Mapping[str, str], ttl: int) -> None:
        if usage.searches == usage.reads == usage.chars == 0:
            self._started = now
            self._counts = {"search": 0, "read": 0, "chars": 0}
        self._counts[operation] += 1
        self._counts["chars"] += chars
        self._keep(refs, ttl)

    def _served_now(self) -> Served:
        return Served(tuple(self._loaded), self._served)

    def _count_budget(self, skill: str, chars: int) -> None:
        self._loaded[skill] = None
        self._served += chars

    def cursor_key(self) -> bytes:
        return self._cursor_key


def window_refusal(usage: WindowUsage, operation: str, chars: int,
                   limits: WindowLimits) -> Refusal | None:
    """Whether one more ``operation`` of ``chars`` characters fits the window."""
    if operation not in WINDOW_OPERATIONS:
        raise ValueError(f"a window counts {' and '.join(WINDOW_OPERATIONS)}, not {operation!r}")
    if usage.chars + chars > limits.max_chars:
        return Refusal("characters", usage.chars, limits.max_chars, usage.retry_after)
    if operation == "search" and usage.searches >= limits.max_searches:
        return Refusal("searches", usage.searches, limits.max_searches, usage.retry_after)
    if operation == "read" and usage.reads >= limits.max_reads:
        return Refusal("reads", usage.reads, limits.max_reads, usage.retry_after)
    return None


def budget_refusal(served: Served, skill: str, chars: int, max_skills: int | None,
                   max_chars: int | None) -> Refusal | None:
    """Whether ``chars`` more characters of ``skill`` fit the client's budget."""
    if (max_skills is not None and skill not in served.loaded
            and len(served.loaded) >= max_skills):
        return Refusal("skills", len(served.loaded), max_skills, loaded=served.loaded,
                       of="budget")
    if max_chars is not None and served.chars + chars > max_chars:
        return Refusal("characters", served.chars, max_chars, of="budget")
    return None


def unavailable(error: ReaderError, **shown: Any) -> dict[str, Any]:
    """What ``context`` shows of a state the store cannot give now (``context`` spends
    nothing, so it goes on); any other error is raised again."""
    if error.code != UNAVAILABLE:
        raise error
    return {**shown, "shared_store": "unavailable",
            "retry_after_seconds": error.retry_after_seconds}
