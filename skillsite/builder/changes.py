"""What changed since the previous build, found with stats alone, in helper processes.

Most of an incremental build of a large corpus goes into asking the file system whether
anything changed: a stat per folder (did a file come, go or get renamed?) and a stat per
skill file (was it edited?). The previous build leaves a :class:`StatIndex` of both;
:class:`BackgroundScan` compares the tree against it in two forked processes while the build
loads the rest of its cache, and sends back only what differs.

The index is only written after a walk that recorded every folder of the corpus (see
``Listings.complete``): then, when no folder's mtime moved, the files are the very same
paths as before, and only those whose stat moved need a second look.
"""
from __future__ import annotations

import marshal
import mmap
import os
import signal
import stat
from array import array
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, NamedTuple

from skillsite.linter.children import die_with_parent

FOLDER_GONE = -1


class Supporting(NamedTuple):
    """The supporting files whose bytes the content store keeps, each with the key of the
    skill file that depends on it (an edit in place rechecks that skill alone instead of
    walking the tree again) and its state (:func:`file_state`). Three lists in one order,
    not a dict: 115k paths at 100k skills, which the build's start would otherwise hash
    as it loads them."""

    paths: list[str]
    owners: list[str]
    states: array[int]

    @classmethod
    def of(cls, entries: dict[str, tuple[str, int]]) -> Supporting:
        """From path -> (owner, state)."""
        return cls(list(entries), [owner for owner, _ in entries.values()],
                   array("q", (state for _, state in entries.values())))

    def as_dict(self) -> dict[str, tuple[str, int]]:
        return dict(zip(self.paths, zip(self.owners, self.states, strict=True), strict=True))


@dataclass
class StatIndex:
    """Every folder's mtime and every file's (size, mtime, inode), as the last build saw
    them. ``outside`` are the folders the skills depend on that the walk does not cover,
    with their state, and ``supporting`` the files they depend on (see
    :class:`Supporting`). ``foreign`` are the keys of the files that depend on a folder
    outside their own folder (a link's target): a folder that moved concerns only the
    files in it or above it, and these."""

    root: str = ""
    folders: list[str] = field(default_factory=list)
    folder_mtimes: array[int] = field(default_factory=lambda: array("q"))
    keys: list[str] = field(default_factory=list)
    file_stats: array[int] = field(default_factory=lambda: array("q"))  # 3 per key
    outside: dict[str, int] = field(default_factory=dict)
    supporting: Supporting = field(default_factory=lambda: Supporting([], [], array("q")))
    foreign: list[str] = field(default_factory=list)

    def shape_bytes(self) -> bytes:
        """Everything but the stats: what a one-skill change leaves as it was (31 MB at
        100k skills, against 4 MB of stats), so that its file is kept, not written."""
        return marshal.dumps((self.root, self.folders, self.keys, self.outside,
                              self.supporting.paths, self.supporting.owners, self.foreign))

    def values_bytes(self) -> bytes:
        """The folders' mtimes, the files' stats and the supporting files' states, as the
        arrays hold them."""
        return marshal.dumps((self.folder_mtimes.tobytes(), self.file_stats.tobytes(),
                              self.supporting.states.tobytes()))

    def same_shape(self, other: StatIndex) -> bool:
        """Whether :meth:`shape_bytes` of the two are equal."""
        # (The tables an updated index keeps are its previous one's: compared as such.)
        return (self.root == other.root and _same(self.folders, other.folders)
                and _same(self.keys, other.keys) and _same(self.outside, other.outside)
                and _same(self.supporting.paths, other.supporting.paths)
                and _same(self.supporting.owners, other.supporting.owners)
                and self.foreign == other.foreign)

    @classmethod
    def from_parts(cls, shape: bytes | mmap.mmap, values: bytes | mmap.mmap) -> StatIndex:
        root, folders, keys, outside, paths, owners, foreign = marshal.loads(shape)
        mtimes, stats, states = marshal.loads(values)
        supporting = Supporting(paths, owners, array("q"))
        supporting.states.frombytes(states)
        index = cls(root, folders, array("q"), keys, array("q"), outside, supporting, foreign)
        index.folder_mtimes.frombytes(mtimes)
        index.file_stats.frombytes(stats)
        if len(index.folder_mtimes) != len(folders) or len(index.file_stats) != 3 * len(keys) \
                or not len(paths) == len(owners) == len(supporting.states):
            raise ValueError("stat index is inconsistent")
        return index

    def to_bytes(self) -> bytes:
        """Both parts in one blob (see :meth:`from_bytes`)."""
        return marshal.dumps((self.shape_bytes(), self.values_bytes()))

    @classmethod
    def from_bytes(cls, blob: bytes) -> StatIndex:
        return cls.from_parts(*marshal.loads(blob))


def _same(a: object, b: object) -> bool:
    return a is b or a == b


#: More changed folders than this and the build walks the whole tree again.
MAX_CHANGED_FOLDERS = 1000


@dataclass(frozen=True)
class Scan:
    #: No folder changed: the files are the previous build's.
    tree_unchanged: bool
    #: The keys of the files whose stat moved (or that are gone).
    changed: frozenset[str] = frozenset()
    #: The folders whose mtime moved (or that are gone), when there are only a few and
    #: nothing outside the walk changed; None when the whole tree must be walked again.
    changed_folders: tuple[str, ...] | None = None


