"""A clean build's cache, written by a forked child while the build writes the rest.

At 100k skills :func:`~skillsite.builder.cache.save_cache` takes the build process about
3.5 s (marshalling 100k records and 183k folder listings, and the stat index), with one
core idle: the workers are done by then. A child forked as the stores close holds the
very records the build holds (copy-on-write), writes the cache files and hashes them,
and sends back their checksums for the manifest, while the build process embeds the
vectors and writes the catalog and the graph. The files are those that
:func:`save_cache` writes in-process, byte for byte; where the child fails (or there is
no ``os.fork``), the build writes them itself.
"""
from __future__ import annotations

import hashlib
import marshal
import os
import signal
from pathlib import Path
from typing import Any

from skillsite.builder.cache import BuildCache, replace_now, save_cache

#: Below this many files the cache takes less time to write than a fork costs.
FORK_FROM = 20_000


class CacheChild:
    """The cache of ``cache`` being written into ``work`` by a forked child; a context
    manager: leaving it on an error kills the child. :meth:`checksums` waits for it."""

    def __init__(self, work: Path, config_key: str, cache: BuildCache, root: Path) -> None:
        self.args = (work, config_key, cache, root)
        self.pid = 0
        self.fd = -1
        self.sums: dict[str, str] | None = None
        read, write = os.pipe()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            os.close(read)
            _child(parent, write, *self.args)
        os.close(write)
        self.pid, self.fd = pid, read

    def checksums(self) -> dict[str, str]:
        """The sha256 of each cache file by path relative to ``work``, once written: by the
        child, or here when the child failed."""
        if self.sums is None:
            blob = bytearray()
            with os.fdopen(self.fd, "rb") as pipe:
                self.fd = -1
                while chunk := pipe.read(1 << 16):
                    blob += chunk
            _, status = os.waitpid(self.pid, 0)
            self.pid = 0
            sums = None
            if os.waitstatus_to_exitcode(status) == 0 and blob:
                try:
                    sums = marshal.loads(bytes(blob))
                except (ValueError, EOFError, TypeError):
                    sums = None
            self.sums = sums if isinstance(sums, dict) else write_cache(*self.args)
        return self.sums

    def __enter__(self) -> CacheChild:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        if self.pid:
            if kind is not None:
                os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.pid = 0
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def write_cache(work: Path, config_key: str, cache: BuildCache,
                root: Path) -> dict[str, str]:
    """:func:`save_cache` of a clean build, here and now; the sha256 of each file written."""
    sums: dict[str, str] = {}

    def put(path: Path, blob: bytes) -> None:
        replace_now(path, blob)
        sums[path.relative_to(work).as_posix()] = hashlib.sha256(blob).hexdigest()

    save_cache(work, config_key, cache, BuildCache(), root, put)
    return sums


def _child(parent: int, pipe: int, *args: Any) -> None:
    """Write the cache, send its checksums down ``pipe`` and end (exit status 1, nothing
    sent, on any failure: the parent then writes the cache itself)."""
    code = 1
    try:
        from skillsite.linter.children import die_with_parent

        die_with_parent(parent)
        blob = marshal.dumps(write_cache(*args))
        view = memoryview(blob)
        while view:
            view = view[os.write(pipe, view):]
        code = 0
    except BaseException:  # noqa: BLE001 (reported by the exit status)
        pass
    finally:
        os._exit(code)


def cache_child(work: Path, config_key: str, cache: BuildCache, root: Path
                ) -> CacheChild | None:
    """A :class:`CacheChild` for a clean build of at least :data:`FORK_FROM` files where
    ``os.fork`` is; else None (the build writes its cache in-process)."""
    if not hasattr(os, "fork") or len(cache.files) < FORK_FROM:
        return None
    try:
        return CacheChild(work, config_key, cache, root)
    except OSError:  # no process or pipe to spare: write it in-process
        return None
