"""The start of ``skillsite build`` before the build's own modules are imported: its lock,
and the scan for changes (:class:`~skillsite.builder.cache.EarlyScan`), whose two helper
processes then compare the corpus with the previous build's stats while the build
process imports the linter, the stores and the search engine (about 0.2 s), on the core
it leaves idle meanwhile. At 100k skills the scan's 400k stats are what a one-skill
rebuild waits for first.

This module imports only what the lock and the scan need; the CLI enters :class:`Early`
and hands it to :func:`skillsite.builder.pipeline.build`, which otherwise takes both
itself.
"""
from __future__ import annotations

import gc
import os
from pathlib import Path

from skillsite.builder.cache import EarlyScan
from skillsite.builder.dist import BuildLock
from skillsite.store.manifest import read_manifest, recorded


class Early:
    """The lock on ``out`` and its scan for changes (none with ``incremental=False``),
    taken on entering, as the build would take them. Nothing is taken where the build
    refuses to start (the corpus is missing, or ``out`` is not a dist/): the build says
    why. Leaving it cancels a scan the build did not take and releases the lock."""

    def __init__(self, corpus: Path, out: Path, *, incremental: bool) -> None:
        self.corpus = corpus
        self.out = Path(os.path.realpath(out))  # as the build resolves it
        self.incremental = incremental
        self.lock: BuildLock | None = None
        self.scan = EarlyScan()
        #: What the build leaves for the process's end instead of freeing it (the previous
        #: and the new cache: millions of objects at 100k skills), see
        #: :func:`skillsite.builder.pipeline.build`.
        self.kept: tuple[object, ...] = ()
        self.collecting = False  # the collector was on when entered (see __enter__)

    def holds(self, out: Path) -> bool:
        """Whether this holds the lock of ``out`` (resolved), with the scan for it."""
        return self.lock is not None and self.out == out

    def __enter__(self) -> Early:
        if not self.corpus.is_dir() or not _a_dist_or_nothing(self.out):
            return self
        lock = BuildLock(self.out).__enter__()
        try:
            self.scan = early_scan(self.out, self.incremental)
        except BaseException:
            lock.__exit__(None, None, None)
            raise
        self.lock = lock
        # The build's modules are imported next, with the stat index loaded (a few
        # containers of 700k objects at 100k skills, which each collection that reached
        # them walked: 0.02 s over the imports); the build disables the collector too.
        self.collecting = gc.isenabled()
        gc.disable()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.collecting:
            gc.enable()
            self.collecting = False
        self.scan.cancel()
        if self.lock is not None:
            self.lock.__exit__(*exc)
            self.lock = None


def early_scan(out: Path, incremental: bool) -> EarlyScan:
    """The scan for changes, started from the previous build's stat index (see
    :class:`~skillsite.builder.cache.EarlyScan`); none for a clean build."""
    manifest = read_manifest(out) if incremental else None
    if not manifest:
        return EarlyScan()
    return EarlyScan(out, manifest.get("files", {}), recorded(out))


def _a_dist_or_nothing(out: Path) -> bool:
    """Whether ``out`` is missing, empty or a dist/ (what the build agrees to replace)."""
    try:
        return not out.exists() or (out.is_dir() and (not any(out.iterdir())
                                                       or read_manifest(out) is not None))
    except OSError:
        return False
