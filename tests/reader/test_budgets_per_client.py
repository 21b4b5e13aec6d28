"""Budgets per client (``Library.client``): each client has its own budgets, counts and
refs; concurrent calls of one client never overshoot them; the ledger is bounded."""
from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillsite.reader import Library, ReaderError
from skillsite.reader.budget import Budget
from skillsite.reader.client_budgets import Clients

NAMES = ["pdf-forms", "git-bisect", "sql-review", "certcheck", "changelog-writer",
         "incident-triage", "log-search", "flaky-test-hunter"]


@pytest.fixture
def switch_often() -> Iterator[None]:
    """Threads switch every microsecond, so that a check and its charge, if they were not
    under one lock, would be interleaved with another thread's."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def _at_once(calls: list[object], run: object) -> list[object]:
    """Run ``run(call)`` for every call on its own thread, all released together."""
    start = threading.Barrier(len(calls))
    outcomes: list[object] = []

    def one(argument: object) -> None:
        start.wait()
        try:
            outcomes.append(run(argument))  # type: ignore[operator]
        except ReaderError as error:
            outcomes.append(error)

    threads = [threading.Thread(target=one, args=(c,)) for c in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return outcomes


def test_each_client_has_its_own_budget(dist: Path) -> None:
    library = Library(dist, max_skills=1, max_chars=None)
    with library.client("a") as a:
        a.read("pdf-forms", max_chars=200)
        with pytest.raises(ReaderError) as spent:
            a.read("git-bisect", max_chars=200)
        assert spent.value.code == "budget-exceeded"
    with library.client("b") as b:
        assert b.read("git-bisect", max_chars=200).name == "git-bisect"
        assert b.context().budgets["skills_loaded"] == ["git-bisect"]
    with library.client("a") as a:  # the same client again: the same budget
        assert a.context().budgets["skills_loaded"] == ["pdf-forms"]
    assert library.budget.loaded == []  # the Library's own budget is a third one


def test_refs_and_window_counts_belong_to_one_client(dist: Path) -> None:
    library = Library(dist, safe=True)
    with library.client("a") as a:
        ref = a.search("bisect a regression").results[0].ref
    with library.client("b") as b, pytest.raises(ReaderError) as unknown:
        b.open(ref)
    assert unknown.value.code == "invalid-or-expired-reference"
    with library.client("a") as a:
        assert a.open(ref).name == "git-bisect"
        assert a.context().budgets["safe"]["searches"][0] == 1


@pytest.mark.usefixtures("switch_often")
def test_concurrent_reads_of_one_client_never_pass_its_skill_budget(dist: Path) -> None:
    library = Library(dist, max_skills=2, max_chars=None)

    def read(name: object) -> object:
        with library.client("greedy") as view:
            return view.read(str(name), max_chars=2000).name

    outcomes = _at_once(NAMES * 2, read)
    served = {o for o in outcomes if isinstance(o, str)}
    assert len(served) == 2, outcomes
    with library.client("greedy") as view:
        assert sorted(view.budget.loaded) == sorted(served)


@pytest.mark.usefixtures("switch_often")
def test_concurrent_reads_of_one_client_never_pass_its_character_budget(dist: Path) -> None:
    library = Library(dist, max_skills=None, max_chars=3000)

    def read(name: object) -> object:
        with library.client("greedy") as view:
            return view.read(str(name), max_chars=1000).chars

    outcomes = _at_once(NAMES * 2, read)
    assert sum(o for o in outcomes if isinstance(o, int)) <= 3000
    assert any(isinstance(o, ReaderError) for o in outcomes)


def test_the_ledger_is_capped_and_refuses_a_new_client_clearly(dist: Path) -> None:
    library = Library(dist, safe=True, max_clients=2)
    for key in ("a", "b"):
        with library.client(key) as view:
            view.search("incident triage")
    with pytest.raises(ReaderError) as full, library.client("c"):
        pass
    assert full.value.code == "too-many-clients" and full.value.exit_code == 1
    assert "--max-clients 2" in full.value.message
    assert full.value.retry_after_seconds and full.value.retry_after_seconds > 0
    with library.client("a") as view:  # those inside are unaffected
        view.search("rollback deploy")
    library.forget_client("b")  # b's session ended: room for c
    with library.client("c") as view:
        view.search("incident triage")


def test_idle_clients_make_room_and_busy_ones_are_kept() -> None:
    now = [0.0]
    clients = Clients(lambda key: (Budget(), None), max_clients=2, idle_seconds=60,
                      clock=lambda: now[0])
    busy = clients.acquire("busy")  # in use, however long
    clients.release(clients.acquire("idle"))
    now[0] = 30
    with pytest.raises(ReaderError) as full:
        clients.acquire("new")
    assert full.value.retry_after_seconds == 30  # when "idle" becomes droppable
    now[0] = 61
    clients.acquire("new")
    assert len(clients) == 2
    with pytest.raises(ReaderError):
        clients.acquire("newer")  # "busy" is never dropped while in use
    clients.release(busy)


def test_calls_of_one_client_run_one_at_a_time_and_other_clients_never_wait(
        dist: Path) -> None:
    """The mechanism behind the two tests above: a client's calls run under its lock
    (held here, as a long call of that client would hold it)."""
    library = Library(dist, max_skills=None, max_chars=100_000)
    done: dict[str, threading.Event] = {key: threading.Event() for key in ("a", "b")}

    def read(key: str) -> None:
        with library.client(key) as view:
            view.read("pdf-forms", max_chars=500)
        done[key].set()

    with library.client("a") as a, a._lock:  # type: ignore[union-attr]
        threads = [threading.Thread(target=read, args=(key,)) for key in ("a", "b")]
        for thread in threads:
            thread.start()
        assert done["b"].wait(10)           # another client is served meanwhile
        assert not done["a"].wait(0.5)      # the same client waits for its running call
    assert done["a"].wait(10)
    for thread in threads:
        thread.join(10)
