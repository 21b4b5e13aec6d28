"""A small version of ``bench/bench_load.py``: concurrent MCP sessions over streamable
HTTP on 127.0.0.1 get every answer (zero errors) without the server's memory running away,
and in safe mode each session is served its own budgets and no more."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from load import per_client_problems, run_load  # noqa: E402

import skillsite  # noqa: E402
from skillsite.reader.safe import SafePolicy  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return skillsite.build(REPO / "corpus", tmp_path_factory.mktemp("load") / "dist",
                           jobs=1).dist


def test_concurrent_sessions_get_every_answer(dist: Path) -> None:
    report = run_load(dist, clients=6, total=600, seconds=120)
    assert report.errors == [], report.errors[:5]
    assert report.requests == 600
    assert report.rss_end[0] < report.rss_start[0] + 150, (report.rss_start, report.rss_end)


def test_safe_mode_budgets_hold_per_client(dist: Path) -> None:
    """Each session is served its own full budget and no more, whatever the others do
    (with one shared budget, the first session's calls would starve the rest)."""
    policy = SafePolicy()
    report = run_load(dist, clients=4, total=400, seconds=120, safe=True)
    assert per_client_problems(report) == []
    for log in report.clients:
        assert log.budgets["searches"] == [policy.max_searches, policy.max_searches]
        assert log.served["search"] == policy.max_searches
        assert log.budgets["reads"][0] <= policy.max_reads
        assert log.budgets["chars"][0] <= policy.max_chars
