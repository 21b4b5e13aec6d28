"""The previous site, moved into an incremental build, with an undo journal.

An incremental build with the site used to start the new ``site/`` as a tree of hard links
to the previous one: 400k links at 100k skills, 7-9 s of a one-skill build. Instead, the
build now *moves* the previous ``site/`` into the new dist (one rename) and changes it in
place, each change through this journal, so that a build that fails puts the previous
``site/`` back exactly as it was:

- before a file or folder is replaced or removed, it is moved into the journal's
  ``saved/`` folder, and the move is logged (``S``);
- before a file or folder is created where there was none, its creation is logged
  (``N``);
- undoing replays the log backwards (a saved entry goes back over whatever holds its
  place, a created one is removed), then moves the site back into the previous dist/.

The journal is a folder beside ``dist/``, ``.<dist>.journal-<pid>`` (never inside the
new dist, which the manifest walks, nor named like a build's temporary folder, which the
next build removes). Its ``moved`` record (written and flushed before the site moves)
says where the site came from and where it went. A build undoes its journal when it fails
or is stopped by SIGTERM or SIGINT (with those signals blocked while it does); after a
SIGKILL or a crash, the next build undoes it as soon as it holds the lock, before anything
else (:func:`recover`). Once the new dist/ is swapped in, the journal is deleted.

Every log line is written (``O_APPEND``, one ``write`` each, from the build and its worker
processes) before the change it records; the lines are not flushed one by one, so after a
crash of the machine itself the journal relies on the file system keeping its metadata in
order (ext4's default journaling writes a file's appended data before a later rename).

Readers of dist/ see the previous site until the move, and no ``site/`` from the move to
the swap (the last seconds of the build: the stamped pages, the supporting files, the
search bundles, the manifest), nor after a SIGKILL in that window until the next build
(see docs/building.md).
"""
from __future__ import annotations

import itertools
import json
import os
import shutil
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

MOVED, LOG, SAVED, SCRATCH = "moved", "log", "saved", "scratch"

#: The journals open in this process (inherited by forked workers), by the folder whose
#: changes they record.
_OPEN: dict[str, Journal] = {}


def folder_for(work: Path) -> Path:
    """The journal folder of the build writing ``work`` (``.<dist>.tmp-<pid>``)."""
    return work.with_name(work.name.replace(".tmp-", ".journal-", 1))


