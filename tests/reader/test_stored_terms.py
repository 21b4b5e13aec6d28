"""The content store keeps each skill's ranking record (artifact 2.3) so that ranking never
tokenizes or parses a candidate again: the stored record must be the one made from the
skill's own text, and a store without records (2.1), with 2.2's JSON terms, or with damaged
ones still answers."""
from __future__ import annotations

import dataclasses
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from skillsite.index.fields import field_texts
from skillsite.index.ranking_record import record_of
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
    for skill in filter(None, map(shelf.get, names)):
        doc = index_doc(skill)
        assert doc.terms, f"{skill.name} has no stored record"
        assert doc.terms == record_of(field_texts(dataclasses.replace(doc, terms=""))), \
            skill.name


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
    "UPDATE skills SET terms = '{\"body\": {\"x\": 1}}'",     # 2.2's JSON terms
    "UPDATE skills SET terms = ''",
    "UPDATE skills SET terms = 'one line'",
    "UPDATE skills SET terms = replace(terms, char(10), ' ')",
    "UPDATE skills SET terms = terms || 'x'",                # the length is not a number
    "UPDATE skills SET terms = terms || '9999999999999'",    # nor a real one
])
def test_a_store_without_usable_records_answers_the_same(dist: Path, tmp_path: Path,
                                                         damage: str) -> None:
    copy = shutil.copytree(dist, tmp_path / "dist")
    _rewrite_terms(copy, damage)
    assert _answers(copy) == _answers(dist)


@pytest.mark.parametrize("damage", [
    "UPDATE skills SET terms = replace(terms, ':1 ', ':x ')",
    "UPDATE skills SET terms = replace(terms, ':1 ', ':-1 ')",
    "UPDATE skills SET terms = replace(terms, ':1 ', ':' || printf('%.5000d', 1) || ' ')",
    "UPDATE skills SET terms = replace(terms, ':1 ', ':0 ')",  # would divide by zero
    "UPDATE skills SET terms = replace(terms, ' ', '')",
])
def test_a_damaged_record_never_breaks_a_search(dist: Path, tmp_path: Path,
                                                damage: str) -> None:
    copy = shutil.copytree(dist, tmp_path / "dist")
    _rewrite_terms(copy, damage)
    answers = _answers(copy)
    assert len(answers) == len(QUERIES)
    assert all(score >= 0 for hits in answers for _, score, _ in hits)


def test_the_old_format_is_read_with_empty_terms(dist: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(dist, tmp_path / "dist")
    _rewrite_terms(copy, "ALTER TABLE skills DROP COLUMN terms")
    with ContentStore(copy / "content") as store:
        rows = list(store.dump())
    skills = [row for row in rows if len(row) == 11]
    assert skills and all(row[10] == "" for row in skills)
