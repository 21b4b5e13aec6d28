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
    Supporting,
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


def test_each_helper_compares_its_half_of_the_supporting_files(tmp_path: Path) -> None:
    root = corpus(tmp_path)
    supporting = []
    for number in range(4):
        path = root / f"b/references/R{number}.md"
        path.write_text("r\n")
        os.utime(path, (time.time() - 60,) * 2)
        supporting.append(str(path))
    index = index_of(root)
    index.supporting = Supporting.of({path: (f"owner-{number}", folder_state(path))
                                      for number, path in enumerate(supporting)})
    index = StatIndex.from_bytes(index.to_bytes())
    for path in supporting[1:3]:  # one of each helper's half, edited in place
        with open(path, "a", encoding="utf-8") as handle:
            handle.write("more\n")
        os.utime(path, (time.time() - 30,) * 2)
    found = BackgroundScan(index).result()
    assert found == scan(index) and found.changed >= {"owner-1", "owner-2"}
    assert not found.changed & {"owner-0", "owner-3"}


def test_a_cancelled_scan_leaves_no_helper_behind(tmp_path: Path) -> None:
    index = StatIndex.from_bytes(index_of(corpus(tmp_path)).to_bytes())
    background = BackgroundScan(index)
    pids = [pid for pid, _ in background.children]
    assert len(pids) == 2
    background.cancel()
    assert background.children == []
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue
        raise AssertionError(f"helper {pid} was not reaped")


def test_an_overlay_reads_as_the_merged_listings() -> None:
    """After a rewalk, the whole tree's listings are the previous ones under those listed
    again, less the folders gone (linter.listings.Overlay): read, counted and iterated
    as that merged dict would be, without a copy of the previous ones."""
    from skillsite.linter.listings import Overlay, as_dict, removed

    def listing(mtime: int) -> tuple[int, bool, tuple[str, ...], tuple[tuple[str, str], ...]]:
        return (mtime, False, (), ())

    base = {"r": listing(1), "r/a": listing(2), "r/a/x": listing(3), "r/b": listing(4)}
    over = {"r/a": listing(5), "r/a/y": listing(6), "r/a/x": listing(7)}
    for gone in (set(), {"r/a/x"}, {"r/b"}):
        overlay = Overlay(base, over, gone)
        merged = {**{k: v for k, v in base.items() if k not in gone}, **over}
        assert list(overlay) == list(merged) and len(overlay) == len(merged)
        assert dict(overlay.items()) == merged and as_dict(overlay) == merged
        assert list(as_dict(overlay)) == list(merged)
        for key in [*base, *over, "r/c"]:
            assert (key in overlay) == (key in merged)
            assert overlay.get(key) == merged.get(key)
        assert removed(base, overlay) == base.keys() - merged.keys()
        assert overlay.same_folders() == (merged.keys() == base.keys())
