"""Files of the build in progress written, and hashed for the manifest, on a thread.

Writing a file and hashing its bytes both release the interpreter lock, so the build
process goes on encoding the next file (the catalog's next records, the cache's next
shard) while the thread hands these bytes to the kernel and hashes them: at 100k skills a
one-skill rebuild writes about 100 MB (the catalog, the cache's changed parts), which the
build process paid for in full, then read back to hash for the manifest.
"""
from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import IO, Any

#: Bytes handed to the thread and not yet written, at most (more waits, though one part
#: may always wait): a clean build writes 150 MB of cache shards, 9 MB each, one after the
#: other at its peak of memory, which must not wait in memory together.
PENDING_BYTES = 8 << 20


class _File:
    """One file being written on the thread, and the sha256 of what went into it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.handle: IO[bytes] | None = None
        self.digest = hashlib.sha256()

    def open(self) -> None:
        self.path.unlink(missing_ok=True)  # never write through a hard link to the previous build
        self.handle = self.path.open("wb")

    def add(self, part: bytes) -> None:
        assert self.handle is not None
        self.handle.write(part)
        self.digest.update(part)

    def close(self) -> str:
        assert self.handle is not None
        self.handle.close()
        self.handle = None
        return self.digest.hexdigest()

    def abandon(self) -> None:
        if self.handle is not None:
            self.handle.close()


class BackgroundWriter:
    """Write files under ``root`` on one thread, in the order given (and those of
    :meth:`write_aside` on a second); :meth:`checksums` waits for them and returns their
    sha256 by path relative to ``root`` (what
    :func:`~skillsite.store.manifest.write_manifest` takes as ``known``). A context
    manager: leaving it waits for the threads, and drops what they have not started
    after an error, so that the folder can be removed."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="skillsite-writer")
        self.aside: ThreadPoolExecutor | None = None
        self.written: dict[str, Future[str]] = {}
        self.files: list[_File] = []
        self.started: list[Future[Any]] = []  # every step, so that the first error is raised
        self.pending: deque[tuple[Future[Any], int]] = deque()  # parts not known written
        self.pending_bytes = 0

    def write(self, path: Path, parts: Iterable[bytes] | bytes) -> None:
        """Write ``parts`` (made here, as the thread writes the previous ones) to
        ``path``, replacing the file there (never writing through a hard link)."""
        file = _File(path)
        self.files.append(file)
        self._submit(file.open)
        for part in [parts] if isinstance(parts, bytes) else parts:
            self.pending.append((self._submit(file.add, part), len(part)))
            self.pending_bytes += len(part)
            while self.pending_bytes > PENDING_BYTES and len(self.pending) > 1:
                done, size = self.pending.popleft()
                done.result()  # an error stops the build here
                self.pending_bytes -= size
        self.written[path.relative_to(self.root).as_posix()] = self._submit(file.close)

    def write_aside(self, path: Path, parts: Iterable[bytes]) -> None:
        """Write ``parts`` to ``path`` on a thread of its own, which also makes them (a
        generator), so that this thread goes on at once and the files of :meth:`write`
        do not wait behind it: the catalog (75 MB at 100k skills, joined, written and
        hashed) while the build writes the vectors and the cache."""
        file = _File(path)
        self.files.append(file)

        def run() -> str:
            file.open()
            for part in parts:
                file.add(part)
            return file.close()

        if self.aside is None:
            self.aside = ThreadPoolExecutor(1, thread_name_prefix="skillsite-writer-aside")
        future = self.aside.submit(run)
        self.started.append(future)
        self.written[path.relative_to(self.root).as_posix()] = future

    def _submit(self, step: Any, *args: Any) -> Future[Any]:
        future = self.pool.submit(step, *args)
        self.started.append(future)
        return future

    def checksums(self) -> dict[str, str]:
        """The sha256 of every file written, once all are on disk (the first error of
        the thread is raised here)."""
        for future in self.started:
            future.result()
        return {name: future.result() for name, future in self.written.items()}

    def __enter__(self) -> BackgroundWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        for pool in (self.pool, self.aside):
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=kind is not None)
        for file in self.files:
            file.abandon()