class Journal:
    """The undo journal of ``root`` (the moved site), kept in ``folder``."""

    def __init__(self, folder: Path, root: Path) -> None:
        self.folder, self.root = folder, root
        self._prefix = os.path.join(str(root), "")
        self._counter = itertools.count()
        self._log: int | None = None
        self._pid = -1

    @classmethod
    def adopt(cls, previous: Path, root: Path, folder: Path) -> Journal:
        """Move ``previous`` (the previous dist's site) to ``root`` (in the new dist),
        recording the move in a new journal ``folder`` first."""
        shutil.rmtree(folder, ignore_errors=True)
        (folder / SAVED).mkdir(parents=True)
        (folder / SCRATCH).mkdir()
        record = json.dumps({"from": str(previous), "to": str(root)}).encode("utf-8")
        with open(folder / MOVED, "wb") as handle:
            handle.write(record)
            handle.flush()
            os.fsync(handle.fileno())
        _fsync_folder(folder)
        _fsync_folder(folder.parent)
        journal = cls(folder, root)
        _OPEN[str(root)] = journal
        os.rename(previous, root)
        return journal

    def covers(self, path: str) -> bool:
        return path.startswith(self._prefix)

    def _append(self, line: str) -> None:
        if self._log is None or self._pid != os.getpid():
            self._log = os.open(self.folder / LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT,
                                0o644)
            self._pid = os.getpid()
        os.write(self._log, line.encode("utf-8", "surrogateescape"))

    def _relative(self, path: str) -> str:
        return path[len(self._prefix):]

    def save(self, path: str) -> None:
        """Before ``path`` is replaced or removed: move what is there into the journal,
        or record that nothing was."""
        relative = json.dumps(self._relative(path))
        if not os.path.lexists(path):
            self._append(f"N\t\t{relative}\n")
            return
        name = f"{os.getpid()}-{next(self._counter)}"
        self._append(f"S\t{name}\t{relative}\n")
        os.rename(path, self.folder / SAVED / name)

    def scratch(self) -> str:
        """A new path in the journal's scratch folder (the same file system as the site),
        where a file is written before it is moved into place."""
        return str(self.folder / SCRATCH / f"{os.getpid()}-{next(self._counter)}")

    def replace(self, source: str, target: str) -> None:
        """``os.replace(source, target)``, the previous ``target`` kept."""
        self.make_folders(os.path.dirname(target))
        self.save(target)
        os.replace(source, target)

    def remove(self, path: str) -> None:
        """Remove the file or folder ``path`` (kept in the journal)."""
        if os.path.lexists(path):
            self.save(path)

    def make_folders(self, folder: str) -> None:
        """``os.makedirs(folder, exist_ok=True)``, each folder made recorded."""
        if os.path.isdir(folder):
            return
        missing = []
        while not os.path.isdir(folder) and self.covers(folder):
            missing.append(folder)
            folder = os.path.dirname(folder)
        for path in reversed(missing):
            self._append(f"N\t\t{json.dumps(self._relative(path))}\n")
            os.makedirs(path, exist_ok=True)

    def files(self, before: dict[str, tuple[int, int, int]], top: str
              ) -> dict[str, tuple[int, int, int]] | None:
        """The files of the site now (``top/relative`` -> size, mtime, inode), from those
        it held when it moved in (``before``, by the same names) and the log: every path
        logged is looked at again, and what ``before`` had at or under a path that was
        moved into the journal is left out. Exact as long as every change went through
        the journal (every writer of the site does); None where a symbolic link makes
        the walk's answer differ (the caller then walks the site)."""
        prefix = top + "/"
        gone, under, touched = set(), [], []
        for kind, name, relative in _entries(self.folder / LOG):
            touched.append(relative)
            if kind == "S":
                gone.add(prefix + relative)
                saved = self.folder / SAVED / name
                if saved.is_dir() and not saved.is_symlink():
                    under.append(prefix + relative + "/")
        below = tuple(under)
        files = {name: stat for name, stat in before.items() if name.startswith(prefix)
                 and name not in gone and not (below and name.startswith(below))}
        for relative in touched:
            path = os.path.join(self.root, relative)
            if os.path.islink(path):
                return None
            if os.path.isdir(path):
                if not _walk(path, prefix + relative + "/", files):
                    return None
            elif os.path.isfile(path):
                stat = os.lstat(path)
                files[prefix + relative] = (stat.st_size, stat.st_mtime_ns, stat.st_ino)
        return files

    def close(self) -> None:
        _OPEN.pop(str(self.root), None)
        if self._log is not None and self._pid == os.getpid():
            os.close(self._log)
        self._log = None


def journal_of(path: str | os.PathLike[str]) -> Journal | None:
    """The open journal that records changes to ``path``, if any."""
    if not _OPEN:
        return None
    text = os.fspath(path)
    for journal in _OPEN.values():
        if journal.covers(text):
            return journal
    return None


def attach(root: Path) -> None:
    """In a worker process that was not forked with it: open the journal of ``root``
    (the site of a build's temporary folder) if the build keeps one."""
    if str(root) in _OPEN:
        return
    folder = folder_for(root.parent)
    try:
        record = json.loads((folder / MOVED).read_bytes())
    except (OSError, ValueError):
        return
    if isinstance(record, dict) and record.get("to") == str(root):
        _OPEN[str(root)] = Journal(folder, root)


