"""The check that a previous build's site can be carried forward (store.manifest.intact)
sees every kind of change."""
from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from skillsite.store.manifest import intact

TOPS = ("site", "site-cache")


def _modify(dist: Path) -> None:
    page = dist / "site" / "skills" / "beta-check" / "index.html"
    page.write_bytes(page.read_bytes().replace(b"beta-check", b"beta-chekk", 1))


def _add(dist: Path) -> None:
    (dist / "site" / "skills" / "extra.html").write_text("x")


def _remove(dist: Path) -> None:
    (dist / "site" / "skills" / "beta-check" / "index.html").unlink()


def _link(dist: Path) -> None:
    page = dist / "site" / "skills" / "beta-check" / "index.html"
    copy = dist / "copy.html"
    os.replace(page, copy)
    page.symlink_to(copy)


@pytest.mark.parametrize("change", [None, _modify, _add, _remove, _link])
def test_intact_sees_every_kind_of_change(tmp_path: Path, make_build: Callable[..., Any],
                                      change: Callable[[Path], None] | None) -> None:
    dist = make_build(tmp_path).dist
    if change is not None:
        change(dist)
    assert intact(dist, TOPS) == (change is None)


def test_a_site_changed_since_its_build_is_not_carried_forward(
        tmp_path: Path, make_build: Callable[..., Any]) -> None:
    dist = make_build(tmp_path).dist
    _modify(dist)
    again = make_build(tmp_path)
    assert not again.site.incremental and again.site.rendered == again.site.pages
    page = again.dist / "site" / "skills" / "beta-check" / "index.html"
    assert b"beta-chekk" not in page.read_bytes()
    assert intact(again.dist, TOPS)


def test_a_file_is_trusted_by_its_recorded_stat_and_hashed_when_it_differs(
        tmp_path: Path, make_build: Callable[..., Any],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A file whose size, mtime and inode are those recorded beside the manifest when it
    was hashed is not read again (a change in place that keeps all three is not seen, as
    SECURITY.md says); a change of any of them sends it to be hashed."""
    from skillsite.store import manifest

    monkeypatch.setattr(manifest, "RACY_NS", -10**18)  # every file's stat is recorded
    dist = make_build(tmp_path).dist
    page = dist / "site" / "skills" / "beta-check" / "index.html"
    assert "site/skills/beta-check/index.html" in manifest.recorded(dist)
    stat, written = page.stat(), page.read_bytes()
    _modify(dist)
    assert not intact(dist, TOPS)  # same size and inode, another mtime: hashed, differs
    os.utime(page, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert intact(dist, TOPS)  # the stat it was recorded with: trusted, not read
    hashed: list[str] = []
    real = manifest._hash_all
    monkeypatch.setattr(manifest, "_hash_all",
                        lambda root, names, **kw: hashed.extend(names) or real(root, names, **kw))
    page.write_bytes(written)  # the bytes it was built with, a new mtime: hashed, intact
    assert intact(dist, TOPS) and hashed == ["site/skills/beta-check/index.html"]


def test_a_stat_record_of_another_manifest_or_too_recent_is_not_used(
        tmp_path: Path, make_build: Callable[..., Any]) -> None:
    """Files written within RACY_NS of the record are always hashed again (a change within
    the same tick of the file system's clock would keep the mtime), and a record is only
    believed with the manifest it was written with."""
    from skillsite.store import manifest

    dist = make_build(tmp_path).dist
    # Every file changed just now, then recorded again: a build on a loaded machine can
    # take longer than RACY_NS, so the build's own record is not the test.
    now = time.time_ns()
    for folder, _, names in os.walk(dist):
        for name in names:
            os.utime(os.path.join(folder, name), ns=(now, now))
    fields = {key: value for key, value in manifest.read_manifest(dist).items()
              if key not in ("artifact_version", "files", "sizes")}
    manifest.write_manifest(dist, fields)
    assert manifest.recorded(dist) == {}
    assert intact(dist, TOPS)
    (dist / manifest.STATS).write_bytes(b"skillsite-stat-1\n" + bytes(64))
    assert manifest.recorded(dist) == {} and intact(dist, TOPS)


def test_what_the_stat_record_says_is_read_once_while_it_and_the_manifest_stay(
        tmp_path: Path, make_build: Callable[..., Any]) -> None:
    """A build asks three times what the record says (400k files at 100k skills): the
    answer is kept while the record and the manifest are the files it was read from."""
    import shutil

    from skillsite.store import manifest

    dist = make_build(tmp_path).dist
    old = 1_600_000_000 * 10**9
    for name in (manifest.MANIFEST, manifest.STATS):
        os.utime(dist / name, ns=(old, old))
    manifest.forget_loaded()
    first = manifest.recorded(dist)  # empty: every file was written just before
    assert manifest.recorded(dist) is first
    # Another record in its place (a new file): read again, and believed no more.
    shutil.copyfile(dist / manifest.STATS, tmp_path / "stat")
    (dist / manifest.STATS).unlink()
    (tmp_path / "stat").replace(dist / manifest.STATS)
    again = manifest.recorded(dist)
    assert again == first and again is not first
    (dist / manifest.STATS).write_bytes(b"skillsite-stat-1\n" + bytes(64))
    os.utime(dist / manifest.STATS, ns=(old, old))
    assert manifest.recorded(dist) == {}
    manifest.forget_loaded()
