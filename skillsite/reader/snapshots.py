"""Answering from one ``dist/`` at a time while builds swap it under a running reader.

A build swaps in the new ``dist/`` with one atomic rename and deletes the old folder at
once. A long-lived Library opens files lazily, so it could meet the new build's files under
the old manifest (half of each) or find the old ones gone. It therefore answers from a
:class:`Snapshot` (manifest, content shelf, index finder, graph, groups), and each
operation runs on one snapshot, its session's (:mod:`skillsite.reader.session`), for its
whole run: a manifest that changed since (a new build) gives a new snapshot first, and an
operation that still meets a damaged file because the swap came while it ran is run once
more, on the new snapshot. Files are hashed on first use
(:meth:`~skillsite.reader.artifacts.Artifacts.require`), so a new file is never read under
an old manifest.
"""
from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from skillsite.reader.artifacts import MANIFEST, Artifacts
from skillsite.reader.errors import ReaderError
from skillsite.reader.finder import Finder
from skillsite.reader.neighbours import Graph, load_graph
from skillsite.reader.semantic import Semantic
from skillsite.reader.shelf import Shelf
from skillsite.store.groups import GROUPS

Identity = tuple[int, int, int]
R = TypeVar("R")


def manifest_identity(dist: Path) -> Identity | None:
    """(inode, mtime, size) of ``dist/manifest.json``: every build writes a new one."""
    try:
        info = os.stat(dist / MANIFEST)
    except OSError:
        return None
    return (info.st_ino, info.st_mtime_ns, info.st_size)


class Snapshot:
    """The artifacts of one build and the readers over them."""

    def __init__(self, dist: Path, verify: bool, hash_on_read: bool = True) -> None:
        self.identity = manifest_identity(dist)  # taken first: a later swap is then seen
        self.artifacts = Artifacts(dist, hash_on_read=hash_on_read)
        if verify:
            self.artifacts.verify_or_raise()
        self.shelf = Shelf(self.artifacts)
        self.finder = Finder(self.artifacts, self.shelf)
        self.semantic = Semantic(self.artifacts)
        self._graph: Graph | None = None
        self._groups: dict[str, Any] | None = None
        self._lock = threading.Lock()

    def graph(self) -> Graph:
        with self._lock:
            if self._graph is None:
                self._graph = load_graph(self.artifacts)
            return self._graph

    def groups(self) -> dict[str, Any]:
        """``groups.json``: the plugins and collections of ``dist/`` (read once)."""
        with self._lock:
            if self._groups is None:
                self._groups = _read_groups(self.artifacts)
            return self._groups


class Snapshots:
    """The current snapshot of ``dist``."""

    def __init__(self, dist: Path, verify: bool, hash_on_read: bool = True) -> None:
        self.dist = dist
        self.verify = verify
        self.hash_on_read = hash_on_read
        self.current = Snapshot(dist, verify, hash_on_read)
        self._lock = threading.Lock()

    def fresh(self) -> Snapshot:
        """The snapshot of the build ``dist`` holds now (the current one, unless a new
        build was swapped in and reads well)."""
        identity = manifest_identity(self.dist)
        if identity is not None and identity != self.current.identity:
            with self._lock:
                if identity != self.current.identity:
                    # An unreadable new build: keep answering from the old one.
                    with contextlib.suppress(ReaderError):
                        self.current = Snapshot(self.dist, self.verify, self.hash_on_read)
        return self.current

    def run(self, operation: Callable[[Snapshot], R]) -> R:
        """``operation`` on the fresh snapshot; run once more on the next one when it met
        a damaged file because a new build was swapped in meanwhile."""
        for attempt in (1, 2):
            pinned = self.fresh()
            try:
                return operation(pinned)
            except ReaderError as error:
                swapped = manifest_identity(self.dist) != pinned.identity
                if attempt == 2 or error.code != "damaged-dist" or not swapped:
                    raise
        raise AssertionError("unreachable")


def _read_groups(artifacts: Artifacts) -> dict[str, Any]:
    if not artifacts.listed(GROUPS):
        return {}
    path = artifacts.require(GROUPS)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise artifacts.damaged(GROUPS, f"cannot be read ({error})") from None
    return data if isinstance(data, dict) else {}
