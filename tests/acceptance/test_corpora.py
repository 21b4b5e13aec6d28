"""Acceptance tests: the bundled corpus is clean, the negative corpus yields exactly the
problems listed in ``negative.expected`` (one ``path:line:col: severity rule`` per line)."""
from __future__ import annotations

import importlib
from collections import Counter
from pathlib import Path

import skillsite
from skillsite.linter.discover import discover
from skillsite.linter.parse import read

HERE = Path(__file__).parent
REPO = HERE.parent.parent


def _located(result: skillsite.CheckResult) -> list[str]:
    return [f"{p.path}:{p.line}:{p.column}: {p.severity} {p.rule}" for p in result.problems]


def test_bundled_corpus_is_clean() -> None:
    result = skillsite.check([REPO / "corpus"], base=REPO)
    assert _located(result) == []
    assert result.skills >= 12


def test_bundled_corpus_covers_every_format() -> None:
    docs = [read(s) for s in discover([REPO / "corpus"])]
    kinds = Counter(d.source.kind for d in docs if d is not None)
    assert set(kinds) == {"skill-md", "skill-toml", "skill-json", "virtual"}
    assert kinds["skill-toml"] >= 2 and kinds["skill-json"] >= 2 and kinds["virtual"] >= 3


def test_negative_corpus_problems_are_exactly_the_expected_ones() -> None:
    negative = HERE / "negative"
    result = skillsite.check([negative], base=negative)
    expected = (HERE / "negative.expected").read_text(encoding="utf-8").splitlines()
    assert _located(result) == expected


def test_negative_corpus_in_parallel_matches_single_process() -> None:
    negative = HERE / "negative"
    one = skillsite.check([negative], base=negative, jobs=1)
    # Force workers even for a small corpus by checking it through the pool directly.
    check_module = importlib.import_module("skillsite.linter.checker")
    old = check_module._CHUNK, check_module.PARALLEL_THRESHOLD
    check_module._CHUNK, check_module.PARALLEL_THRESHOLD = 1, 1
    try:
        two = skillsite.check([negative], base=negative, jobs=2)
    finally:
        check_module._CHUNK, check_module.PARALLEL_THRESHOLD = old
    assert two.problems == one.problems
    assert (two.files, two.skills) == (one.files, one.skills)
