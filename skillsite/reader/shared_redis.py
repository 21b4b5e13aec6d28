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
nothing; a ref is taken with ``GETDEL``, so exactly one call can take it. When Redis
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

SPEND_WINDOW = """
local counts = redis.call('HMGET', KEYS[1], 'search', 'read', 'chars')
local searches = tonumber(counts[1]) or 0
local reads = tonumber(counts[2]) or 0
local spent = tonumber(counts[3]) or 0
local function refuse(budget, used)
  local left = redis.call('PTTL', KEYS[1])
  if left < 0 then left = tonumber(ARGV[6]) end
  return {budget, used, left}
end
if spent + tonumber(ARGV[2]) > tonumber(ARGV[5]) then return refuse('characters', spent) end
if ARGV[1] == 'search' and searches >= tonumber(ARGV[3]) then
  return refuse('searches', searches)
end
if ARGV[1] == 'read' and reads >= tonumber(ARGV[4]) then return refuse('reads', reads) end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('HINCRBY', KEYS[1], 'chars', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[6], 'NX')
for i = 2, #KEYS do
  redis.call('SET', KEYS[i], ARGV[6 + i], 'PX', ARGV[7])
end
return false
"""

SPEND_BUDGET = """
local field = 'k:' .. ARGV[1]
local budget = redis.call('HMGET', KEYS[1], 'n', 'served', field)
local n = tonumber(budget[1]) or 0
local served = tonumber(budget[2]) or 0
local max_skills = tonumber(ARGV[3])
local max_chars = tonumber(ARGV[4])
if max_skills >= 0 and not budget[3] and n >= max_skills then return {'skills', n} end
if max_chars >= 0 and served + tonumber(ARGV[2]) > max_chars then
  return {'characters', served}
end
if not budget[3] then
  n = n + 1
  redis.call('HSET', KEYS[1], field, n, 'n', n)
end
redis.call('HINCRBY', KEYS[1], 'served', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
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
        args = [operation, chars, limits.max_searches, limits.max_reads, limits.max_chars,
                limits.window * 1000, ttl * 1000, *refs.values()]
        refused = self.store.run(lambda: self.store.spend_window(keys=keys, args=args))
        if not refused:
            return None
        budget, used, left = refused
        budget = budget.decode("ascii")
        limit = {"searches": limits.max_searches, "reads": limits.max_reads,
                 "characters": limits.max_chars}[budget]
        return Refusal(budget, int(used), limit, _seconds(int(left)))

    def served(self) -> Served:
        fields = self.store.run(lambda: self.store.redis.hgetall(self.budget_key))
        skills = sorted((int(order), name[2:].decode("utf-8", "replace"))
                        for name, order in fields.items() if name.startswith(b"k:"))
        return Served(tuple(name for _, name in skills), int(fields.get(b"served", 0)))

    def spend_budget(self, skill: str, chars: int, max_skills: int | None,
                     max_chars: int | None) -> Refusal | None:
        args = [skill, chars, -1 if max_skills is None else max_skills,
                -1 if max_chars is None else max_chars, self.store.idle_seconds * 1000]
        refused = self.store.run(lambda: self.store.spend_budget(keys=[self.budget_key],
                                                                 args=args))
        if not refused:
            return None
        budget, used = refused[0].decode("ascii"), int(refused[1])
        if budget == "skills":
            return Refusal(budget, used, max_skills or 0, loaded=self.served().loaded)
        return Refusal(budget, used, max_chars or 0)

    def cursor_key(self) -> bytes:
        return hmac.new(self.store.secret(), b"cursor:" + self.key.encode("utf-8", "replace"),
                        hashlib.sha256).digest()


def _seconds(milliseconds: int) -> int:
    return max(1, math.ceil(milliseconds / 1000))
