"""The content store as the reader sees it: one skill per indexed lookup, per thread.

SQLite connections may not be shared between threads, so each thread that asks gets its
own read-only :class:`~skillsite.store.content.ContentStore` (the MCP server calls the
Library from worker threads). Shards are checked against the manifest before first use.
"""
from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from skillsite.reader.artifacts import Artifacts
from skillsite.store.content import ContentStore, shard_of

CONTENT = "content"


@dataclass(frozen=True)
class Span:
    """One section of a stored body: ``body[offset:offset + length]``."""

    index: int
    heading: str
    level: int
    start_line: int
    end_line: int
    offset: int
    length: int


@dataclass(frozen=True)
class StoredSkill:
    name: str
    path: str
    format: str
    sha256: str
    title: str
    description: str
    meta: dict[str, Any]
    body: str
    spans: tuple[Span, ...]
    files: tuple[str, ...]          # supporting files, relative to the corpus root

    @property
    def folder(self) -> str:
        """The skill's folder, relative to the corpus root ("" at the root)."""
        parent = str(PurePosixPath(self.path).parent)
        return "" if parent == "." else parent

    def local(self, corpus_path: str) -> str:
        """A corpus-relative path made relative to the skill's folder."""
        prefix = self.folder + "/" if self.folder else ""
        return corpus_path[len(prefix):] if corpus_path.startswith(prefix) else corpus_path

    def text(self, span: Span) -> str:
        return self.body[span.offset:span.offset + span.length]

    @property
    def lines(self) -> int:
        return max((s.end_line for s in self.spans), default=0)


class Shelf:
    """Thread-safe lookups in ``dist/content/``."""

    def __init__(self, artifacts: Artifacts) -> None:
        self.artifacts = artifacts
        self.folder = artifacts.dist / CONTENT
        self._local = threading.local()

    def _store(self, name: str) -> ContentStore:
        shard = f"{CONTENT}/{shard_of(name)}"
        if self.artifacts.listed(shard):
            self.artifacts.require(shard)
        store: ContentStore | None = getattr(self._local, "store", None)
        if store is None:
            store = self._local.store = ContentStore(self.folder)
        return store

    def get(self, name: str) -> StoredSkill | None:
        """The skill called exactly ``name``, or None."""
        try:
            row = self._store(name).record(name)
        except sqlite3.DatabaseError as error:
            raise self._damaged(name, error) from None
        if row is None:
            return None
        name, path, kind, sha, title, description, meta, body, sections, files = row
        spans = tuple(Span(number, *span) for number, span in enumerate(json.loads(sections)))
        return StoredSkill(name, path, kind, sha, title, description, json.loads(meta), body,
                           spans, tuple(json.loads(files)))

    def files(self, name: str) -> list[tuple[str, int, str | None, bool]]:
        """(path in the skill's folder, size, sha256, stored) of its stored files."""
        try:
            return self._store(name).file_rows(name)
        except sqlite3.DatabaseError as error:
            raise self._damaged(name, error) from None

    def file_data(self, name: str, path: str) -> bytes | None:
        try:
            return self._store(name).file_data(name, path)
        except sqlite3.DatabaseError as error:
            raise self._damaged(name, error) from None

    def names(self) -> list[str]:
        """Every skill name, sorted (reads every shard: cache the answer)."""
        for relative in self.artifacts.files:
            if relative.startswith(CONTENT + "/"):
                self.artifacts.require(relative)
        try:
            with ContentStore(self.folder) as store:
                return store.names()
        except sqlite3.DatabaseError as error:
            raise self.artifacts.damaged(CONTENT, f"cannot be read ({error})") from None

    def _damaged(self, name: str, error: Exception) -> Exception:
        return self.artifacts.damaged(f"{CONTENT}/{shard_of(name)}", f"cannot be read ({error})")
