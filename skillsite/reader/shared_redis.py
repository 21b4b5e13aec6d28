"""Client state in Redis, shared by the replicas of ``skillsite mcp --shared redis://...``.

One Redis database per deployment holds (a client's key is hashed first, so no token or
header value reaches Redis; the braces keep one client's keys in one Redis Cluster slot):

- ``skillsite:{CLIENT}:w``: the safe-mode window, a hash of ``search``, ``read`` and
  ``chars`` counts that expires when the window ends;
- ``skillsite:{CLIENT}:b``: the budget, a hash of ``served`` characters, ``n`` skills and
  ``k:<skill>`` -> its order, expiring after ``idle_seconds`` unused;
- ``skillsite:{CLIENT}:r:<ref>``: a ref, the skill's name, expiring with the ref;
- ``skillsite:cursor-secret``: the secret every replica derives each client's cursor key
  from, written by the first replica that needs it.

Each spend is one Lua script that checks the limits and counts, or refuses and changes
nothing: :data:`SPEND_WINDOW`, :data:`SPEND_BUDGET`, and :data:`SPEND_WINDOW_AND_BUDGET`
for a safe-mode read, which spends both (the window and budget keys share the client's
hash tag, so one script may touch both in Redis Cluster). The three are made of the same
Lua functions (:data:`LUA_FUNCTIONS`). A ref is taken with ``GETDEL``, so exactly one call
can take it. When Redis
cannot be reached, every call that needs it fails with ``shared-store-unavailable`` and
``retry_after_seconds`` (and, for that long, fails at once without trying); the first
call after that tries again, so serving recovers by itself when Redis is back.
"""
from __future__ import annotations

import hashlib
import hmac
import math
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from skillsite.reader.errors import ReaderError
from skillsite.reader.shared import (
    UNAVAILABLE,
    ClientState,
    Refusal,
    Served,
    SharedStore,
    WindowLimits,
    WindowUsage,
)
from skillsite.urls import leaks_credentials, without_credentials

T = TypeVar("T")
PREFIX = "skillsite:"
SECRET_KEY = PREFIX + "cursor-secret"
#: How long a replica trusts its copy of the cursor secret (after Redis lost its data,
#: the replicas agree on the new one within this).
SECRET_SECONDS = 60
#: Seconds a replica waits, once Redis failed, before trying it again.
RETRY_SECONDS = 2
#: Seconds to connect to Redis or wait for an answer before calling it unreachable.
TIMEOUT_SECONDS = 1.0

#: What the spends are made of: each ``*_refused`` checks a limit and returns the refusal
#: (``{of, budget, used, milliseconds until the window ends}``) or nil; each ``count_*``
#: spends. A script calls every check it needs before any count.
LUA_FUNCTIONS = """
local function window_refused(key, operation, chars, max_searches, max_reads, max_chars,
                              window_ms)
  local counts = redis.call('HMGET', key, 'search', 'read', 'chars')
  local searches = tonumber(counts[1]) or 0
  local reads = tonumber(counts[2]) or 0
  local spent = tonumber(counts[3]) or 0
  local budget, used
  if spent + chars > max_chars then budget, used = 'characters', spent
  elseif operation == 'search' and searches >= max_searches then
    budget, used = 'searches', searches
  elseif operation == 'read' and reads >= max_reads then budget, used = 'reads', reads
  else return nil end
  local left = redis.call('PTTL', key)
  if left < 0 then left = window_ms end
  return {'window', budget, used, left}
end

local function count_window(key, operation, chars, window_ms)
  redis.call('HINCRBY', key, operation, 1)
  redis.call('HINCRBY', key, 'chars', chars)
  redis.call('PEXPIRE', key, window_ms, 'NX')
end

-- KEYS[first_key..] are refs, ARGV[first_name..] the names of their skills
local function keep_refs(first_key, first_name, ttl_ms)
  for i = first_key, #KEYS do
    redis.call('SET', KEYS[i], ARGV[first_name + i - first_key], 'PX', ttl_ms)
  end
end

-- max_skills, max_chars: -1 for no limit
local function budget_refused(key, skill, chars, max_skills, max_chars)
  local budget = redis.call('HMGET', key, 'n', 'served', 'k:' .. skill)
  local n = tonumber(budget[1]) or 0
  local served = tonumber(budget[2]) or 0
  if max_skills >= 0 and not budget[3] and n >= max_skills then
    return {'budget', 'skills', n, 0}
  end
  if max_chars >= 0 and served + chars > max_chars then
    return {'budget', 'characters', served, 0}
  end
  return nil
end

local function count_budget(key, skill, chars, idle_ms)
  local field = 'k:' .. skill
  if redis.call('HEXISTS', key, field) == 0 then
    redis.call('HSET', key, field, redis.call('HINCRBY', key, 'n', 1))
  end
  redis.call('HINCRBY', key, 'served', chars)
  redis.call('PEXPIRE', key, idle_ms)
end
"""

