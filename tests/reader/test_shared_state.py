"""Where budgets, safe-mode counts and refs are kept (skillsite.reader.shared): the store in
memory and the store in a real Redis answer alike, and two stores on one Redis (two
replicas) share one client's state, with every spend atomic."""
from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from redis_server import RedisServer, redis_server_path  # noqa: E402

from skillsite.reader import Library, ReaderError, SafePolicy  # noqa: E402
from skillsite.reader.shared import (  # noqa: E402
    ClientState,
    MemoryClient,
    MemoryStore,
    Served,
    SharedStore,
    WindowLimits,
)

pytest.importorskip("redis")
from skillsite.reader.shared_redis import RETRY_SECONDS, RedisStore  # noqa: E402

pytestmark = pytest.mark.skipif(redis_server_path() is None,
                                reason="redis-server is not installed")
LIMITS = WindowLimits(max_searches=5, max_reads=3, max_chars=1000, window=600)


@pytest.fixture(scope="module")
def server() -> Iterator[RedisServer]:
    with RedisServer() as running:
        yield running


@pytest.fixture
def redis_url(server: RedisServer) -> str:
    import redis

    redis.Redis.from_url(server.url).flushdb()
    return server.url


@pytest.fixture(params=["memory", "redis"])
def replicas(request: pytest.FixtureRequest) -> Callable[[], SharedStore]:
    """Makes the store of one replica: in memory one store stands for both (a client's
    state lives in one process), in Redis each replica has its own connection."""
    if request.param == "memory":
        store = MemoryStore()
        state = store.client("c")
        return lambda: _Same(store, state)
    url = request.getfixturevalue("redis_url")
    return lambda: RedisStore(url)


class _Same(SharedStore):
    def __init__(self, store: MemoryStore, state: object) -> None:
        self.store, self.state = store, state

    def client(self, key: str):  # type: ignore[no-untyped-def]
        return self.state if key == "c" else self.store.client(key)


