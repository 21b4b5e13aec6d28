"""What a build writes must not change with how it is run, nor with a change made for speed.

A generated corpus (``bench/generate.py``, seed 1: byte-identical files on every machine) is
built in one process and with two workers: every artifact must be the same. Its digests
must also equal those in ``fixtures/build_digests.json``, taken from the build before the
speed work of 2026-12-02 (issue #25). A change that means to change what a build writes
updates that file (``python tests/test_build_outputs.py`` prints the digests) and says so.
"""
from __future__ import annotations

import hashlib
import json
import marshal
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from skillsite.builder.pipeline import build
from skillsite.linter.checker import PARALLEL_THRESHOLD
from skillsite.reader import Library

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
from generate import generate  # noqa: E402

DIGESTS = Path(__file__).parent / "fixtures" / "build_digests.json"
#: Enough skills that two workers are used (see PARALLEL_THRESHOLD).
COUNT = 400
QUERIES = ["deploy kubernetes", "pdf", "csv report", "rollback", "lint python code"]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _rows(path: Path) -> str:
    """The rows of every table of a SQLite file, in a stable order."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [name for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return _sha(repr({table: sorted(db.execute(f"SELECT * FROM {table}"), key=repr)
                          for table in tables}).encode())
    finally:
        db.close()


def digests(dist: Path) -> dict[str, Any]:
    """The digest of everything a build writes that does not depend on the machine: the
    catalog, graph and groups, the content store and hits (rows), the index's names and
    what it answers, and the corpus-wide problems and included skills of the cache."""
    found: dict[str, Any] = {name: _sha((dist / name).read_bytes())
                             for name in ("catalog.json", "graph.json", "groups.json",
                                          "index/names.bin")}
    found["content"] = {path.name: _rows(path) for path in sorted((dist / "content").iterdir())
                        if path.suffix in (".sqlite", ".db")}
    manifest = json.loads((dist / "manifest.json").read_text())
    found["counts"] = manifest["counts"]
    head = marshal.loads((dist / "build-cache" / "head.bin").read_bytes())
    found["cache"] = _sha(repr((head["included"], head["corpus_problems"])).encode())
    library = Library(dist)
    found["search"] = {query: [hit.ref for hit in library.search(query, limit=10).results]
                       for query in QUERIES}
    return found


def machine_bound(dist: Path) -> dict[str, Any]:
    """What may differ between machines but never between two builds on one: the index
    segments, the vectors (floating point), the cache's records (stats of files)."""
    segments = sorted(_sha(path.read_bytes()) for path in (dist / "index").iterdir()
                      if len(path.stem) == 32)
    vectors = {path.name: _sha(path.read_bytes())
               for path in sorted((dist / "vectors").glob("*"))} \
        if (dist / "vectors").is_dir() else {}
    records = [marshal.loads(path.read_bytes())
               for path in sorted((dist / "build-cache").glob("[0-9][0-9].bin"))]
    return {"segments": segments, "vectors": vectors, "records": _sha(repr(records).encode())}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("generated") / "corpus"
    generate(root, COUNT)
    # A file changed within the last moments is recorded with a zero stat (git's "racily
    # clean" rule: linter.listings.racy), which would make the two builds' cache records
    # differ by when each ran, not by how: the corpus is dated an hour back.
    past = time.time() - 3600
    for path in [root, *root.rglob("*")]:
        os.utime(path, (past, past), follow_symlinks=False)
    return root


def test_one_process_and_two_workers_write_the_same_dist(corpus: Path, tmp_path: Path) -> None:
    assert COUNT > PARALLEL_THRESHOLD
    one = build(corpus, tmp_path / "one", jobs=1).dist
    two = build(corpus, tmp_path / "two", jobs=2).dist
    assert digests(one) == digests(two)
    assert machine_bound(one) == machine_bound(two)


def test_the_build_writes_what_it_wrote_before_the_speed_work(corpus: Path,
                                                              tmp_path: Path) -> None:
    dist = build(corpus, tmp_path / "dist", jobs=2).dist
    assert digests(dist) == json.loads(DIGESTS.read_text())


if __name__ == "__main__":  # print the digests, for fixtures/build_digests.json
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        generate(Path(folder) / "corpus", COUNT)
        built = build(Path(folder) / "corpus", Path(folder) / "dist", jobs=2).dist
        print(json.dumps(digests(built), indent=1, sort_keys=True))