def restore(work: Path) -> bool:
    """Undo the journal of the build writing ``work``, if it has one: its site goes back
    into the previous dist/, as it was. True when nothing of the previous site is left in
    ``work`` (so ``work`` may be removed)."""
    folder = folder_for(work)
    if not folder.is_dir():
        return True
    return _undo(folder)


def recover(dist: Path) -> None:
    """Undo the journals of killed builds of ``dist`` (call with the build lock held),
    and delete those of builds that finished."""
    for folder in sorted(dist.parent.glob(f".{dist.name}.journal-*")):
        if folder.is_dir():
            _undo(folder)


def discard(work: Path) -> Path | None:
    """After the swap: the journal of ``work`` is no longer needed. Returns its folder
    (for the caller to delete), or None."""
    journal = _OPEN.get(str(work / "site"))
    if journal is not None:
        journal.close()
    folder = folder_for(work)
    return folder if folder.is_dir() else None


def _undo(folder: Path) -> bool:
    try:
        record = json.loads((folder / MOVED).read_bytes())
        moved_to, moved_from = Path(record["to"]), Path(record["from"])
    except (OSError, ValueError, KeyError, TypeError):
        shutil.rmtree(folder, ignore_errors=True)  # the site never moved
        return True
    journal = _OPEN.pop(str(moved_to), None)
    if journal is not None:
        journal.close()
    if moved_to.is_dir() and os.path.lexists(moved_from):
        return False  # nowhere to put it back: left for whoever made moved_from
    with _signals_blocked():
        try:
            _replay(folder, moved_to, moved_from)
        except OSError:
            return False  # left as it is, for the next build to undo
        shutil.rmtree(folder, ignore_errors=True)
    return True


def _replay(folder: Path, moved_to: Path, moved_from: Path) -> None:
    """The log of ``folder`` backwards over ``moved_to``, then ``moved_to`` back to
    ``moved_from`` (nothing when ``moved_to`` is gone: the site never moved, or is back,
    or the new dist/ was swapped in)."""
    if moved_to.is_dir():
        for kind, name, relative in reversed(list(_entries(folder / LOG))):
            target = moved_to / relative
            if kind == "S":
                saved = folder / SAVED / name
                if not os.path.lexists(saved):
                    continue
                _remove(target)
                target.parent.mkdir(parents=True, exist_ok=True)
                os.rename(saved, target)
            else:
                _remove(target)
        os.rename(moved_to, moved_from)


def _entries(log: Path) -> Iterator[tuple[str, str, str]]:
    try:
        data = log.read_bytes().decode("utf-8", "surrogateescape")
    except OSError:
        return
    for line in data.split("\n"):
        parts = line.split("\t", 2)
        if len(parts) != 3 or parts[0] not in ("S", "N"):
            continue  # the last line of a killed build, half written
        try:
            relative = json.loads(parts[2])
        except ValueError:
            continue
        if isinstance(relative, str) and relative and not relative.startswith("/") \
                and ".." not in relative.split("/"):
            yield parts[0], parts[1], relative


def _walk(folder: str, prefix: str, files: dict[str, tuple[int, int, int]]) -> bool:
    """Add the files under ``folder`` (named ``prefix`` + their relative path) with their
    stat; False at a symbolic link."""
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_symlink():
                return False
            if entry.is_dir(follow_symlinks=False):
                if not _walk(entry.path, f"{prefix}{entry.name}/", files):
                    return False
            elif entry.is_file(follow_symlinks=False):
                stat = entry.stat(follow_symlinks=False)
                files[prefix + entry.name] = (stat.st_size, stat.st_mtime_ns, stat.st_ino)
    return True


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()


@contextmanager
def _signals_blocked() -> Iterator[None]:
    """SIGTERM and SIGINT wait while the previous site is put back (the main thread only
    can block them for the process)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    wanted = {signal.SIGTERM, signal.SIGINT}
    before = signal.pthread_sigmask(signal.SIG_BLOCK, wanted)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _fsync_folder(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
