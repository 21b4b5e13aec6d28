"""A clean build's cache written by a forked child (:mod:`skillsite.builder.cache_child`)
is the cache the build writes in-process, byte for byte, and so are the manifest's
checksums; a child that fails leaves the build to write it itself."""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

import skillsite.linter.children
from skillsite.builder import cache_child
from skillsite.builder.pipeline import build

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from generate import generate  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("generated") / "corpus"
    generate(root, 120)
    past = time.time() - 3600  # not racily clean: see test_build_outputs
    for path in [root, *root.rglob("*")]:
        os.utime(path, (past, past), follow_symlinks=False)
    return root


def _cache(dist: Path) -> tuple[dict[str, bytes], dict[str, str]]:
    """The cache's files, and the manifest's checksums of every file but the index's
    (whose segment names are new in every build)."""
    files = {path.name: path.read_bytes() for path in (dist / "build-cache").iterdir()}
    sums = json.loads((dist / "manifest.json").read_text())["files"]
    return files, {name: digest for name, digest in sums.items()
                   if not name.startswith("index/")}


def test_the_child_writes_the_cache_the_build_writes(corpus: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.setattr(cache_child, "FORK_FROM", 10 ** 9)
    here = _cache(build(corpus, tmp_path / "here", jobs=1).dist)
    forks: list[cache_child.CacheChild] = []
    original = cache_child.CacheChild.__init__

    def counted(self: cache_child.CacheChild, *args: object) -> None:
        original(self, *args)  # type: ignore[arg-type]
        forks.append(self)

    written_here: list[Path] = []
    write_cache = cache_child.write_cache

    def counted_write(work: Path, *args: object) -> dict[str, str]:
        written_here.append(work)  # (in this process: the child's list is its own)
        return write_cache(work, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(cache_child.CacheChild, "__init__", counted)
    monkeypatch.setattr(cache_child, "write_cache", counted_write)
    monkeypatch.setattr(cache_child, "FORK_FROM", 0)
    assert _cache(build(corpus, tmp_path / "forked", jobs=1).dist) == here
    assert len(forks) == 1 and forks[0].sums and not written_here  # the child wrote it

    def fails(parent: int) -> None:
        raise OSError("no child today")

    monkeypatch.setattr(skillsite.linter.children, "die_with_parent", fails)
    assert _cache(build(corpus, tmp_path / "failed", jobs=1).dist) == here
    assert len(forks) == 2 and len(written_here) == 1  # written here after all
