"""Trusting ``dist/``: its manifest, its version, and the files a query reads.

A cold query must not hash all of ``dist/``, so :meth:`Artifacts.require` checks only
what is about to be read, once: the file exists with the size and sha256 the manifest
recorded. :meth:`Artifacts.verify` hashes every file against the manifest's sha256, for
``skillsite verify`` and for long-lived processes (``Library(dist, verify=True)``).
"""
from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillsite.reader.errors import ReaderError
from skillsite.store.manifest import file_sha256

MANIFEST = "manifest.json"
#: Threads that hash dist/ for :meth:`Artifacts.verify`.
HASHING_THREADS = min(4, os.cpu_count() or 1)
#: The artifact format major version this reader understands (any 1.x) ...
SUPPORTED_MAJOR = 1
#: ... from this minor on: 1.1's index and ranking records hold Snowball stems, and a
#: 1.0 dist's plain terms would silently miss most inflected words.
OLDEST_MINOR = 1
_REBUILD = "rebuild it with `skillsite build`"


@dataclass(frozen=True)
class Mismatch:
    """One file of ``dist/`` that does not match the manifest."""

    path: str
    problem: str            # "missing", "size" or "sha256"
    expected: str
    actual: str

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "problem": self.problem, "expected": self.expected,
                "actual": self.actual}

    def describe(self) -> str:
        if self.problem == "missing":
            return f"{self.path}: missing"
        return f"{self.path}: {self.problem} is {self.actual}, the manifest says {self.expected}"


class Artifacts:
    """The manifest of ``dist`` and cheap checks of the files it lists."""

    def __init__(self, dist: Path, *, hash_on_read: bool = True) -> None:
        self.dist = dist
        self.hash_on_read = hash_on_read
        self.manifest = _load_manifest(dist)
        files = self.manifest.get("files")
        sizes = self.manifest.get("sizes")
        self.files: dict[str, str] = files if isinstance(files, dict) else {}
        self.sizes: dict[str, int] = sizes if isinstance(sizes, dict) else {}
        self._checked: dict[str, Path] = {}  # relative path -> dist/relative, checked
        self._lock = threading.Lock()

    @property
    def backend(self) -> str:
        return str(self.manifest.get("index_backend", ""))

    def require(self, relative: str) -> Path:
        """``dist/relative``, after checking, the first time, that it exists with the
        recorded size and sha256: a truncated, corrupted or swapped file is refused before
        it is read, and only the files a query needs are hashed, once per process. Without
        ``hash_on_read`` (a one-shot CLI query) only the size is checked: hashing the
        shards a search touches costs seconds at 100k skills."""
        known = self._checked.get(relative)
        if known is not None:
            return known  # queries ask for their shards every time: no new Path then
        path = self.dist / relative
        try:
            size = os.stat(path).st_size
        except OSError:
            raise self.damaged(relative, "is missing") from None
        expected = self.sizes.get(relative)
        if expected is not None and size != expected:
            raise self.damaged(relative, f"has {size} bytes, the manifest says {expected}")
        digest = self.files.get(relative) if self.hash_on_read else None
        try:
            actual = file_sha256(path) if digest is not None else None
        except OSError:
            raise self.damaged(relative, "cannot be read") from None
        if actual != digest:
            raise self.damaged(relative, "does not match its sha256 in the manifest "
                               "(corrupted, or from another build)")
        with self._lock:
            self._checked[relative] = path
        return path

    def require_folder(self, prefix: str) -> Path:
        """Check every manifest file under ``prefix/`` (the search index)."""
        for relative in self.files:
            if relative.startswith(prefix + "/"):
                self.require(relative)
        return self.dist / prefix

    def listed(self, relative: str) -> bool:
        return relative in self.files

    def damaged(self, relative: str, what: str) -> ReaderError:
        return ReaderError("damaged-dist", f"{self.dist / relative} {what}: {self.dist} is "
                           f"damaged or incomplete; {_REBUILD}", path=relative)

    def verify(self) -> list[Mismatch]:
        """Hash every file the manifest lists; the mismatches, sorted by path. Files are
        hashed on a few threads (hashing releases the interpreter lock), and a file that
        matches is not hashed again when it is first read."""
        from concurrent.futures import ThreadPoolExecutor  # 30 ms to import: not for a cold query

        listed = sorted(self.files.items())
        with ThreadPoolExecutor(max_workers=HASHING_THREADS) as pool:
            found = [mismatch for mismatch in pool.map(self._mismatch, listed) if mismatch]
        return found

    def _mismatch(self, listed: tuple[str, str]) -> Mismatch | None:
        relative, expected = listed
        path = self.dist / relative
        try:
            size = os.stat(path).st_size
            recorded = self.sizes.get(relative)
            if recorded is not None and size != recorded:
                return Mismatch(relative, "size", str(recorded), str(size))
            actual = file_sha256(path)
        except OSError:
            return Mismatch(relative, "missing", expected, "")
        if actual != expected:
            return Mismatch(relative, "sha256", expected, actual)
        with self._lock:
            self._checked[relative] = path
        return None

    def verify_or_raise(self) -> None:
        """:meth:`verify`, failing with every mismatch in the message."""
        mismatches = self.verify()
        if mismatches:
            listing = "; ".join(m.describe() for m in mismatches[:20])
            more = f" (and {len(mismatches) - 20} more)" if len(mismatches) > 20 else ""
            raise ReaderError("damaged-dist", f"{self.dist} does not match its manifest: "
                              f"{listing}{more}; {_REBUILD}",
                              mismatches=[m.to_dict() for m in mismatches])


def _load_manifest(dist: Path) -> dict[str, Any]:
    path = dist / MANIFEST
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReaderError("not-a-dist", f"{dist} is not a skillsite dist/ (no {MANIFEST}); "
                          "build one with `skillsite build`, or pass --dist") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ReaderError("damaged-dist", f"cannot read {path}: {error}; {_REBUILD}") from None
    try:
        manifest = json.loads(text)
    except ValueError as error:
        raise ReaderError("damaged-dist", f"{path} is not valid JSON ({error}); "
                          f"{_REBUILD}") from None
    if not isinstance(manifest, dict):
        raise ReaderError("damaged-dist", f"{path} is not a JSON object; {_REBUILD}")
    _check_version(path, manifest)
    return manifest


def _check_version(path: Path, manifest: dict[str, Any]) -> None:
    version = manifest.get("artifact_version")
    major, _, minor = str(version).partition(".") if isinstance(version, str) else ("", "", "")
    if major != str(SUPPORTED_MAJOR) or not (minor.isdecimal() and int(minor) >= OLDEST_MINOR):
        built_by = manifest.get("skillsite_version", "an unknown skillsite")
        raise ReaderError("unsupported-artifact-version",
                          f"{path}: artifact_version {version!r} (built by skillsite "
                          f"{built_by}); this reader reads {SUPPORTED_MAJOR}.{OLDEST_MINOR} and "
                          f"later {SUPPORTED_MAJOR}.x; rebuild "
                          "dist/ with this skillsite (`skillsite build`)",
                          artifact_version=version)
    for key in ("index_backend", "files"):
        if key not in manifest:
            raise ReaderError("damaged-dist", f"{path} has no {key!r}; {_REBUILD}")

