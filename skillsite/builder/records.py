"""One file's record in the build cache: what it produced, what it depended on, and
whether that still holds (:func:`revalidated`).

A record is reused only while the file's size, mtime and inode are unchanged (or, when they
changed, its bytes are not) and every folder it depended on (its skill folder, the folders
of its link targets) has the same mtime.
"""
from __future__ import annotations

import hashlib
import marshal
import os
import stat
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from skillsite.builder.changes import file_state
from skillsite.config import Config
from skillsite.entries import SkillEntry
from skillsite.linter.listings import racy
from skillsite.linter.schema import SCHEMA_DIR
from skillsite.models import Problem
from skillsite.version import __version__

CACHE_VERSION = 16

Dependency = tuple[str, Any]  # (absolute folder path, its state: see dependency_state)


#: marshal's version for the fields kept as bytes: version 2 has no back-references, so
#: the bytes depend on the values alone (not on reference counts).
BLOB_VERSION = 2


def blob(value: Any) -> bytes:
    """``value`` as a field of :class:`Cached` kept as bytes (see :data:`BLOB_VERSION`)."""
    return marshal.dumps(value, BLOB_VERSION)


_NO_DEPS = blob([])


class Cached(NamedTuple):
    """One file's result, as stored: enough to rebuild the catalog and graph without it.
    (A tuple: an incremental build loads 100k of them.)

    The stat, dependencies and graph input, which a build reads for the few files it
    checks again (or for all of them only on a slower path), are kept as marshal's
    bytes (``*_blob``) and decoded when read (:attr:`stat`, :attr:`deps`,
    :attr:`graph`): loading the cache unmarshals 100k bytes objects instead of their
    lists. Made with :meth:`of`."""

    #: :attr:`stat`, as bytes.
    stat_blob: bytes
    problems: list[list[Any]]
    #: The file's :class:`~skillsite.linter.rules.corpus.SkillRecord`, as a plain tuple.
    record: tuple[Any, ...] | None
    is_skill: bool
    #: :attr:`deps`, as bytes.
    deps_blob: bytes = _NO_DEPS
    #: The skill's name and format when the file makes a catalog entry, else None.
    name: str | None = None
    format: str | None = None
    #: :attr:`graph`, as bytes; None when the file makes no catalog entry.
    graph_blob: bytes | None = None
    fingerprint: str | None = None
    #: False for a Markdown page that turned out not to be a skill.
    found: bool = True
    #: The catalog record as compact JSON, so the catalog file is joined, not re-encoded.
    catalog_json: str | None = None
    #: Of the file's bytes, when it parsed: a changed stat with the same bytes is no change.
    sha256: str | None = None

    @classmethod
    def of(cls, stat: list[int], problems: list[list[Any]], record: tuple[Any, ...] | None,
           is_skill: bool, deps: list[Dependency] | None = None, *, name: str | None = None,
           format: str | None = None,
           graph: tuple[list[str], list[str], list[str]] | None = None,
           fingerprint: str | None = None, found: bool = True,
           catalog_json: str | None = None, sha256: str | None = None) -> Cached:
        """A record of these values (the stat, dependencies and graph input encoded)."""
        return cls(blob(stat), problems, record, is_skill,
                   blob(deps) if deps else _NO_DEPS, name, format,
                   None if graph is None else blob(graph), fingerprint, found,
                   catalog_json, sha256)

    @property
    def stat(self) -> list[int]:
        """(size, mtime, inode) of the file: see :func:`stat_key`."""
        return marshal.loads(self.stat_blob)

    @property
    def deps(self) -> list[Dependency]:
        """The folders (and supporting files) the result depended on, with their state
        (see :func:`dependency_state`). Decoded at each read: read it once per record."""
        return marshal.loads(self.deps_blob)

    @property
    def graph(self) -> tuple[list[str], list[str], list[str]] | None:
        """What the graph needs besides name, format and path: (tags, depends_on, links)."""
        return None if self.graph_blob is None else marshal.loads(self.graph_blob)

    def with_stat(self, stat: list[int]) -> Cached:
        """This record with another stat."""
        return self._replace(stat_blob=blob(stat))

    def graph_input(self, path: str) -> dict[str, Any]:
        """The skill's input to :func:`skillsite.builder.graph.build_graph`."""
        graph = self.graph
        assert graph is not None
        tags, depends_on, links = graph
        return {"name": self.name, "format": self.format, "path": path, "tags": tags,
                "depends_on": depends_on, "links": links}


def fingerprint_config(config: Config, backend: str, root: Path, semantic: str = "") -> str:
    """Changes to any of these invalidate every cached result. The corpus root is one:
    the cache's stat index describes that folder, so another corpus built into the same
    ``dist/`` (even a copy with the same mtimes) must not be taken for it. ``semantic``
    is the embedding model's version ("" without the extra): with another model, every
    skill is embedded again."""
    schemas = sorted((p.name, p.read_bytes()) for p in SCHEMA_DIR.glob("*.json"))
    blob = repr((__version__, CACHE_VERSION, config, backend, str(root), schemas,
                 namespace_markers(root), semantic)).encode()
    return hashlib.sha256(blob).hexdigest()


#: Folders looked at for namespace markers (the root's, then the first and second levels
#: below it while there are no more than this many): a flat corpus of 100k skill folders
#: stops at the root's, which keeps the check cheap.
MARKED_FOLDERS = 500


