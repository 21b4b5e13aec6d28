"""The stat scan an incremental build runs in a helper process."""
from __future__ import annotations

import os
import time
from array import array
from pathlib import Path

from skillsite.builder.changes import (
    FOLDER_GONE,
    BackgroundScan,
    Scan,
    StatIndex,
    folder_state,
    scan,
)


def index_of(root: Path, outside: dict[str, int] | None = None) -> StatIndex:
    folders = [str(p) for p in [root, *root.rglob("*")] if p.is_dir()]
    keys = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    stats = array("q")
    for key in keys:
        info = os.stat(root / key)
        stats.extend([info.st_size, info.st_mtime_ns, info.st_ino])
    return StatIndex(str(root), folders, array("q", (os.stat(f).st_mtime_ns for f in folders)),
                     keys, stats, outside or {})


def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "c"
    for relative in ("a/SKILL.md", "b/SKILL.md", "b/references/REF.md"):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text("x\n")
    old = time.time() - 60
    for path in [root, *root.rglob("*")]:
        os.utime(path, (old, old))
    return root


def test_an_edited_file_is_reported_and_nothing_else(tmp_path: Path) -> None:
    root = corpus(tmp_path)
    index = index_of(root)
    assert scan(index).tree_unchanged and scan(index).changed == frozenset()
    (root / "b/SKILL.md").write_text("edited\n")
    found = scan(index)
    assert found.tree_unchanged and found.changed == {"b/SKILL.md"}


def test_a_file_that_comes_or_goes_changes_the_tree(tmp_path: Path) -> None:
    root = corpus(tmp_path)
    index = index_of(root)
    (root / "b/references/NEW.md").write_text("new\n")
    assert not scan(index).tree_unchanged
    index = index_of(root)
    (root / "a/SKILL.md").unlink()
    assert not scan(index).tree_unchanged


def test_a_dependency_outside_the_walk_is_compared_too(tmp_path: Path) -> None:
    root = corpus(tmp_path)
    outside = str(tmp_path / "elsewhere")
    index = index_of(root, {outside: folder_state(outside)})
    assert index.outside[outside] == FOLDER_GONE and scan(index).tree_unchanged
    os.mkdir(outside)
    assert not scan(index).tree_unchanged


def test_the_helper_process_reports_what_an_inline_scan_finds(tmp_path: Path) -> None:
    root = corpus(tmp_path)
    index = StatIndex.from_bytes(index_of(root).to_bytes())
    (root / "a/SKILL.md").write_text("edited\n")
    background = BackgroundScan(index)
    assert len(background.children) == 2
    assert background.result() == scan(index)
    (root / "b/NEW.md").write_text("new\n")
    assert BackgroundScan(index).result() == scan(index) == Scan(
        False, frozenset({"a/SKILL.md"}), (str(root / "b"),))