#: KEYS: the window, then refs to keep. ARGV: operation, chars, max searches, max reads,
#: max chars, window ms, ref ttl ms (:func:`_window_args`), then the refs' skill names.
SPEND_WINDOW = LUA_FUNCTIONS + """
local chars = tonumber(ARGV[2])
local refused = window_refused(KEYS[1], ARGV[1], chars, tonumber(ARGV[3]),
                               tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6])
if refused then return refused end
count_window(KEYS[1], ARGV[1], chars, ARGV[6])
keep_refs(2, 8, ARGV[7])
return false
"""

#: KEYS: the budget. ARGV: skill, chars, max skills, max chars, idle ms
#: (:func:`_budget_args`).
SPEND_BUDGET = LUA_FUNCTIONS + """
local chars = tonumber(ARGV[2])
local refused = budget_refused(KEYS[1], ARGV[1], chars, tonumber(ARGV[3]),
                               tonumber(ARGV[4]))
if refused then return refused end
count_budget(KEYS[1], ARGV[1], chars, ARGV[5])
return false
"""

#: KEYS: the window, the budget, then refs to keep. ARGV: those of :data:`SPEND_WINDOW`
#: (1-7), then skill, max skills, max chars, idle ms (8-11), then the refs' skill names.
SPEND_WINDOW_AND_BUDGET = LUA_FUNCTIONS + """
local chars = tonumber(ARGV[2])
local refused = window_refused(KEYS[1], ARGV[1], chars, tonumber(ARGV[3]),
                               tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6])
  or budget_refused(KEYS[2], ARGV[8], chars, tonumber(ARGV[9]), tonumber(ARGV[10]))
if refused then return refused end
count_window(KEYS[1], ARGV[1], chars, ARGV[6])
count_budget(KEYS[2], ARGV[8], chars, ARGV[11])
keep_refs(3, 12, ARGV[7])
return false
"""


