"""Budgets per Library, and safe mode: single-use opaque refs, window budgets, rejections."""
from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from skillsite.reader import Budget, Library, ReaderError, SafePolicy


def test_no_budget_by_default(dist: Path) -> None:
    """A standalone reader keeps no per-session budget (issue #23 item 1)."""
    library = Library(dist)
    for name in ("pdf-forms", "git-bisect", "sql-review", "certcheck", "pdf-forms"):
        library.read(name, max_chars=20000)
    assert not library.limited
    assert library.context().budgets["max_skills"] is None


def test_skill_budget_stops_the_fourth_distinct_skill(dist: Path) -> None:
    library = Library(dist, budget=Budget())  # Mini-A's run: 3 skills, 12,000 characters
    for name in ("pdf-forms", "git-bisect", "sql-review"):
        library.read(name, max_chars=200)
    library.read("pdf-forms", max_chars=200)  # one already loaded is fine
    with pytest.raises(ReaderError) as spent:
        library.read("certcheck", max_chars=200)
    assert spent.value.code == "budget-exceeded" and spent.value.exit_code == 1
    assert spent.value.details["budget"] == "skills"
    assert "new session" in spent.value.message and "--shared" in spent.value.message


def test_character_budget_cuts_then_refuses(dist: Path) -> None:
    library = Library(dist, max_chars=1000)
    first = library.read("pdf-forms", max_chars=800)
    second = library.read("pdf-forms", max_chars=800)
    assert second.truncated and first.chars + second.chars <= 1000
    with pytest.raises(ReaderError) as spent:
        library.read("pdf-forms", max_chars=800)
    assert spent.value.code == "budget-exceeded"


def test_safe_refs_are_opaque_single_use_and_fresh_each_step(dist: Path) -> None:
    library = Library(dist, safe=True)
    hit = library.search("fill pdf form").results[0]
    assert hit.name == "pdf-forms" and hit.ref != "pdf-forms" and len(hit.ref) > 20
    opened = library.open(hit.ref)
    assert opened.path is None and opened.files == () and opened.links == ()
    with pytest.raises(ReaderError) as reused:
        library.open(hit.ref)
    assert reused.value.code == "invalid-or-expired-reference"
    passage = library.read(opened.ref, "Step 3: Fill")
    assert passage.ref not in (hit.ref, opened.ref)
    with pytest.raises(ReaderError) as by_name:
        library.read("pdf-forms")
    assert by_name.value.code == "invalid-or-expired-reference"


def test_safe_refs_expire(dist: Path) -> None:
    now = [1000.0]
    library = Library(dist, safe=True)
    assert library.ledger is not None
    library.ledger.state.clock = lambda: now[0]  # type: ignore[attr-defined]
    ref = library.search("pdf form fields").results[0].ref
    now[0] += library.ledger.policy.ref_ttl + 1
    with pytest.raises(ReaderError) as old:
        library.open(ref)
    assert old.value.code == "invalid-or-expired-reference"


def test_safe_mode_never_serves_a_whole_body(dist: Path) -> None:
    library = Library(dist, safe=True)
    ref = library.search("fill pdf form").results[0].ref
    passage = library.read(ref)
    assert passage.section == "Filling PDF forms"
    lines = library.read(passage.ref, start_line=1, end_line=500)
    assert lines.end_line - lines.start_line < library.ledger.policy.read_lines  # type: ignore[union-attr]
    for refused in (lambda: library.prompt(), lambda: library.skill_file("pdf-forms"),
                    lambda: library.names(), lambda: library.front_matter("pdf-forms")):
        with pytest.raises(ReaderError) as error:
            refused()
        assert error.value.code == "restricted-operation"


@pytest.mark.parametrize("query", ["*", "a*", "pdf*", "??", "ab", "   ", ".", "...", "!!!!", ""])
def test_safe_mode_rejects_wildcard_and_short_queries(dist: Path, query: str) -> None:
    with pytest.raises(ReaderError) as rejected:
        Library(dist, safe=True).search(query)
    assert rejected.value.code == "restricted-query-rejected" and rejected.value.exit_code == 2


def test_safe_search_budget_gives_retry_after(dist: Path) -> None:
    library = Library(dist, safe=True, policy=SafePolicy(max_searches=2, window=600))
    library.search("pdf forms")
    library.search("git bisect")
    with pytest.raises(ReaderError) as spent:
        library.search("sql review")
    error = spent.value
    assert error.code == "restricted-budget-exhausted" and error.details["budget"] == "searches"
    assert 0 < error.retry_after_seconds <= 600
    assert json.loads(json.dumps(error.to_dict()))["retry_after_seconds"] == error.retry_after_seconds


def test_safe_read_budget(dist: Path) -> None:
    library = Library(dist, safe=True, max_skills=None, policy=SafePolicy(max_reads=1))
    ref = library.search("fill pdf form").results[0].ref
    passage = library.read(ref, "Step 3: Fill")
    with pytest.raises(ReaderError) as spent:
        library.read(passage.ref, "Step 5: Verify")
    assert spent.value.code == "restricted-budget-exhausted"
    assert spent.value.details["budget"] == "reads"


def test_a_library_is_safe_to_share_between_threads(dist: Path) -> None:
    library = Library(dist, safe=True, policy=SafePolicy(max_searches=1000, max_reads=1000,
                                                         max_chars=10**7))
    refs = [library.search("incident triage on call").results[0].ref for _ in range(40)]
    results: list[object] = []

    def consume(ref: str) -> None:
        try:
            results.append(library.read(ref, max_chars=200).name)
        except ReaderError as error:
            results.append(error.code)

    threads = [threading.Thread(target=consume, args=(ref,)) for ref in refs + refs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results.count("incident-triage") == 40  # each ref once, whichever thread won
    assert results.count("invalid-or-expired-reference") == 40