def file_state(mtime_ns: int) -> int:
    """A regular file's state as a dependency: its mtime, stored below
    :data:`FOLDER_GONE` so that it can never equal a folder's."""
    return FOLDER_GONE - 1 - mtime_ns


def folder_state(path: str) -> int:
    """A folder's mtime, a regular file's :func:`file_state` (a supporting file the
    content store keeps), or :data:`FOLDER_GONE`."""
    try:
        info = os.stat(path)
    except OSError:
        return FOLDER_GONE
    if stat.S_ISREG(info.st_mode):
        return file_state(info.st_mtime_ns)
    return info.st_mtime_ns if stat.S_ISDIR(info.st_mode) else FOLDER_GONE


def scan(index: StatIndex) -> Scan:
    """Compare the tree with ``index``."""
    return _scan(changed_folders(index), changed_files(index))


def _scan(folders: list[str] | None, files: list[str]) -> Scan:
    if folders == []:
        return Scan(True, frozenset(files), ())
    return Scan(False, frozenset(files), None if folders is None else tuple(folders))


def changed_folders(index: StatIndex) -> list[str] | None:
    """The folders whose mtime moved or that are gone; None if there are more than
    :data:`MAX_CHANGED_FOLDERS`, or a folder outside the walk changed."""
    if not index.folders or any(folder_state(path) != state
                                for path, state in index.outside.items()):
        return None
    changed = []
    for folder, mtime in zip(index.folders, index.folder_mtimes, strict=True):
        try:
            moved = os.stat(folder).st_mtime_ns != mtime
        except OSError:
            moved = True
        if moved:
            changed.append(folder)
            if len(changed) > MAX_CHANGED_FOLDERS:
                return None
    return changed


def changed_files(index: StatIndex) -> list[str]:
    """The keys of the files whose stat moved (or that are gone), and of the skill files
    whose supporting files did."""
    return _moved_keys(index) + _moved_owners(index, 0, 1)


def _moved_keys(index: StatIndex) -> list[str]:
    """The keys of the files whose stat moved (or that are gone)."""
    prefix = os.path.join(index.root, "")
    stats = iter(index.file_stats)
    changed = []
    for key, size, mtime, inode in zip(index.keys, stats, stats, stats, strict=True):
        try:
            info = os.stat(prefix + key)
        except OSError:
            changed.append(key)
            continue
        if info.st_mtime_ns != mtime or info.st_size != size or info.st_ino != inode:
            changed.append(key)
    return changed


def _moved_owners(index: StatIndex, start: int, step: int) -> list[str]:
    """The skill files whose supporting files moved, of every ``step``-th supporting
    file from ``start``."""
    paths, owners, states = index.supporting
    return [owner for path, owner, state in zip(islice(paths, start, None, step),
                                                 islice(owners, start, None, step),
                                                 islice(states, start, None, step), strict=True)
            if folder_state(path) != state]


def _folders_and_half_the_owners(index: StatIndex) -> tuple[list[str] | None, list[str]]:
    """One helper's half of :func:`scan`: the other has the files and the other half of
    the supporting files (at 100k skills, 183k folders against 100k files and 115k
    supporting files: each half then takes about as long)."""
    return changed_folders(index), _moved_owners(index, 0, 2)


def _files_and_half_the_owners(index: StatIndex) -> list[str]:
    return _moved_keys(index) + _moved_owners(index, 1, 2)


class BackgroundScan:
    """:func:`scan` in two forked child processes, one for the folders and one for the
    files, each with half the supporting files; :meth:`result` waits for them. Where fork
    is unavailable, or a child fails, the scan runs in this process instead."""

    def __init__(self, index: StatIndex) -> None:
        self.index = index
        self.children: list[tuple[int, int]] = []  # (pid, read end of its pipe)
        if not hasattr(os, "fork") or not index.folders:
            return
        for job in (_folders_and_half_the_owners, _files_and_half_the_owners):
            child = _fork(job, index)
            if child is None:
                break
            self.children.append(child)

    def cancel(self) -> None:
        """Stop the helpers and reap them, without their reports."""
        for pid, reader in self.children:
            with suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            with suppress(OSError):
                os.close(reader)
            with suppress(ChildProcessError):
                os.waitpid(pid, 0)
        self.children = []

    def result(self) -> Scan:
        reports = [_collect(*child) for child in self.children]
        if len(reports) != 2 or any(report is _FAILED for report in reports):
            return scan(self.index)
        (folders, owners), files = reports
        return _scan(folders, files + owners)


def _fork(job: Callable[[StatIndex], Any], index: StatIndex) -> tuple[int, int] | None:
    reader, writer = os.pipe()
    parent = os.getpid()
    try:
        pid = os.fork()
    except OSError:
        os.close(reader)
        os.close(writer)
        return None
    if pid == 0:  # the child: run, report, and leave without any cleanup of its own
        code = 1
        try:
            die_with_parent(parent)
            os.close(reader)
            with os.fdopen(writer, "wb") as pipe:
                pipe.write(marshal.dumps(job(index)))
            code = 0
        finally:
            os._exit(code)
    os.close(writer)
    return pid, reader


_FAILED = object()


def _collect(pid: int, reader: int) -> Any:
    """A child's report, or :data:`_FAILED`."""
    with os.fdopen(reader, "rb") as pipe:
        blob = pipe.read()
    _, status = os.waitpid(pid, 0)
    try:
        return marshal.loads(blob) if os.waitstatus_to_exitcode(status) == 0 else _FAILED
    except (ValueError, TypeError, EOFError):
        return _FAILED
