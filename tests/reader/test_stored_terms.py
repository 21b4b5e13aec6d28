"""``content/hits.db`` keeps each skill's ranking record so that ranking never tokenizes or
parses a candidate again: the stored record must be the one made from the skill's own
text, and a dist with damaged records still answers the same."""
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
from skillsite.store.manifest import file_checksums

HITS = "content/hits.db"

QUERIES = ("debug a stuck kubernets rollout", "review a database migration", "pdf forms",
           "incident severity", "kube", "write release notes from the commit history")


def test_every_stored_skill_ranks_as_its_own_text(dist: Path) -> None:
    library = Library(dist, max_skills=None, max_chars=None)
    shelf = library.session().store
    names = shelf.names()
    records = shelf.ranking_records(names)
    assert names and sorted(records) == names
    for skill in filter(None, map(shelf.get, names)):
        assert skill.terms == "", "the shards no longer repeat the record"
        doc = dataclasses.replace(index_doc(skill), terms="")
        assert records[skill.name] == record_of(field_texts(doc)), skill.name


def test_the_hits_file_holds_what_a_hit_shows(dist: Path) -> None:
    shelf = Library(dist, max_skills=None, max_chars=None).session().store
    names = shelf.names()
    hits = shelf.hits(names)
    for name, (listing, _) in shelf.listings(names).items():
        hit = hits[name][0]
        assert (hit.format, hit.title, hit.description, hit.tags) == (
            listing.format, listing.title, listing.description, listing.tags)


def _rewrite_terms(dist: Path, sql: str) -> None:
    with sqlite3.connect(dist / HITS) as db:
        db.execute(sql.replace("skills", "hits"))
    db.close()
    _update_manifest(dist)


def _update_manifest(dist: Path) -> None:
    manifest = json.loads((dist / "manifest.json").read_text())
    manifest["files"] = file_checksums(dist)
    manifest["sizes"] = {name: (dist / name).stat().st_size for name in manifest["files"]}
    (dist / "manifest.json").write_text(json.dumps(manifest))


def _answers(dist: Path) -> list[list[tuple[str, float, tuple[str, ...]]]]:
    library = Library(dist, max_skills=None, max_chars=None)
    return [[(hit.name, hit.score, hit.matched) for hit in library.search(query).results]
            for query in QUERIES]


_RECORD_DAMAGES = [
    "UPDATE skills SET terms = '{\"body\": {\"x\": 1}}'",     # JSON, not a record
    "UPDATE skills SET terms = ''",
    "UPDATE skills SET terms = 'one line'",
    "UPDATE skills SET terms = replace(terms, char(10), ' ')",
    "UPDATE skills SET terms = terms || 'x'",                # the length is not a number
    "UPDATE skills SET terms = terms || '9999999999999'",    # nor a real one
]


@pytest.mark.parametrize("damage", _RECORD_DAMAGES)
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
