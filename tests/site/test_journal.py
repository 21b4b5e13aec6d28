"""The previous site moved into an incremental build (skillsite/site/journal.py): a build
that fails, is stopped or is killed puts it back into the previous dist/ exactly."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from skillsite.builder.dist import BuildLock
from skillsite.site import journal
from skillsite.site.writing import move_into, remove, write_if_changed, write_new
from skillsite.store.manifest import read_manifest, recorded

REPO = Path(__file__).resolve().parents[2]


def _tree(folder: Path) -> dict[str, str]:
    """Every file (its sha256) and folder (``/``) under ``folder``, with its inode kept
    out: what a reader of the previous dist/ could tell apart."""
    found = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        if path.is_dir():
            found[relative] = "/"
        else:
            found[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def _previous(tmp_path: Path) -> tuple[Path, Path]:
    """A previous dist/ with a site, and the temporary folder of a build beside it."""
    dist, work = tmp_path / "dist", tmp_path / ".dist.tmp-4242"
    site = dist / "site"
    for relative, text in {"index.html": "home", "skills/a/index.html": "a",
                           "skills/a/notes.md": "notes of a", "skills/b/index.html": "b",
                           "pagefind/0/entry.json": "0", "pagefind/1/entry.json": "1",
                           ".well-known/skills/a.md": "a.md",
                           ".well-known/skills/b/SKILL.md": "b.md"}.items():
        (site / relative).parent.mkdir(parents=True, exist_ok=True)
        (site / relative).write_text(text)
    (dist / "manifest.json").write_text("{}")
    work.mkdir()
    return dist, work


def _change_everything(site: Path) -> None:
    """What a build does to the site it moved in: files replaced (twice, too), written
    new in new folders, moved in, removed, folders removed and emptied."""
    write_new(site / "index.html", b"home, new")
    write_new(site / "index.html", b"home, newer")
    write_if_changed(site / "skills" / "a" / "index.html", "a, new")
    write_if_changed(site / "skills" / "a" / "notes.md", "notes of a")  # the same: kept
    write_new(site / "skills" / "c" / "deep" / "index.html", b"c")
    write_new(site / "skills" / "c" / "deep" / "index.html", b"c again")
    remove(site / "skills" / "b")
    staged = site.parent / "staged"
    (staged / "1").mkdir(parents=True)
    (staged / "1" / "entry.json").write_text("1, new")
    move_into(staged / "1", site / "pagefind" / "1")
    remove(site / "pagefind" / "0")
    remove(site / ".well-known" / "skills" / "b" / "SKILL.md")
    remove(site / ".well-known" / "skills" / "b")
    write_new(site / "favicon.ico", b"icon")


def test_a_failed_build_puts_the_previous_site_back_exactly(tmp_path: Path) -> None:
    dist, work = _previous(tmp_path)
    before, inode = _tree(dist), (dist / "site").stat().st_ino
    journal.Journal.adopt(dist / "site", work / "site", journal.folder_for(work))
    assert not (dist / "site").exists()  # the window readers of dist/ see
    _change_everything(work / "site")
    assert (work / "site" / "favicon.ico").read_bytes() == b"icon"
    assert not (work / "site" / "skills" / "b").exists()
    assert journal.restore(work)
    assert _tree(dist) == before
    assert (dist / "site").stat().st_ino == inode  # the same folder, not a copy
    assert not (work / "site").exists() and not journal.folder_for(work).exists()
    assert journal.journal_of(work / "site" / "index.html") is None


@pytest.mark.parametrize("stop", ["after", "midway"])
def test_the_next_build_puts_back_the_site_of_a_killed_build(tmp_path: Path, stop: str) -> None:
    """SIGKILL after some changes (a worker process's too): the next build, as soon as
    it holds the lock, puts the previous site back as it was."""
    dist, work = _previous(tmp_path)
    before = _tree(dist)
    script = textwrap.dedent(f"""
        import os, signal, sys
        from pathlib import Path
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from test_journal import _change_everything
        from skillsite.site import journal
        from skillsite.site.writing import write_new
        work = Path({str(work)!r})
        journal.Journal.adopt(Path({str(dist)!r}) / "site", work / "site",
                              journal.folder_for(work))
        if os.fork() == 0:  # a worker, as the stamping workers are
            write_new(work / "site" / "skills" / "a" / "index.html", b"from a worker")
            os._exit(0)
        os.wait()
        if {stop!r} == "after":
            _change_everything(work / "site")
        else:  # killed between keeping a file and putting the new one in its place
            write_new(work / "site" / "skills" / "d" / "index.html", b"d")
            os.replace = lambda *paths: os.kill(os.getpid(), signal.SIGKILL)
            write_new(work / "site" / "index.html", b"half")
        os.kill(os.getpid(), signal.SIGKILL)
        """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), *sys.path])}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True)
    assert done.returncode == -9, done.stderr
    assert not (dist / "site").exists()
    with BuildLock(dist):
        pass
    assert _tree(dist) == before
    assert not journal.folder_for(work).exists()


def _stats(folder: Path, top: str) -> dict[str, tuple[int, int, int]]:
    found = {}
    for path in (folder / top).rglob("*"):
        if path.is_file():
            stat = path.stat()
            found[path.relative_to(folder).as_posix()] = (stat.st_size, stat.st_mtime_ns,
                                                          stat.st_ino)
    return found


def test_the_journal_knows_the_files_of_the_site_it_changed(tmp_path: Path) -> None:
    """What the manifest takes instead of walking the site: the files before the move,
    changed by what the log says, equal a walk of the site after the changes."""
    dist, work = _previous(tmp_path)
    before = _stats(dist, "site")
    moved = journal.Journal.adopt(dist / "site", work / "site", journal.folder_for(work))
    _change_everything(work / "site")
    assert moved.files(before, "site") == _stats(work, "site")
    assert journal.restore(work)


def test_a_journal_whose_build_was_swapped_in_is_only_deleted(tmp_path: Path) -> None:
    dist, work = _previous(tmp_path)
    journal.Journal.adopt(dist / "site", work / "site", journal.folder_for(work))
    write_new(work / "site" / "index.html", b"new home")
    os.rename(dist, tmp_path / ".dist.old-4242")  # the swap, done by hand
    os.rename(work, dist)
    after = _tree(dist)
    journal.recover(dist)
    assert _tree(dist) == after and not journal.folder_for(work).exists()
    journal.discard(work)


def _edit(corpus: Path) -> None:
    skill = corpus / "skills" / "alpha-guide" / "SKILL.md"
    skill.write_text(skill.read_text().replace("Bump the version.", "Bump the version twice."))


def test_an_incremental_site_build_failing_at_its_end_leaves_dist_as_it_was(
        tmp_path: Path, make_build: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """The site moved in and changed (pages stamped, files and search moved in), then the
    build fails: dist/ is byte for byte what it was, its site the same folder; the next
    build makes what a clean build makes."""
    first = make_build(tmp_path)
    dist = first.dist
    before, inode = _tree(dist), (dist / "site").stat().st_ino
    _edit(tmp_path / "corpus")
    adopted = []
    real_adopt = journal.Journal.adopt

    def adopt(*args: Any) -> journal.Journal:
        adopted.append(args)
        return real_adopt(*args)

    def fail(site: Path) -> None:
        raise RuntimeError("disk full at the very end")

    monkeypatch.setattr(journal.Journal, "adopt", adopt)
    monkeypatch.setattr("skillsite.site.stage._root_favicon", fail)
    with pytest.raises(RuntimeError, match="disk full"):
        make_build(tmp_path)
    assert adopted, "the previous site was not moved in"
    assert _tree(dist) == before
    assert (dist / "site").stat().st_ino == inode
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".dist.")] == [".dist.lock"]
    monkeypatch.undo()
    again = make_build(tmp_path)
    assert again.site.incremental and again.site.rendered == 1
    assert again.site.files is not None  # the manifest did not walk the site
    manifest = read_manifest(dist)
    assert manifest is not None
    on_disk = {k for k in _tree(dist) if _tree(dist)[k] != "/"} - {"manifest.json",
                                                                  "manifest.stat"}
    assert set(manifest["files"]) == on_disk
    assert all(manifest["files"][k] == v for k, v in _tree(dist).items() if k in on_disk)
    for name, (size, mtime, inode, _) in recorded(dist).items():
        stat = (dist / name).stat()
        assert (stat.st_size, stat.st_mtime_ns, stat.st_ino) == (size, mtime, inode), name
    ours, theirs = _tree(dist / "site"), _tree(make_build(tmp_path, "clean").dist / "site")
    assert ours.keys() == theirs.keys()
    assert [p for p in ours if ours[p] != theirs[p] and not p.startswith("sitemap")] == []
