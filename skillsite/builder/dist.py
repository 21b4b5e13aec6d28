"""Writing ``dist/`` safely: one build at a time, all or nothing.

A build writes into a temporary folder beside ``dist/`` and swaps it in at the end (with
one atomic ``renameat2(RENAME_EXCHANGE)`` where Linux offers it, else two renames), so a
reader sees the old or the new ``dist/``, never half of one, and a build that fails or is
killed leaves the old one untouched. An advisory lock beside ``dist/`` keeps two builds
from writing at once; the kernel releases it when a build dies, however it dies.
"""
from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import shutil
from pathlib import Path
from typing import IO

from skillsite.errors import SkillsiteError
from skillsite.store.manifest import fsync_file

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


class BuildLocked(SkillsiteError):
    """Another build holds the lock on the same ``dist/``."""


class BuildLock:
    """An exclusive, non-blocking lock on ``.<dist>.lock`` beside ``dist``."""

    def __init__(self, dist: Path) -> None:
        self.path = dist.parent / f".{dist.name}.lock"
        self.handle: IO[str] | None = None

    def __enter__(self) -> BuildLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+", encoding="utf-8")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            if exc.errno in (errno.EWOULDBLOCK, errno.EACCES):
                raise BuildLocked(f"another skillsite build ({holder}) is writing to "
                                  f"{self.path.parent / self.path.name[1:-5]}; wait for it "
                                  "to finish, or build into another folder with -o") from None
            raise
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}")
        handle.flush()
        self.handle = handle
        return self

    def __exit__(self, *exc: object) -> None:
        if self.handle:
            self.handle.close()  # closing releases the lock


def temp_dir(dist: Path) -> Path:
    """A fresh work folder beside ``dist``; leftovers of killed builds are removed first."""
    for stale in dist.parent.glob(f".{dist.name}.tmp-*"):
        shutil.rmtree(stale, ignore_errors=True)
    for stale in dist.parent.glob(f".{dist.name}.old-*"):
        shutil.rmtree(stale, ignore_errors=True)
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
    """Make ``work`` the new ``dist`` and delete the old one."""
    for path in work.rglob("*"):
        if path.is_file() and path.stat().st_nlink == 1:  # linked files are on disk already
            fsync_file(path)
    if dist.exists() and _exchange(work, dist):
        shutil.rmtree(work, ignore_errors=True)  # work now holds the old dist
        return
    old = dist.parent / f".{dist.name}.old-{os.getpid()}"
    if dist.exists():
        os.rename(dist, old)
    os.rename(work, dist)
    shutil.rmtree(old, ignore_errors=True)


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
