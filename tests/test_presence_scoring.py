"""The engines score a presence field (name, title, tags, ...) by whether it holds the term,
as ranking does: not by the term's IDF or the field's length (:mod:`skillsite.index.presence`).

Real indexes on disk, both engines.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from skillsite.index import BACKENDS, IndexDoc
from skillsite.index.fields import PRESENCE_FIELDS
from skillsite.index.presence import FILLER, PRESENCE_LENGTH, padded_texts

DOCS = [
    # A long name, and the body says kafka three times: its name hit is worth as much as
    # the short name's, so the body decides.
    IndexDoc(name="stream-events-through-kafka-topics-with-schemas-and-retention",
             title="Streaming", description="Move events between services.",
             body="Create the kafka topic. Set kafka retention. Watch kafka lag."),
    IndexDoc(name="kafka", title="Brokers", description="Run brokers.",
             body="Start the brokers and check the logs."),
    *(IndexDoc(name=f"pdf-tool-{number}", title=f"PDF tool {number}",
               description="Work with PDF files.", body="Open the file.") for number in range(6)),
]
LONG = DOCS[0].name


def _build(backend: str, path: Path) -> Path:
    with BACKENDS[backend].create(path) as writer:
        for doc in DOCS:
            writer.add(doc)
    return path


def _candidates(backend: str, path: Path, query: str) -> list[str]:
    with BACKENDS[backend].open(path) as searcher:
        return searcher.candidates(query, limit=10)


def test_padding_makes_every_presence_field_the_same_length() -> None:
    texts = padded_texts({"name": "kafka kafka topic", "body": "kafka kafka"})
    for field in PRESENCE_FIELDS:
        assert len(texts[field].split()) == PRESENCE_LENGTH
    assert texts["name"].split()[:3] == ["kafka", "topic", FILLER]
    assert texts["body"] == "kafka kafka"  # lexical fields keep their counts


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_a_name_hit_is_worth_the_same_in_a_long_name(tmp_path: Path, backend: str) -> None:
    found = _candidates(backend, _build(backend, tmp_path / backend), "kafka")
    assert found[:2] == [LONG, "kafka"]


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_a_word_most_names_share_earns_nothing_there(tmp_path: Path, backend: str) -> None:
    # pdf is in 6 names of 8 (and every pdf tool's title and description): no name or title
    # boost, and little weight; kafka, in 2 names, decides.
    found = _candidates(backend, _build(backend, tmp_path / backend), "kafka pdf")
    assert found[:2] == [LONG, "kafka"], found
