"""Writing ``dist/`` safely: one build at a time, all or nothing.

A build writes into a temporary folder beside ``dist/`` and swaps it in at the end (with
one atomic ``renameat2(RENAME_EXCHANGE)`` where Linux offers it, else two renames), so a
reader sees the old or the new ``dist/``, never half of one, and a build that fails or is
killed leaves the old one as it was. The one exception is the previous ``site/``, which an
incremental build moves into its temporary folder for its last seconds and changes through
an undo journal (:mod:`skillsite.site.journal`): a failed or stopped build puts it back
before it exits, and after a SIGKILL the next build does, as soon as it holds the lock
(:func:`recover_previous_site`); meanwhile the previous ``dist/`` has no ``site/``. An
advisory lock beside ``dist/`` keeps two builds from writing at once; the kernel releases
it when a build dies, however it dies, because no child process keeps a copy of it (see
:class:`BuildLock`).
"""
from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import shutil
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO

from skillsite.errors import SkillsiteError
from skillsite.store.manifest import fsync_file

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


class BuildLocked(SkillsiteError):
    """Another build holds the lock on the same ``dist/``."""


#: Descriptors of the locks this process holds. A forked child closes them at once (see
#: :func:`_close_locks_in_child`): a flock belongs to the open file, so a worker that kept
#: its copy would keep the lock after the build died.
_HELD: set[int] = set()


def _close_locks_in_child() -> None:
    for descriptor in _HELD:
        with suppress(OSError):
            os.close(descriptor)
    _HELD.clear()


os.register_at_fork(after_in_child=_close_locks_in_child)


class BuildLock:
    """An exclusive, non-blocking lock on ``.<dist>.lock`` beside ``dist``.

    The lock file records the holder's pid. The kernel releases the lock when the holder
    ends, however it ends: no child process keeps it (they close it as they start, and they
    end with their parent, see :mod:`skillsite.linter.children`).
    """

    def __init__(self, dist: Path) -> None:
        self.dist = dist
        self.path = dist.parent / f".{dist.name}.lock"
        self.handle: IO[str] | None = None

    def __enter__(self) -> BuildLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+", encoding="utf-8")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            handle.seek(0)
            recorded = handle.read().strip()
            handle.close()
            if exc.errno in (errno.EWOULDBLOCK, errno.EACCES):
                raise BuildLocked(self._held_message(recorded)) from None
            raise
        _HELD.add(handle.fileno())
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}")
        handle.flush()
        self.handle = handle
        try:
            recover_previous_site(self.dist)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        if self.handle:
            _HELD.discard(self.handle.fileno())
            self.handle.close()  # closing releases the lock

    def _held_message(self, recorded: str) -> str:
        holder = _recorded_pid(recorded)
        if holder is None or _alive(holder):
            who = f"pid {holder}" if holder else "another process"
            return (f"another skillsite build ({who}) is writing to {self.dist}; wait for it "
                    "to finish, or build into another folder with -o")
        others = [pid for pid in _processes_holding(self.path) if pid != os.getpid()]
        if others:
            pids = " ".join(map(str, others))
            return (f"the lock {self.path} is stale: the build that took it (pid {holder}) "
                    f"is gone, but processes {pids} still hold it (workers of an older "
                    f"skillsite?); stop them with `kill {pids}` and build again")
        return (f"the lock {self.path} is stale: the build that took it (pid {holder}) is "
                "gone; remove the file and build again")


def _recorded_pid(recorded: str) -> int | None:
    number = recorded.removeprefix("pid ").strip()
    return int(number) if number.isdigit() else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _processes_holding(path: Path) -> list[int]:
    """Pids with ``path`` open, from ``/proc`` (Linux); empty where that cannot be read."""
    target = os.path.realpath(path)
    holders = []
    for entry in Path("/proc").glob("[0-9]*/fd/*"):
        try:
            if os.readlink(entry) == target:
                holders.append(int(entry.parts[2]))
        except (OSError, ValueError):
            continue
    return sorted(set(holders))


class BuildInterrupted(SkillsiteError):
    """SIGTERM or SIGINT stopped the build; ``dist/`` was left as it was."""

    def __init__(self, signum: int, dist: Path) -> None:
        name = signal.Signals(signum).name
        # 143 for SIGTERM, 130 for SIGINT, as shells report.
        super().__init__(f"build stopped by {name}; {dist} was left as it was, and the "
                         "next build starts afresh from it", exit_code=128 + signum)


