"""The forked workers of a shared check: results in order, errors raised here, no hang
and no process left behind, whatever the workers or this process do."""
from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from skillsite.linter import forked

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the forked workers are used on Linux only")


@pytest.fixture(autouse=True)
def _no_hang() -> Iterator[None]:
    """A test that would wait for ever fails after 60 s instead."""
    def late(signum: int, frame: object) -> None:
        raise TimeoutError("the workers hung")

    previous = signal.signal(signal.SIGALRM, late)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def _run(task: Any) -> Any:
    kind, value = task
    if kind == "echo":
        return value
    if kind == "big":
        return b"x" * value
    if kind == "raise":
        raise ValueError(value)
    if kind == "die":
        os._exit(3)
    if kind == "pid":
        return os.getpid()
    raise AssertionError(kind)


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _pids(workers: forked.Workers) -> list[int]:
    return [worker.pid for worker in workers._workers]


def test_results_come_back_in_order_from_every_worker_and_the_workers_end() -> None:
    workers = forked.Workers(2, lambda: None, _run)
    pids = _pids(workers)
    tasks = [workers.submit(("echo", n)) for n in range(50)]
    assert [task.result() for task in tasks] == list(range(50))
    assert {workers.submit(("pid", None)).result() for _ in range(4)} <= set(pids)
    workers.shutdown()  # returns: neither worker holds the other's task pipe open
    assert all(_gone(pid) for pid in pids)


def test_results_larger_than_a_pipe_and_many_tasks_in_flight_do_not_block() -> None:
    workers = forked.Workers(1, lambda: None, _run)
    tasks = [workers.submit(("big", 3 << 20)) for _ in range(4)]
    tasks += [workers.submit(("echo", "x" * 200_000)) for _ in range(40)]
    assert [len(task.result()) for task in tasks] == [3 << 20] * 4 + [200_000] * 40
    workers.shutdown()


def test_a_task_s_exception_is_raised_here_and_the_worker_goes_on() -> None:
    workers = forked.Workers(1, lambda: None, _run)
    failing, after = workers.submit(("raise", "bad input")), workers.submit(("echo", 1))
    with pytest.raises(ValueError, match="bad input"):
        failing.result()
    assert after.result() == 1
    workers.shutdown()


def test_a_worker_that_dies_is_reported_not_waited_for() -> None:
    workers = forked.Workers(1, lambda: None, _run)
    pids = _pids(workers)
    task = workers.submit(("die", None))
    with pytest.raises(forked.WorkerDied):
        task.result()
    workers.stop()
    assert all(_gone(pid) for pid in pids)


def test_stopping_kills_and_reaps_busy_workers() -> None:
    workers = forked.Workers(2, lambda: None, _run)
    pids = _pids(workers)
    for _ in range(20):
        workers.submit(("big", 1 << 20))
    workers.stop()
    assert all(_gone(pid) for pid in pids)


def test_a_check_whose_reader_stops_early_leaves_no_worker(tmp_path: Path) -> None:
    from corpus_helpers import skill_md

    from skillsite.config import Config
    from skillsite.linter import checker
    from skillsite.linter.rules.context import Context
    from skillsite.models import Source

    sources = []
    for number in range(400):
        folder = tmp_path / f"s{number:03}"
        folder.mkdir()
        (folder / "SKILL.md").write_text(skill_md(f"s{number:03}"))
        sources.append(Source(folder / "SKILL.md", tmp_path, "skill-md"))
    started: list[forked.Workers] = []
    real = forked.Workers.__init__

    def keep(self: forked.Workers, *args: Any) -> None:
        real(self, *args)
        started.append(self)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(forked.Workers, "__init__", keep)
        results = checker.check_files(sources, Context(Config()), tmp_path, 3, share=True)
        for _ in range(150):
            next(results)
        [workers] = started
        pids = _pids(workers)
        assert len(pids) == 2
        results.close()  # the caller stops reading
    assert all(_gone(pid) for pid in pids)
