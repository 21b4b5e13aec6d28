"""The content store keeps each skill's index terms (artifact 2.2) so that ranking never
tokenizes a candidate again: what ranking makes of them must equal what it makes of the
skill's own text, and a store without them (2.1) or with damaged ones still answers."""
from __future__ import annotations

import dataclasses
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from skillsite.index import ranking
from skillsite.reader import Library
from skillsite.reader.finder import index_doc
from skillsite.store.content import ContentStore
from skillsite.store.manifest import file_checksums

QUERIES = ("debug a stuck kubernets rollout", "review a database migration", "pdf forms",
           "incident severity", "kube", "write release notes from the commit history")


def test_every_stored_skill_ranks_as_its_own_text(dist: Path) -> None:
    library = Library(dist, max_skills=None, max_chars=None)
    shelf = library._shelf
    names = shelf.names()
    assert names
    for skill in shelf.get_many(names).values():
        doc = index_doc(skill)
        assert doc.terms, f"{skill.name} has no stored terms"
        from_terms = ranking._analysis(doc)
        from_text = ranking._analysis(dataclasses.replace(doc, terms=""))
        assert from_terms == from_text, skill.name


def _rewrite_terms(dist: Path, sql: str) -> None:
    for shard in sorted((dist / "content").glob("*.sqlite")):
        with sqlite3.connect(shard) as db:
            db.execute(sql)
        db.close()
    manifest = json.loads((dist / "manifest.json").read_text())
    manifest["files"] = file_checksums(dist)
    manifest["sizes"] = {name: (dist / name).stat().st_size for name in manifest["files"]}
    (dist / "manifest.json").write_text(json.dumps(manifest))


def _answers(dist: Path) -> list[list[tuple[str, float, tuple[str, ...]]]]:
    library = Library(dist, max_skills=None, max_chars=None)
    return [[(hit.name, hit.score, hit.matched) for hit in library.search(query).results]
            for query in QUERIES]


@pytest.mark.parametrize("damage", [
    "ALTER TABLE skills DROP COLUMN terms",                  # a store of format 3 (2.1)
    "UPDATE skills SET terms = '{not json'",
    "UPDATE skills SET terms = '{\"body\": {\"x\": \"many\"}}'",
    "UPDATE skills SET terms = '{\"body\": {\"x\": 0}}'",     # would divide by zero
    "UPDATE skills SET terms = '[1, 2]'",
])
def test_a_store_without_usable_terms_answers_the_same(dist: Path, tmp_path: Path,
                                                       damage: str) -> None:
    copy = shutil.copytree(dist, tmp_path / "dist")
    _rewrite_terms(copy, damage)
    ranking._ANALYSES.clear()
    assert _answers(copy) == _answers(dist)


def test_the_old_format_is_read_with_empty_terms(dist: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(dist, tmp_path / "dist")
    _rewrite_terms(copy, "ALTER TABLE skills DROP COLUMN terms")
    with ContentStore(copy / "content") as store:
        rows = list(store.dump())
    skills = [row for row in rows if len(row) == 11]
    assert skills and all(row[10] == "" for row in skills)
