"""tantivy names its hits through their slots (``index/names.bin``): the names file must say
what the document store says, survive updates without touching the previous build's copy,
and refuse damage by name. An index without the file is still read, from the store."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillsite.index import BACKENDS, IndexDoc, SearchIndexError
from skillsite.index.slots import NAMES_FILE, NameTable, read_names, write_names

DOCS = [IndexDoc(name=f"skill-{number}", title=f"Skill {number}",
                 description=f"Review {'kafka' if number % 2 else 'postgres'} work, part "
                             f"{number}.", tags=("ops",), body="Steps: review, deploy, roll back.")
        for number in range(40)]
QUERIES = ("review", "kafka", "postgres deploy", "skill", "ops")


@pytest.fixture
def index(tmp_path: Path) -> Path:
    path = tmp_path / "index"
    with BACKENDS["tantivy"].create(path) as writer:
        for doc in DOCS:
            writer.add(doc)
    return path


def _answers(path: Path) -> list[list[str]]:
    with BACKENDS["tantivy"].open(path) as searcher:
        return [searcher.candidates(query, limit=50) for query in QUERIES]


def test_names_round_trip(tmp_path: Path) -> None:
    names = ["a", "", "ünïcode-name", "x" * 300, "b"]
    write_names(tmp_path / NAMES_FILE, names)
    assert read_names(tmp_path / NAMES_FILE) == names
    table = NameTable(tmp_path / NAMES_FILE)
    assert [table.name(slot) for slot in range(table.count)] == names
    for slot in (-1, len(names)):
        with pytest.raises(SearchIndexError, match="no name for slot"):
            table.name(slot)


def test_the_slots_name_the_hits_as_the_document_store_does(index: Path, tmp_path: Path
                                                             ) -> None:
    assert read_names(index / NAMES_FILE) == [doc.name for doc in DOCS]
    assert all(_answers(index))


def test_an_update_appends_and_leaves_a_linked_copy_alone(index: Path, tmp_path: Path
                                                          ) -> None:
    previous = tmp_path / "previous"
    previous.mkdir()
    for file in index.iterdir():  # as an incremental build links the previous dist/
        os.link(file, previous / file.name)
    before = (previous / NAMES_FILE).read_bytes()
    changed = IndexDoc(name="skill-3", title="Invoices", description="Approve invoices.")
    with BACKENDS["tantivy"].update(index) as writer:
        writer.add(changed)
        writer.add(IndexDoc(name="new-one", title="New", description="Approve invoices too."))
        writer.delete("skill-5")
    assert (previous / NAMES_FILE).read_bytes() == before
    assert read_names(index / NAMES_FILE) == [doc.name for doc in DOCS] + ["skill-3", "new-one"]
    with BACKENDS["tantivy"].open(index) as searcher:
        assert sorted(searcher.candidates("invoices")) == ["new-one", "skill-3"]
        assert "skill-5" not in searcher.candidates("kafka", limit=50)


@pytest.mark.parametrize("damage", [b"", b"SKNM", b"XXXX\x00\x00\x00\x00\x00\x00\x00\x00",
                                    "truncated", "longer"])
def test_a_damaged_names_file_is_refused_by_name(index: Path, damage: object) -> None:
    names = index / NAMES_FILE
    data = names.read_bytes()
    names.write_bytes(data[:-3] if damage == "truncated" else data + b"x"
                      if damage == "longer" else damage)  # type: ignore[arg-type]
    with pytest.raises(SearchIndexError, match=NAMES_FILE):
        BACKENDS["tantivy"].open(index)


def test_an_update_of_an_index_without_names_says_to_build_clean(index: Path) -> None:
    (index / NAMES_FILE).unlink()
    with pytest.raises(SearchIndexError, match="--clean"):
        BACKENDS["tantivy"].update(index)
