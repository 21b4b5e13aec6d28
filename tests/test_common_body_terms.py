"""A term in most bodies of a large corpus is not searched in bodies while other fields
give enough candidates (:func:`skillsite.index.fields.leaves_out_body`), on both engines.

The rule starts at 20,000 bodies; these tests lower that floor on a real index of eight
skills, where ``release`` is in six of eight bodies and one name.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from skillsite.index import BACKENDS, IndexDoc
from skillsite.index import fields as index_fields
from skillsite.index.fields import COMMON_BODY_MIN_SKILLS, leaves_out_body

DOCS = [
    IndexDoc(name="release-notes", title="Release notes", description="Write release notes.",
             body="Group the changes by kind. Link each pull request."),
    IndexDoc(name="kafka-topics", title="Kafka topics", description="Create Kafka topics.",
             body="Set partitions and retention before the release of a service."),
    *(IndexDoc(name=f"chore-{number}", title=f"Chore {number}", description="Routine work.",
               body=f"Tidy step {number}, then cut the release and tag it.")
      for number in range(5)),
    IndexDoc(name="pdf-merge", title="Merge PDFs", description="Combine PDF files.",
             body="Use qpdf to join the files in order."),
]
BODY_ONLY = [f"chore-{number}" for number in range(5)]


@pytest.fixture(scope="module")
def indexes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("common")
    for name, backend in BACKENDS.items():
        with backend.create(root / name) as writer:
            for doc in DOCS:
                writer.add(doc)
    return {name: root / name for name in BACKENDS}


def _candidates(path: Path, backend: str, query: str, limit: int) -> list[str]:
    with BACKENDS[backend].open(path) as searcher:
        return searcher.candidates(query, limit=limit)


def test_the_rule_needs_most_bodies_of_a_large_corpus() -> None:
    assert COMMON_BODY_MIN_SKILLS == 20_000
    assert leaves_out_body(60_000, 100_000)
    assert not leaves_out_body(50_000, 100_000)  # half is not most
    assert not leaves_out_body(19_999, 20_000)   # too small a corpus to matter
    assert leaves_out_body(20_000, 30_000)


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_common_body_terms_still_find_body_only_skills(
        indexes: dict[str, Path], backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    unchanged = {(query, limit): _candidates(indexes[backend], backend, query, limit)
                 for query, limit in (("release", 10), ("release kafka", 10),
                                      ("release", 1), ("kafka release", 2), ("pdf", 10))}
    monkeypatch.setattr(index_fields, "COMMON_BODY_MIN_SKILLS", 1)
    assert leaves_out_body(7, 8)

    # One skill holds it outside its body: fewer than asked, so the engine asks again.
    found = _candidates(indexes[backend], backend, "release", 10)
    assert set(found) == {"release-notes", "kafka-topics", *BODY_ONLY}
    assert found[0] == "release-notes"
    # Enough skills hold the query's terms outside their bodies: the same best ones.
    assert _candidates(indexes[backend], backend, "release", 1) == unchanged["release", 1]
    lean = _candidates(indexes[backend], backend, "kafka release", 2)
    assert set(lean) == set(unchanged["kafka release", 2])
    # ... but the release in kafka-topics' body no longer counts: the clause is left out.
    assert unchanged["kafka release", 2][0] == "kafka-topics"
    assert lean[0] == "release-notes"
    assert set(_candidates(indexes[backend], backend, "release kafka", 10)) == set(
        unchanged["release kafka", 10])
    # Rare terms are untouched.
    assert _candidates(indexes[backend], backend, "pdf", 10) == unchanged["pdf", 10]


def test_both_engines_agree_under_the_rule(indexes: dict[str, Path],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_fields, "COMMON_BODY_MIN_SKILLS", 1)
    for query, limit in (("release", 1), ("release", 10), ("kafka release", 2)):
        answers = {backend: _candidates(path, backend, query, limit)
                   for backend, path in indexes.items()}
        assert answers["tantivy"][:1] == answers["whoosh"][:1], (query, answers)
        assert len(answers["tantivy"]) == len(answers["whoosh"]) == min(limit, 7)
