"""``content/hits-delta.db``: an incremental build with few changes leaves the previous
``content/hits.db`` as it is and writes its changes beside it; readers see both as one."""
from __future__ import annotations

import os
import random
import shutil
import time
from pathlib import Path

import pytest
from test_build import REPO, dist_state, search, verify_checksums
from test_incremental_edits import edit

import skillsite.store.hits as hits_module
from skillsite.builder.pipeline import build
from skillsite.reader import Library, ReaderError
from skillsite.store.hits import DELTA_FILE, HITS_FILE, HitStore
from skillsite.store.manifest import read_manifest


@pytest.fixture
def deltas(monkeypatch: pytest.MonkeyPatch) -> None:
    """Deltas for the bundled corpus too (its hits.db is far below the usual floor)."""
    monkeypatch.setattr(hits_module, "DELTA_FROM_BYTES", 0)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = shutil.copytree(REPO / "corpus", tmp_path / "corpus")
    old = time.time() - 100  # past the window in which an mtime is not trusted
    for path in [root, *root.rglob("*")]:
        os.utime(path, (old, old), follow_symlinks=False)
    return root


def _edit_sql_review(corpus: Path, words: str) -> None:
    skill_md = corpus / "skills/sql-review/SKILL.md"
    skill_md.write_text(skill_md.read_text().replace("SQL", words, 1) + f"\n{words}\n")


def _listed(dist: Path) -> set[str]:
    manifest = read_manifest(dist)
    assert manifest is not None
    return set(manifest["files"])


def test_a_small_change_writes_a_delta_and_keeps_hits_db(deltas: None, corpus: Path,
                                                          tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    build(corpus, dist)
    base = (dist / "content" / HITS_FILE).stat().st_ino
    _edit_sql_review(corpus, "Structured Query Language")
    shutil.rmtree(corpus / "claude/pr-review")
    (corpus / "skills/new-one").mkdir()
    (corpus / "skills/new-one/SKILL.md").write_text(
        "---\nname: new-one\ndescription: Polishes brass lanterns. Use it when testing.\n"
        "---\n# New\n\nFresh.\n")
    again = build(corpus, dist)
    clean = build(corpus, tmp_path / "clean", incremental=False)
    assert again.incremental
    assert (dist / "content" / HITS_FILE).stat().st_ino == base  # not copied, not changed
    assert f"content/{DELTA_FILE}" in _listed(dist)
    assert not (clean.dist / "content" / DELTA_FILE).exists()
    assert dist_state(dist) == dist_state(clean.dist)
    verify_checksums(dist)
    assert search(dist, "Structured Query Language", limit=1)[0][0] == "sql-review"
    assert search(dist, "brass lanterns", limit=1)[0][0] == "new-one"
    library = Library(dist)
    assert "pr-review" not in {hit.name for hit in library.search("pull request review",
                                                                  limit=20).results}
    assert library.open("new-one").name == "new-one"  # the bare name, through the delta
    with HitStore(dist / "content" / HITS_FILE) as hits:
        assert hits.ids_named("new-one") == ["new-one"] and hits.ids_named("pr-review") == []


def test_too_many_changes_fold_the_delta_into_hits_db(deltas: None, corpus: Path,
                                                      tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    dist = tmp_path / "dist"
    build(corpus, dist)
    _edit_sql_review(corpus, "Structured Query Language")
    build(corpus, dist)
    assert (dist / "content" / DELTA_FILE).exists()
    monkeypatch.setattr(hits_module, "DELTA_NAMES", 2)
    base = (dist / "content" / HITS_FILE).stat().st_ino
    _edit_sql_review(corpus, "Relational Queries")
    shutil.rmtree(corpus / "claude/pr-review")
    build(corpus, dist)
    clean = build(corpus, tmp_path / "clean", incremental=False)
    assert not (dist / "content" / DELTA_FILE).exists()
    assert f"content/{DELTA_FILE}" not in _listed(dist)
    assert (dist / "content" / HITS_FILE).stat().st_ino != base
    assert dist_state(dist) == dist_state(clean.dist)
    verify_checksums(dist)


def _damaged_delta(corpus: Path, dist: Path) -> Path:
    """``dist`` built, then again after an edit (a delta), and its delta truncated."""
    build(corpus, dist)
    _edit_sql_review(corpus, "Structured Query Language")
    build(corpus, dist)
    delta = dist / "content" / DELTA_FILE
    delta.write_bytes(delta.read_bytes()[:100])
    return dist


def test_a_damaged_delta_is_refused_by_the_reader(deltas: None, corpus: Path,
                                                  tmp_path: Path) -> None:
    dist = _damaged_delta(corpus, tmp_path / "dist")
    with pytest.raises(ReaderError) as error:
        Library(dist).search("sql review")
    assert error.value.code == "damaged-dist" and DELTA_FILE in error.value.message


def test_a_damaged_delta_makes_the_next_build_clean(deltas: None, corpus: Path,
                                                    tmp_path: Path) -> None:
    dist = _damaged_delta(corpus, tmp_path / "dist")
    _edit_sql_review(corpus, "Relational Queries")
    again = build(corpus, dist)
    clean = build(corpus, tmp_path / "clean", incremental=False)
    assert not again.incremental
    assert dist_state(dist) == dist_state(clean.dist)
    verify_checksums(dist)


@pytest.mark.parametrize("seed", [5, 6])
def test_random_edits_with_deltas_equal_a_clean_build(deltas: None, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      seed: int) -> None:
    monkeypatch.setattr(hits_module, "DELTA_NAMES", 4)  # so that some builds fold it
    rng = random.Random(seed)
    root = shutil.copytree(REPO / "corpus", tmp_path / "c", symlinks=True)
    old = time.time() - 100
    for path in [root, *root.rglob("*")]:
        os.utime(path, (old, old), follow_symlinks=False)
    dist = tmp_path / "dist"
    build(root, dist)
    layouts = set()
    for step in range(8):
        edit(root, rng, step)
        time.sleep(0.15)
        incremental = build(root, dist)
        clean = build(root, tmp_path / f"clean{step}", incremental=False)
        assert incremental.incremental and incremental.problems == clean.problems, step
        assert dist_state(dist) == dist_state(clean.dist), step
        layouts.add((dist / "content" / DELTA_FILE).exists())
    assert layouts == {True, False}  # both a delta and a fold were exercised