class RedisStore(SharedStore):
    """Every client's state in the Redis database at ``url``
    (``redis://HOST:PORT/DB``; ``rediss://`` for TLS; a password in the URL or in
    ``REDISCLI_AUTH`` is the redis client's business). ``idle_seconds``: how long an
    unused client's budget is kept."""

    shared = True

    def __init__(self, url: str, *, idle_seconds: int = 3600,
                 clock: Callable[[], float] = time.monotonic) -> None:
        try:
            import redis
            from redis.backoff import NoBackoff
            from redis.retry import Retry
        except ImportError:
            raise ValueError("--shared needs the redis client library: pip install "
                             "'skillsite[shared]'") from None
        try:
            # One quick retry covers a connection Redis closed (a restart); no backoff, so
            # that a call fails closed at once while Redis is down.
            # Any: redis-py types every reply as bytes | str (decode_responses), which
            # this module, reading bytes only, would have to narrow at every call.
            self.redis: Any = redis.Redis.from_url(
                url, socket_timeout=TIMEOUT_SECONDS, socket_connect_timeout=TIMEOUT_SECONDS,
                retry=Retry(NoBackoff(), 1))
        except ValueError as error:
            why = str(error)
            if leaks_credentials(url, why):
                why = "a user name or password breaks it: percent-encode it"
            raise ValueError(f"--shared {without_credentials(url)[:200]!r} is not a Redis URL "
                             f"({why}); "
                             "example: --shared redis://127.0.0.1:6379/0") from None
        self._errors = (redis.ConnectionError, redis.TimeoutError)
        kwargs = self.redis.connection_pool.connection_kwargs
        self.where = (f"{kwargs.get('host', kwargs.get('path', '?'))}:{kwargs.get('port', '')}"
                      f"/{kwargs.get('db', 0)}")
        self.idle_seconds = idle_seconds
        self.clock = clock
        self.spend_window: Any = self.redis.register_script(SPEND_WINDOW)
        self.spend_budget: Any = self.redis.register_script(SPEND_BUDGET)
        self.spend_window_and_budget: Any = self.redis.register_script(
            SPEND_WINDOW_AND_BUDGET)
        self._down_until = 0.0
        self._secret: tuple[bytes, float] | None = None
        self._secret_lock = threading.Lock()

    def client(self, key: str) -> ClientState:
        return RedisClient(self, key)

    def check(self) -> None:
        """Reach Redis once (``shared-store-unavailable`` when it cannot be reached)."""
        self.run(self.redis.ping)

    def run(self, call: Callable[[], T]) -> T:
        """``call()``; ``shared-store-unavailable`` when Redis cannot be reached now, or
        failed less than :data:`RETRY_SECONDS` ago."""
        now = self.clock()
        if now < self._down_until:
            raise self._unavailable("it failed a moment ago", self._down_until - now)
        try:
            return call()
        except self._errors as error:
            self._down_until = self.clock() + RETRY_SECONDS
            raise self._unavailable(str(error)[:200], RETRY_SECONDS) from None

    def _unavailable(self, why: str, wait: float) -> ReaderError:
        retry = max(1, math.ceil(wait))
        return ReaderError(
            UNAVAILABLE,
            f"the shared store of budgets (Redis at {self.where}) cannot be reached ({why}); "
            "this call spends a budget, so it is refused rather than served unbudgeted: "
            f"retry in {retry} seconds", retry_after_seconds=retry)

    def secret(self) -> bytes:
        """The cursor secret all replicas share: made by the first that asks."""
        with self._secret_lock:
            if self._secret is None or self.clock() >= self._secret[1]:
                mine = secrets.token_bytes(32)
                theirs = self.run(lambda: self.redis.set(SECRET_KEY, mine, nx=True, get=True))
                self._secret = (theirs or mine, self.clock() + SECRET_SECONDS)
            return self._secret[0]