def namespace_markers(root: Path) -> list[tuple[str, Any]]:
    """What decides the namespaces of many skills at once: the plugin manifests of the
    root and of the folders one and two levels below it (``plugins/<name>/``), and which
    top-level folders are git work trees (collections). When one appears, goes or
    changes, ids may change, so the cache is not reused. (A plugin deeper down is
    watched by its own skills once it exists.)"""
    levels = [[""]]
    for _ in range(2):
        below: list[str] = []
        for parent in levels[-1]:
            below += [f"{parent}/{name}".lstrip("/") for name in
                      _folders(os.path.join(root, parent), MARKED_FOLDERS - len(below))]
            if len(below) > MARKED_FOLDERS:
                break
        if len(below) > MARKED_FOLDERS:
            break
        levels.append(below)
    markers: list[tuple[str, Any]] = []
    for depth, folders in enumerate(levels):
        for folder in folders:
            for name in (".claude-plugin/marketplace.json", ".claude-plugin/plugin.json",
                         *((".git",) if depth == 1 else ())):
                try:
                    info = os.stat(os.path.join(root, folder, name))
                except OSError:
                    continue
                markers.append((f"{folder}/{name}", 0 if name == ".git" else info.st_mtime_ns))
    return markers


def _folders(path: str, limit: int) -> list[str]:
    """The sub-folders of ``path``, sorted; at most ``limit`` + 1 of them (more means
    too many: the listing stops there)."""
    found: list[str] = []
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False) and entry.name not in (".git",
                                                                              "node_modules"):
                    found.append(entry.name)
                    if len(found) > limit:
                        break
    except OSError:
        return []
    return sorted(found)


def stat_key(path: Path | str) -> list[int]:
    """(size, mtime, inode) of a file; all zero when its mtime is too recent to trust
    (see :func:`~skillsite.linter.discover.racy`), so that the next build compares its bytes."""
    info = os.stat(path)
    if racy(info.st_mtime_ns, time.time_ns()):
        return [0, 0, 0]
    return [info.st_size, info.st_mtime_ns, info.st_ino]


def dependency_state(folder: str, mtimes: Mapping[str, int] | None = None) -> Any:
    """What a dependency looks like now. A folder: its mtime, or the hash of its entries'
    names while the mtime is too recent to trust. A regular file (a supporting file whose
    bytes the store keeps): :func:`~skillsite.builder.changes.file_state` of its mtime,
    or its sha256 while too recent. None if it does not exist. ``mtimes`` are folders'
    mtimes the discovery walk has just read."""
    mtime = mtimes.get(folder) if mtimes else None
    if mtime is None:
        try:
            info = os.stat(folder)
        except OSError:
            return None
        if stat.S_ISREG(info.st_mode):
            if racy(info.st_mtime_ns, time.time_ns()):
                return ["sha256", _file_sha256(folder)]
            return file_state(info.st_mtime_ns)
        if not stat.S_ISDIR(info.st_mode):
            return True
        mtime = info.st_mtime_ns
    if racy(mtime, time.time_ns()):
        return ["names", _names_hash(folder)]
    return mtime


def _names_hash(folder: str) -> str:
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return ""
    return hashlib.sha1("\0".join(names).encode("utf-8", "surrogateescape")).hexdigest()


def _dependency_unchanged(folder: str, state: Any, mtimes: Mapping[str, int]) -> bool:
    if isinstance(state, list) and state[0] == "sha256":  # a racy file: compare its bytes
        return os.path.isfile(folder) and _file_sha256(folder) == state[1]
    if isinstance(state, list):  # a racy folder: compare its names
        return _names_hash(folder) == state[1] if os.path.isdir(folder) else False
    return dependency_state(folder, mtimes) == state


def revalidated(cached: Cached, path: Path | str, mtimes: Mapping[str, int]) -> Cached | None:
    """``cached`` if it still describes the file at ``path`` (a copy with the new stat if
    only that changed: a touched or copied file with the same bytes), else None.
    ``mtimes`` as for :func:`dependency_state`."""
    try:
        info = os.stat(path)
        # A stored stat was not racy when stored, so an equal one is not racy now.
        if [info.st_size, info.st_mtime_ns, info.st_ino] != cached.stat:
            if cached.sha256 is None or _file_sha256(path) != cached.sha256:
                return None
            cached = cached.with_stat(stat_key(path))
    except OSError:
        return None
    return cached if dependencies_unchanged(cached.deps, mtimes) else None


def dependencies_unchanged(deps: list[Dependency], mtimes: Mapping[str, int]) -> bool:
    """Whether every folder of ``deps`` (a record's :attr:`Cached.deps`) looks as it
    did; ``mtimes`` as for :func:`dependency_state`."""
    for folder, state in deps:  # after a walk, this runs for every file
        if mtimes.get(folder, _UNSEEN) != state \
                and not _dependency_unchanged(folder, state, mtimes):
            return False
    return True


_UNSEEN = object()  # a folder the walk did not visit: look at it


def _file_sha256(path: Path | str) -> str:
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def content_fingerprint(entry: SkillEntry) -> str:
    """Equal for two entries whose stored content is equal: an entry is made from its
    file's bytes, its path and its folder's files, and nothing else."""
    blob = "\0".join([entry.sha256, entry.path, *entry.files])
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def problem_rows(problems: list[Problem], key: str) -> list[list[Any]]:
    """``problems`` of the file ``key`` as stored: a problem found in another file of the
    skill (a bundled script, a reference) keeps that file's path as a sixth item."""
    return [[p.line, p.column, p.rule, p.severity, p.message,
             *([p.path] if p.path != key else [])] for p in problems]
