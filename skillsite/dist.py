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
import hashlib
import json
import os
import shutil
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import IO, Any, Iterable

from skillsite.errors import SkillsiteError

MANIFEST = "manifest.json"
ARTIFACT_VERSION = "2.0"
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
            _fsync(path)
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


def _fsync(path: Path) -> None:
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


def file_checksums(folder: Path, previous: Path | None = None, *,
                   only: tuple[str, ...] = (), skip: Iterable[str] = (),
                   sync: bool = False) -> dict[str, str]:
    """sha256 of every file under ``folder`` but the manifest, by relative path.

    ``only`` limits it to these top-level entries, ``skip`` leaves these relative paths
    out, and ``sync`` also flushes each file that is not a hard link to the disk.
    A file that is a hard link to the same file in ``previous`` (an earlier dist) is the
    same bytes, so its checksum is taken from that dist's manifest instead of re-read.
    """
    known = (read_manifest(previous) or {}).get("files", {}) if previous else {}
    old_root = previous or folder  # only used when ``known`` has entries
    tops = [folder / name for name in only] if only else [folder]
    found = (p for top in tops for p in ([top, *top.rglob("*")] if top.is_dir() else [top]))
    leave_out = {MANIFEST, *skip}
    sums = {}
    for path in sorted(p for p in found if p.is_file()):
        relative = path.relative_to(folder).as_posix()
        if relative in leave_out:
            continue
        if relative in known and _same_file(path, old_root / relative):
            sums[relative] = known[relative]
            continue
        sums[relative] = _sha256(path)
        if sync and path.stat().st_nlink == 1:
            _fsync(path)
    return sums


def checksums_in_background(folder: Path, only: tuple[str, ...],
                            previous: Path | None = None) -> Future[dict[str, str]]:
    """:func:`file_checksums` of finished parts of a build (``sync`` on), on a thread:
    hashing releases the GIL, so the large content store and index are read while the
    build writes its other files."""
    pool = ThreadPoolExecutor(1, thread_name_prefix="skillsite-checksums")
    future = pool.submit(file_checksums, folder, previous, only=only, sync=True)
    pool.shutdown(wait=False)
    return future


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_manifest(folder: Path, fields: dict[str, Any], previous: Path | None = None,
                   known: dict[str, str] | None = None) -> None:
    """The manifest of ``folder``; ``known`` are checksums already taken."""
    known = known or {}
    files = {**file_checksums(folder, previous, skip=known), **known}
    manifest = {"artifact_version": ARTIFACT_VERSION, **fields, "files": dict(sorted(files.items()))}
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=False) + "\n",
                                   encoding="utf-8")


def read_manifest(dist: Path) -> dict[str, Any] | None:
    try:
        manifest = json.loads((dist / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) else None