def _at_once(count: int, run: Callable[[int], object]) -> list[object]:
    outcomes: list[object] = [None] * count
    start = threading.Barrier(count)

    def one(number: int) -> None:
        start.wait()
        outcomes[number] = run(number)

    threads = [threading.Thread(target=one, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def test_a_ref_kept_on_one_replica_is_taken_once_on_any(
        replicas: Callable[[], SharedStore]) -> None:
    one, two = replicas().client("c"), replicas().client("c")
    assert one.spend_window("search", 10, LIMITS, {"r-1": "pdf-forms", "r-2": "git"}, 60) is None
    assert _at_once(8, lambda n: (one if n % 2 else two).take_ref("r-1")).count("pdf-forms") == 1
    assert two.take_ref("r-2") == "git" and one.take_ref("r-2") is None


def test_window_spends_from_two_replicas_never_overshoot(
        replicas: Callable[[], SharedStore]) -> None:
    states = [replicas().client("c"), replicas().client("c")]
    outcomes = _at_once(20, lambda n: states[n % 2].spend_window("search", 1, LIMITS, {}, 60))
    assert outcomes.count(None) == LIMITS.max_searches
    refused = [o for o in outcomes if o is not None]
    assert {r.budget for r in refused} == {"searches"}  # type: ignore[union-attr]
    assert all(0 < r.retry_after <= LIMITS.window for r in refused)  # type: ignore[union-attr]
    usage = states[1].window(LIMITS)
    assert (usage.searches, usage.chars) == (LIMITS.max_searches, LIMITS.max_searches)
    assert states[0].spend_window("read", 996, LIMITS, {}, 60).budget == "characters"
    assert states[0].window(LIMITS).reads == 0  # a refusal counts nothing


def test_budget_spends_from_two_replicas_never_overshoot(
        replicas: Callable[[], SharedStore]) -> None:
    states = [replicas().client("c"), replicas().client("c")]
    names = ["a", "b", "c", "d", "e"]
    outcomes = _at_once(20, lambda n: states[n % 2].spend_budget(names[n % 5], 10, 2, None))
    served = states[0].served()
    assert len(served.loaded) == 2 and served.chars == 10 * outcomes.count(None)
    refusal = states[1].spend_budget("z", 1, 2, None)
    assert refusal is not None and refusal.budget == "skills"
    assert refusal.loaded == served.loaded
    assert states[1].spend_budget(served.loaded[0], 1, 2, served.chars) is not None
    assert states[1].spend_budget(served.loaded[0], 1, 2, served.chars + 1) is None


def test_a_read_the_budget_refuses_counts_nothing_in_the_window(
        replicas: Callable[[], SharedStore]) -> None:
    """A safe-mode read spends the window and the budget in one step: refused by the
    budget, it leaves the window's counts and the refs as they were (issue #25 item 3)."""
    one, two = replicas().client("c"), replicas().client("c")
    assert one.spend_budget("a", 900, 1, 1000) is None  # at its one skill

    def read(state: ClientState, skill: str, chars: int) -> object:
        return state.spend_window_and_budget("read", chars, LIMITS, {"r-1": skill}, 60,
                                             skill=skill, max_skills=1, max_chars=1000)

    skills = read(two, "b", 10)  # another skill: over max_skills
    characters = read(two, "a", 101)  # the same skill, over max_chars
    assert skills == ("skills", 1, 1, 0, ("a",), "budget")
    assert characters == ("characters", 900, 1000, 0, (), "budget")
    assert one.window(LIMITS)[:3] == (0, 0, 0)
    assert one.take_ref("r-1") is None
    assert one.served() == Served(("a",), 900)
    assert read(two, "a", 100) is None  # what fits both is counted in both
    assert one.window(LIMITS)[:3] == (0, 1, 100) and one.served() == Served(("a",), 1000)
    assert one.take_ref("r-1") == "a"


def test_the_window_is_checked_before_the_budget_and_refuses_alone(
        replicas: Callable[[], SharedStore]) -> None:
    state = replicas().client("c")
    assert state.spend_window("read", 999, LIMITS, {}, 60) is None
    assert state.spend_budget("a", 1, 1, 10) is None
    refusal = state.spend_window_and_budget("read", 5, LIMITS, {}, 60, skill="b",
                                            max_skills=1, max_chars=10)
    assert refusal is not None and (refusal.of, refusal.budget) == ("window", "characters")
    assert 0 < refusal.retry_after <= LIMITS.window
    assert state.served() == Served(("a",), 1) and state.window(LIMITS).reads == 1


def test_reads_from_two_replicas_count_alike_in_window_and_budget(
        replicas: Callable[[], SharedStore]) -> None:
    """Many reads at once near the skill budget: every read counted in the window is
    counted in the budget, and no other (two steps counted the refused ones too)."""
    states = [replicas().client("c"), replicas().client("c")]
    limits = WindowLimits(max_searches=5, max_reads=100, max_chars=1000, window=600)
    names = ["a", "b", "c", "d", "e"]
    outcomes = _at_once(20, lambda n: states[n % 2].spend_window_and_budget(
        "read", 10, limits, {}, 60, skill=names[n % 5], max_skills=2, max_chars=None))
    served, usage = states[0].served(), states[1].window(limits)
    assert len(served.loaded) == 2 and 0 < outcomes.count(None) < 20
    assert (usage.reads, usage.chars) == (outcomes.count(None), served.chars)


class _Raced:
    """One client's state on this replica, raced by another replica of the same client:
    right after this replica sizes a read by the budget (``served``), the other loads
    skill ``elsewhere``, the last the budget allows."""

    def __init__(self, state: ClientState, other: ClientState) -> None:
        self.state, self.other, self.armed = state, other, False

    def served(self) -> Served:
        served = self.state.served()
        if self.armed:
            self.armed = False
            assert self.other.spend_budget("elsewhere", 10, 1, None) is None
        return served

    def __getattr__(self, name: str) -> object:
        return getattr(self.state, name)


class _Store(SharedStore):
    def __init__(self, state: object) -> None:
        self.state = state

    def client(self, key: str):  # type: ignore[no-untyped-def]
        return self.state


@pytest.mark.parametrize("where", ["memory", "redis"])
def test_a_read_raced_out_of_the_budget_by_another_replica_is_not_counted(
        dist: Path, where: str, request: pytest.FixtureRequest) -> None:
    """The partial charge of issue #25 item 3: the budget had room when the read was
    sized, another replica spent it before the read was counted; the read is refused
    with the budget's error, and the window counts it no more than the budget does."""
    if where == "memory":
        state: ClientState = MemoryClient()
        other = state
    else:
        url = request.getfixturevalue("redis_url")
        state, other = RedisStore(url).client("c"), RedisStore(url).client("c")
    raced = _Raced(state, other)
    library = Library(dist, safe=True, max_skills=1, shared=_Store(raced))
    with library.client("c") as view:
        opened = view.open(view.search("fill pdf form").results[0].ref)
        before = view.context().budgets
        raced.armed = True
        with pytest.raises(ReaderError) as refused:
            view.read(opened.ref, "Step 3: Fill")
        after = view.context().budgets
    assert refused.value.code == "budget-exceeded"
    assert refused.value.details["budget"] == "skills"
    assert "already loaded 1 skills (elsewhere)" in refused.value.message
    assert after["safe"] == before["safe"] and after["safe"]["reads"][0] == 1
    assert after["skills_loaded"] == ["elsewhere"]
    assert not raced.armed


def test_cursor_keys_are_shared_by_replicas_and_differ_by_client(redis_url: str) -> None:
    one, two = RedisStore(redis_url), RedisStore(redis_url)
    assert one.client("c").cursor_key() == two.client("c").cursor_key()
    assert one.client("c").cursor_key() != two.client("d").cursor_key()


def test_a_library_per_replica_serves_one_client_on_both(dist: Path, redis_url: str) -> None:
    policy = SafePolicy(max_searches=3)
    a = Library(dist, safe=True, policy=policy, shared=RedisStore(redis_url))
    b = Library(dist, safe=True, policy=policy, shared=RedisStore(redis_url))
    with a.client("client-1") as view:
        hit = view.search("fill pdf form").results[0]
    with b.client("client-1") as view:
        opened = view.open(hit.ref)
        first = view.read(opened.ref, start_line=1, end_line=40, max_chars=200)
        assert first.truncated and first.cursor
    with a.client("client-1") as view:  # the cursor issued on b verifies on a
        more = view.read(first.ref, cursor=first.cursor, max_chars=200)
        assert more.start_line >= first.start_line and more.text != first.text
        with pytest.raises(ReaderError) as reused:
            view.open(hit.ref)
        assert reused.value.code == "invalid-or-expired-reference"
        view.search("git bisect")
    with b.client("client-1") as view:
        view.search("incident triage")
        with pytest.raises(ReaderError) as spent:
            view.search("rollback deploy")
        assert spent.value.code == "restricted-budget-exhausted"
        assert view.context().budgets["safe"]["searches"] == [3, 3]
    with b.client("client-2") as view:  # another client: its own budgets and refs
        assert view.context().budgets["safe"]["searches"] == [0, 3]
        with pytest.raises(ReaderError) as foreign:
            view.open(more.ref)
        assert foreign.value.code == "invalid-or-expired-reference"


def test_refs_expire_in_redis(redis_url: str) -> None:
    state = RedisStore(redis_url).client("c")
    state.add_refs({"r-old": "pdf-forms"}, 1)
    time.sleep(1.2)
    assert state.take_ref("r-old") is None


def test_redis_down_fails_closed_and_recovers_by_itself(dist: Path) -> None:
    with RedisServer() as server:
        library = Library(dist, safe=True, shared=RedisStore(server.url))
        with library.client("c") as view:
            ref = view.search("fill pdf form").results[0].ref
        server.stop()
        with library.client("c") as view:
            with pytest.raises(ReaderError) as down:
                view.open(ref)
            assert down.value.code == "shared-store-unavailable"
            assert down.value.retry_after_seconds == RETRY_SECONDS
            assert "Redis at 127.0.0.1" in down.value.message
            budgets = view.context().budgets  # context spends nothing: it goes on
            assert budgets["safe"]["shared_store"] == "unavailable"
            assert budgets["safe"]["retry_after_seconds"] >= 1
        server.start()  # an empty Redis on the same port
        time.sleep(RETRY_SECONDS)
        with library.client("c") as view:
            with pytest.raises(ReaderError) as lost:  # the refs went with Redis's data
                view.open(ref)
            assert lost.value.code == "invalid-or-expired-reference"
            assert view.search("fill pdf form").results