class RedisClient(ClientState):
    """One client's state in a :class:`RedisStore`."""

    def __init__(self, store: RedisStore, key: str) -> None:
        self.store = store
        self.key = key
        tag = hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()[:32]
        self.prefix = f"{PREFIX}{{{tag}}}:"
        self.window_key = self.prefix + "w"
        self.budget_key = self.prefix + "b"

    def _ref_key(self, ref: str) -> str:
        return f"{self.prefix}r:{ref}"

    def add_refs(self, refs: Mapping[str, str], ttl: int) -> None:
        def keep() -> None:
            pipe = self.store.redis.pipeline(transaction=False)
            for ref, name in refs.items():
                pipe.set(self._ref_key(ref), name, px=ttl * 1000)
            pipe.execute()
        if refs:
            self.store.run(keep)

    def take_ref(self, ref: str) -> str | None:
        name = self.store.run(lambda: self.store.redis.getdel(self._ref_key(ref)))
        return name.decode("utf-8") if isinstance(name, bytes) else None

    def window(self, limits: WindowLimits) -> WindowUsage:
        def read() -> list[Any]:
            pipe = self.store.redis.pipeline(transaction=False)
            pipe.hmget(self.window_key, "search", "read", "chars")
            pipe.pttl(self.window_key)
            replies: list[Any] = pipe.execute()
            return replies
        (searches, reads, chars), left = self.store.run(read)
        retry = _seconds(left) if left >= 0 else limits.window
        return WindowUsage(int(searches or 0), int(reads or 0), int(chars or 0), retry)

    def spend_window(self, operation: str, chars: int, limits: WindowLimits,
                     refs: Mapping[str, str], ttl: int) -> Refusal | None:
        keys = [self.window_key, *(self._ref_key(ref) for ref in refs)]
        args = [*_window_args(operation, chars, limits, ttl), *refs.values()]
        return self._spend(self.store.spend_window, keys, args, limits)

    def served(self) -> Served:
        fields = self.store.run(lambda: self.store.redis.hgetall(self.budget_key))
        skills = sorted((int(order), name[2:].decode("utf-8", "replace"))
                        for name, order in fields.items() if name.startswith(b"k:"))
        return Served(tuple(name for _, name in skills), int(fields.get(b"served", 0)))

    def spend_budget(self, skill: str, chars: int, max_skills: int | None,
                     max_chars: int | None) -> Refusal | None:
        args = [skill, chars, *self._budget_args(max_skills, max_chars)]
        return self._spend(self.store.spend_budget, [self.budget_key], args,
                           max_skills=max_skills, max_chars=max_chars)

    def spend_window_and_budget(self, operation: str, chars: int, limits: WindowLimits,
                                refs: Mapping[str, str], ttl: int, *, skill: str,
                                max_skills: int | None, max_chars: int | None
                                ) -> Refusal | None:
        keys = [self.window_key, self.budget_key, *(self._ref_key(ref) for ref in refs)]
        args = [*_window_args(operation, chars, limits, ttl),
                skill, *self._budget_args(max_skills, max_chars), *refs.values()]
        return self._spend(self.store.spend_window_and_budget, keys, args, limits,
                           max_skills=max_skills, max_chars=max_chars)

    def _budget_args(self, max_skills: int | None, max_chars: int | None) -> list[int]:
        """Max skills, max chars (-1: no limit) and idle ms, as the scripts take them."""
        return [-1 if max_skills is None else max_skills,
                -1 if max_chars is None else max_chars, self.store.idle_seconds * 1000]

    def _spend(self, script: Any, keys: list[str], args: list[Any],
               limits: WindowLimits | None = None, *, max_skills: int | None = None,
               max_chars: int | None = None) -> Refusal | None:
        """Run a spend ``script``: None, or the :class:`Refusal` it answered."""
        refused = self.store.run(lambda: script(keys=keys, args=args))
        if not refused:
            return None
        of, budget = (part.decode("ascii") for part in refused[:2])
        used, left = int(refused[2]), int(refused[3])
        if of == "window" and limits is not None:
            limit = {"searches": limits.max_searches, "reads": limits.max_reads,
                     "characters": limits.max_chars}[budget]
            return Refusal(budget, used, limit, _seconds(left))
        if budget == "skills":
            return Refusal(budget, used, max_skills or 0, loaded=self.served().loaded,
                           of="budget")
        return Refusal(budget, used, max_chars or 0, of="budget")

    def cursor_key(self) -> bytes:
        return hmac.new(self.store.secret(), b"cursor:" + self.key.encode("utf-8", "replace"),
                        hashlib.sha256).digest()


def _window_args(operation: str, chars: int, limits: WindowLimits, ttl: int) -> list[Any]:
    """The first seven ``ARGV`` of :data:`SPEND_WINDOW` and
    :data:`SPEND_WINDOW_AND_BUDGET`."""
    return [operation, chars, limits.max_searches, limits.max_reads, limits.max_chars,
            limits.window * 1000, ttl * 1000]


def _seconds(milliseconds: int) -> int:
    return max(1, math.ceil(milliseconds / 1000))