@contextmanager
def stopped_cleanly_by_signals(dist: Path) -> Iterator[None]:
    """Turn SIGTERM and SIGINT into :class:`BuildInterrupted` while the block runs, so the
    build unwinds (its temporary folder is removed, its workers are stopped) instead of
    dying where it stands. Only the main thread can handle signals; elsewhere, a no-op."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise BuildInterrupted(signum, dist)

    previous = {signum: signal.signal(signum, stop) for signum in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def journal_folder(work: Path) -> Path:
    """Where the build writing ``work`` keeps the journal of the previous site it moved
    in (see :mod:`skillsite.site.journal`)."""
    return work.with_name(work.name.replace(".tmp-", ".journal-", 1))


def recover_previous_site(dist: Path) -> None:
    """Before anything else, with the lock held: put back into ``dist`` the previous site
    that a killed build had moved into its temporary folder (the journals of builds that
    finished are deleted)."""
    if not any(dist.parent.glob(f".{dist.name}.journal-*")):
        return  # (skillsite.site is imported only when there is a journal)
    from skillsite.site.journal import recover

    recover(dist)


def put_back_previous_site(work: Path) -> bool:
    """After a build writing ``work`` failed: the previous site it moved in goes back
    into the previous dist/. False when it could not (then ``work`` must be left for the
    next build to undo)."""
    if not journal_folder(work).is_dir():
        return True
    from skillsite.site.journal import restore

    return restore(work)


def remove_work(work: Path, *, in_background: bool) -> None:
    """Delete the folder of a build that failed. ``in_background`` (a signal stopped the
    build, which must then end within seconds: a site's 400k files at 100k skills take a
    minute to delete): it is renamed to a previous dist's name, which a detached process
    deletes (:func:`_discard`; the next build's :func:`temp_dir` leaves it to it)."""
    if in_background:
        aside = work.with_name(work.name.replace(".tmp-", ".old-", 1))
        try:
            os.rename(work, aside)
        except OSError:
            pass
        else:
            _discard(aside)
            return
    shutil.rmtree(work, ignore_errors=True)


def drop_journal(work: Path) -> None:
    """Once the build writing ``work`` is swapped in: its journal is deleted, in the
    background (it holds the files the site replaced)."""
    folder = journal_folder(work)
    if not folder.is_dir():
        return
    from skillsite.site.journal import discard

    discard(work)
    _discard(folder)


def temp_dir(dist: Path) -> Path:
    """A fresh work folder beside ``dist``; leftovers of killed builds are removed first
    (previous dists that a deleter has not finished yet are left to a deleter)."""
    for stale in dist.parent.glob(f".{dist.name}.tmp-*"):
        shutil.rmtree(stale, ignore_errors=True)
    for stale in dist.parent.glob(f".{dist.name}.old-*"):
        if not _being_deleted(stale):
            _discard(stale)
    work = dist.parent / f".{dist.name}.tmp-{os.getpid()}"
    work.mkdir(parents=True)
    return work


def copy_previous(dist: Path, work: Path, *, link: tuple[str, ...] = (),
                  copy: tuple[str, ...] = ()) -> None:
    """Bring the ``link`` and ``copy`` entries (files or folders) of ``dist`` into ``work``.

    ``link`` entries are hard-linked: free, and safe for files that their writers never
    change in place (tantivy segments; content shards, which are copied before a write).
    """
    for name in (*link, *copy):
        top = dist / name
        for source in sorted([top, *top.rglob("*")] if top.is_dir() else [top]):
            if not source.exists():
                continue
            target = work / source.relative_to(dist)
            if source.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if name in link:
                os.link(source, target)
            else:
                shutil.copyfile(source, target)


def swap_in(work: Path, dist: Path) -> None:
    """Make ``work`` the new ``dist`` and delete the old one.

    Every file of ``work`` is on disk before the swap, so a crash leaves the old or the
    new ``dist``, each whole: one ``syncfs`` of the file system where Linux offers it
    (one cache flush, where an ``fsync`` per file paid one each: minutes for a site of 40k
    files), else an ``fsync`` of each file that is not a hard link to the previous build.
    """
    flush_tree(work)
    old = dist.parent / f".{dist.name}.old-{os.getpid()}"
    shutil.rmtree(old, ignore_errors=True)
    if dist.exists() and _exchange(work, dist):
        os.rename(work, old)  # work now holds the old dist
    else:
        if dist.exists():
            os.rename(dist, old)
        os.rename(work, dist)
    if old.exists():
        _discard(old)


def _discard(old: Path) -> None:
    """Delete ``old`` (the previous dist, tens of thousands of files with a site) in a
    detached process, so the build does not wait for it; the next build's
    :func:`temp_dir` removes whatever a killed deleter left."""
    import subprocess
    import sys

    # rm(1) where there is one: Python's rmtree costs about twice its CPU on the 500k
    # files of a dist/ with the site at 100k skills, beside the next build.
    where = os.path.abspath(old)  # what _being_deleted looks for
    command = ["rm", "-rf", "--", where] if shutil.which("rm") else \
        [sys.executable, "-c", "import shutil, sys; shutil.rmtree(sys.argv[1], True)", where]
    try:
        subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)
    except OSError:
        shutil.rmtree(old, ignore_errors=True)


def _being_deleted(folder: Path) -> bool:
    """Whether a deleter of an earlier build (:func:`_discard`) is still at work on
    ``folder``: a second one would race it over the same files, and back-to-back builds of
    a large site would pile up deleters beside the next build. Linux's ``/proc`` says;
    elsewhere, no."""
    where = os.fsencode(os.path.abspath(folder))
    try:
        pids = [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return False
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                if where in cmdline.read().split(b"\0"):
                    return True
        except OSError:  # the process ended, or is not ours to read
            continue
    return False


def flush_tree(folder: Path) -> None:
    """Make every file under ``folder`` durable."""
    if _syncfs(folder):
        return
    for path in folder.rglob("*"):
        if path.is_file() and path.stat().st_nlink == 1:  # linked files are on disk already
            fsync_file(path)


def _syncfs(folder: Path) -> bool:
    """``syncfs(2)`` on the file system holding ``folder``; False where it is missing or
    fails (then the caller syncs file by file)."""
    try:
        syncfs = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return False
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        return bool(syncfs(descriptor) == 0)
    finally:
        os.close(descriptor)


def _exchange(a: Path, b: Path) -> bool:
    try:
        # The running program's own symbols include the C library's; find_library would
        # run ldconfig in a subprocess, a fork of this (large) process.
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    done = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return bool(done == 0)
