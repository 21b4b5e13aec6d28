"""Answering from one ``dist/`` at a time while builds swap it under a running reader.

A build swaps in the new ``dist/`` with one atomic rename and deletes the old folder at
once. A long-lived Library opens files lazily, so it could meet the new build's files under
the old manifest (half of each) or find the old ones gone. It therefore answers from a
:class:`Snapshot` (manifest, content shelf, index finder, graph), and each operation pins
the current snapshot for its whole run: a manifest that changed since (a new build) gives
a new snapshot first, and an operation that still meets a damaged file because the swap
came while it ran is run once more, on the new snapshot. Files are hashed on first use
(:meth:`~skillsite.reader.artifacts.Artifacts.require`), so a new file is never read under
an old manifest.
"""
from __future__ import annotations

import functools
import os
import threading
from pathlib import Path
from typing import Any, Callable, TypeVar

from skillsite.reader.artifacts import MANIFEST, Artifacts
from skillsite.reader.errors import ReaderError
from skillsite.reader.finder import Finder
from skillsite.reader.neighbours import Graph, load_graph
from skillsite.reader.shelf import Shelf

Identity = tuple[int, int, int]
F = TypeVar("F", bound=Callable[..., Any])


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
        self._graph: Graph | None = None
        self._lock = threading.Lock()

    def graph(self) -> Graph:
        with self._lock:
            if self._graph is None:
                self._graph = load_graph(self.artifacts)
            return self._graph


class Snapshots:
    """The current snapshot of ``dist``, and the one each running operation pinned."""

    def __init__(self, dist: Path, verify: bool, hash_on_read: bool = True) -> None:
        self.dist = dist
        self.verify = verify
        self.hash_on_read = hash_on_read
        self.current = Snapshot(dist, verify, hash_on_read)
        self._local = threading.local()
        self._lock = threading.Lock()

    def pinned(self) -> Snapshot:
        return getattr(self._local, "snapshot", None) or self.current

    def _fresh(self) -> Snapshot:
        identity = manifest_identity(self.dist)
        if identity is not None and identity != self.current.identity:
            with self._lock:
                if identity != self.current.identity:
                    try:
                        self.current = Snapshot(self.dist, self.verify, self.hash_on_read)
                    except ReaderError:
                        pass  # the new build is unreadable: keep answering from the old one
        return self.current

    def run(self, operation: Callable[[], Any]) -> Any:
        if getattr(self._local, "snapshot", None) is not None:
            return operation()  # called from inside another operation: same snapshot
        for attempt in (1, 2):
            pinned = self._local.snapshot = self._fresh()
            try:
                return operation()
            except ReaderError as error:
                swapped = manifest_identity(self.dist) != pinned.identity
                if attempt == 2 or error.code != "damaged-dist" or not swapped:
                    raise
            finally:
                self._local.snapshot = None


def pinned_operation(method: F) -> F:
    """Run a Library method on one snapshot (see the module docstring)."""
    @functools.wraps(method)
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        return self._snapshots.run(lambda: method(self, *args, **kwargs))
    return run  # type: ignore[return-value]


def counted(operation: str, method: F) -> F:
    """Count each call of a Library method in its caller's retrieval counters."""
    @functools.wraps(method)
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        self.retrieval.count(operation)
        return method(self, *args, **kwargs)
    return run  # type: ignore[return-value]
