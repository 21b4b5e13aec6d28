"""The content store as the reader sees it: one skill per indexed lookup, per thread.

SQLite connections may not be shared between threads, so each thread that asks gets its
own read-only :class:`~skillsite.store.content.ContentStore` and
:class:`~skillsite.store.hits.HitStore` (the MCP server calls the Library from worker
threads). Files are checked against the manifest before first use.
"""
from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import PurePosixPath
from typing import Any

from skillsite.reader.artifacts import Artifacts
from skillsite.store.content import ContentStore, shard_of
from skillsite.store.hits import DELTA_FILE, HITS_FILE, HitStore

CONTENT = "content"
HITS = f"{CONTENT}/{HITS_FILE}"
HITS_DELTA = f"{CONTENT}/{DELTA_FILE}"


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
class Hit:
    """What a search hit shows of a skill."""

    name: str
    format: str
    title: str
    description: str
    tags: tuple[str, ...]
    bare: str               # the name part of the id (``access`` of ``telegram:access``)


@dataclass(frozen=True)
class Listing:
    """A skill's row of the content store without its body: what filters read."""

    name: str
    path: str
    format: str
    sha256: str
    title: str
    description: str
    meta: dict[str, Any]

    @property
    def tags(self) -> tuple[str, ...]:
        return tuple(self.meta.get("tags", ()))

    @property
    def bare(self) -> str:
        """The name part of the id: without its ``<collection>/`` and ``<plugin>:``."""
        collection, plugin = self.meta.get("collection"), self.meta.get("plugin")
        prefix = (f"{collection}/" if collection else "") + (f"{plugin}:" if plugin else "")
        return self.name[len(prefix):] if prefix and self.name.startswith(prefix) else self.name


@dataclass(frozen=True)
class StoredSkill(Listing):
    """One skill's row of the content store."""

    body: str
    sections: str                   # JSON; parsed on first use (ranking never needs it)
    files_json: str
    terms: str = ""                 # the ranking record (older dist/: JSON or "")

    @cached_property
    def spans(self) -> tuple[Span, ...]:
        return tuple(Span(number, *span) for number, span in enumerate(json.loads(self.sections)))

    @cached_property
    def files(self) -> tuple[str, ...]:
        """Supporting files, relative to the corpus root."""
        return tuple(json.loads(self.files_json))

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
        return _skill(row) if row is not None else None

    def listings(self, names: list[str]) -> dict[str, tuple[Listing, int]]:
        """The skills of ``names`` that exist, without their bodies, and the characters
        each row held: one query per shard."""
        return {name: (Listing(name, path, kind, sha, title, description, json.loads(meta)),
                       len(path) + len(title) + len(description) + len(meta))
                for name, (_, path, kind, sha, title, description, meta)
                in self._many(names, _without_bodies).items()}

    def ranking_records(self, names: list[str]) -> dict[str, str]:
        """The ranking records of the skills of ``names`` that exist, by name."""
        hits = self._hit_store()
        return {name: terms for name, terms in self._hit_rows(hits, names, "name, terms")}

    def hits(self, names: list[str]) -> dict[str, tuple[Hit, int]]:
        """What a search hit shows of the skills of ``names`` that exist, and the
        characters each row held."""
        hits = self._hit_store()
        return {name: (Hit(name, kind, title, description, tuple(json.loads(tags)), bare),
                       len(title) + len(description) + len(tags) + len(bare))
                for name, kind, title, description, tags, bare
                in self._hit_rows(hits, names, "name, format, title, description, tags, bare")}

    def ids_named(self, bare: str) -> list[str]:
        """The ids of the skills called ``bare`` (one indexed lookup in the hits file)."""
        hits = self._hit_store()
        try:
            return hits.ids_named(bare)
        except sqlite3.DatabaseError as error:
            raise self.artifacts.damaged(HITS, f"cannot be read ({error})") from None

    def _hit_store(self) -> HitStore:
        """This thread's hits file."""
        store: HitStore | None = getattr(self._local, "hits", None)
        if store is None:
            path = self.artifacts.require(HITS)
            # The delta the manifest lists, checked as hits.db is: never one it does not.
            layered = self.artifacts.listed(HITS_DELTA)
            if layered:
                self.artifacts.require(HITS_DELTA)
            try:
                store = self._local.hits = HitStore(path, layered=layered)
            except sqlite3.DatabaseError as error:
                raise self.artifacts.damaged(HITS, f"cannot be opened ({error})") from None
        return store

    def _hit_rows(self, hits: HitStore, names: list[str], columns: str
                  ) -> list[tuple[Any, ...]]:
        try:
            return list(hits.rows(names, columns).values())
        except sqlite3.DatabaseError as error:
            raise self.artifacts.damaged(HITS, f"cannot be read ({error})") from None

    def _many(self, names: list[str], read: Callable[[ContentStore, list[str]], dict[str, Any]]
              ) -> dict[str, Any]:
        store = self._store(names[0]) if names else None
        for shard in {shard_of(name) for name in names}:
            if self.artifacts.listed(f"{CONTENT}/{shard}"):
                self.artifacts.require(f"{CONTENT}/{shard}")
        try:
            return read(store, names) if store is not None else {}
        except sqlite3.DatabaseError as error:
            raise self.artifacts.damaged(CONTENT, f"cannot be read ({error})") from None

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


def _without_bodies(store: ContentStore, names: list[str]) -> dict[str, tuple[Any, ...]]:
    return store.records(names, bodies=False)


def _skill(row: tuple[Any, ...]) -> StoredSkill:
    name, path, kind, sha, title, description, meta, body, sections, files, terms = row
    return StoredSkill(name, path, kind, sha, title, description, json.loads(meta), body,
                       sections, files, terms)
