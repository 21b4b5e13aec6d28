"""A small version of ``bench/bench_load.py``: concurrent MCP sessions over streamable
HTTP on 127.0.0.1 get every answer (zero errors) without the server's memory running away,
and in safe mode no more than the budgets are served."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from load import run_load  # noqa: E402

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


def test_safe_mode_serves_no_more_than_its_budgets(dist: Path) -> None:
    policy = SafePolicy()
    report = run_load(dist, clients=4, total=400, seconds=120, safe=True)
    assert report.errors == [], report.errors[:5]
    searches = sum(log.served.get("search", 0) for log in report.clients)
    reads = sum(log.served.get("open", 0) + log.served.get("read", 0)
                for log in report.clients)
    refused = sum(sum(log.refused.values()) for log in report.clients)
    # The warm-up session counts too: budgets belong to the server process (one Library).
    assert searches <= policy.max_searches and reads <= policy.max_reads, (searches, reads)
    assert refused > 0
