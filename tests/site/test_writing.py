"""Linking the previous build's trees, and relative links between pages."""
from __future__ import annotations

import itertools
import os
import posixpath
from pathlib import Path
from typing import Any

import pytest

from skillsite.site import writing
from skillsite.site.markup import href
from skillsite.site.writing import link_tree, remove_tree, write_files, write_new


def _tree(root: Path) -> Path:
    for path, data in {"a.txt": "a", "skills/x/index.html": "x", ".well-known/i.json": "{}",
                       "pagefind/entry.json": "p", "skills/x/references/R.md": "r"}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(data)
    return root


def _files(root: Path) -> dict[str, int]:
    return {p.relative_to(root).as_posix(): p.stat().st_ino
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("with_cp", [True, False])
def test_link_tree_links_every_file_but_the_skipped(tmp_path: Path, monkeypatch: Any,
                                                    with_cp: bool) -> None:
    if not with_cp:                      # no cp on the PATH: the Python loop does it
        monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    source = _tree(tmp_path / "source")
    link_tree(source, tmp_path / "target", ("pagefind",))
    ours, theirs = _files(tmp_path / "target"), _files(source)
    assert ours == {p: ino for p, ino in theirs.items() if not p.startswith("pagefind/")}
    write_new(tmp_path / "target" / "a.txt", b"new")     # a new file, never through the link
    assert (source / "a.txt").read_text() == "a"


def test_link_tree_finishes_a_partial_copy(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    source = _tree(tmp_path / "source")
    target = tmp_path / "target"
    (target / "skills" / "x").mkdir(parents=True)
    (target / "skills" / "x" / "index.html").write_text("stale")
    link_tree(source, target)
    assert _files(target) == _files(source)
    assert os.stat(target / "skills" / "x" / "index.html").st_nlink == 2


def test_href_is_posix_relpath() -> None:
    folders = ["", "skills", "skills/x", "skills/y", "tags", "tags/a", "formats/skill-md",
               "skillsx/y", "a/b/c"]
    for here, there in itertools.product(folders, folders):
        expected = posixpath.relpath(there or ".", here or ".")
        assert href(here, there) == ("./" if expected == "." else expected + "/"), (here, there)


@pytest.mark.parametrize("count", [3, writing.APART_FROM + writing.WRITER_BATCH + 7])
def test_write_files_writes_each_file_then_remove_tree_removes_them(tmp_path: Path,
                                                                     count: int) -> None:
    # Past APART_FROM files a child process writes them, in batches.
    files = {str(tmp_path / "out" / str(n % 5) / f"s{n}" / "index.html"): f"<p>{n}\u00e9</p>".encode()
             for n in range(count)}
    write_files(iter(files.items()))
    found = {str(p): p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file()}
    assert found == files
    remove_tree(tmp_path / "out")
    assert not (tmp_path / "out").exists()
    remove_tree(tmp_path / "out")  # nothing there: nothing to do


def test_write_files_says_why_it_failed(tmp_path: Path) -> None:
    (tmp_path / "blocked").write_text("a file where a folder should be")
    files = [(str(tmp_path / "blocked" / f"s{n}" / "index.html"), b"x")
             for n in range(writing.APART_FROM)]
    with pytest.raises(OSError, match="writing files failed"):
        write_files(files)
