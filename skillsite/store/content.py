"""The content store, ``content/``: each skill's sections, metadata and files.

SQLite files keyed by skill name, so a reader in a fresh process fetches one skill with one
indexed lookup instead of loading the catalog, and never parses Markdown. The store is split
into :data:`SHARDS` files (``content/07.sqlite``; the shard is fixed by the name's hash, see
:func:`shard_of`) so an incremental build rewrites only the shards whose skills changed.

Tables, the same in every shard:

- ``skills(name, terms, path, format, sha256, title, description, meta, body, sections,
  files)``, one row per skill:

  - ``name`` is the skill's id (``[<collection>/][<plugin>:]<name>``);
  - ``terms`` is empty: the ranking record is in ``content/hits.db``
    (:mod:`skillsite.store.hits`), where one statement reads a search's candidates;
  - ``meta`` is JSON with the catalog record plus ``title``, ``intents``, ``applies_to``,
    ``compatibility``, ``headings``, ``links``, the skill's own fields (``metadata``), and
    the lint ``warnings`` and ``errors`` of its file (``[line, column, rule, message]``
    each);
  - ``body`` is the text of every section, joined by a blank line;
  - ``sections`` is JSON, one ``[heading, level, start_line, end_line, offset, length]``
    per section, where ``body[offset:offset + length]`` is the section's text and the line
    numbers are lines of the skill's file (of the generated body for ``.skill.toml`` and
    ``skill.json``);
  - ``files`` is a JSON list of the supporting files, relative to the corpus root.
- ``files(name, path, size, sha256, data)``, the skill's own file and its supporting files,
  verbatim, so that ``dist/`` can serve them without the corpus: ``path`` is relative to the
  skill's folder (``SKILL.md``, ``references/FORMS.md``; a ``.skill.toml`` or Mini-A page
  is its own file name). Only files inside the skill's folder are kept, never through a
  symlink out of the corpus root; ``data`` (and ``sha256``) are NULL for a file over the
  size cap (``max-file-size``) or past the per-skill total (see
  :mod:`skillsite.builder.file_rows`), which is then only listed.
- ``info(key, value)``: ``format_version`` (1, restarted with artifact 1.0).

One row per skill, the body stored once and sections as offsets into it, is five times
faster to write than a row per section, and a third smaller.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from skillsite.entries import SECTION_SEPARATOR, Section, SkillEntry
from skillsite.store.catalog import catalog_entry

CONTENT_VERSION = 1
#: A reader maps this much of a shard (all: tens of MB), not a read() per page: half the time
#: of a record on an overflow page. Safe: a build never rewrites a published shard in place.
MMAP_BYTES = 1 << 30
_SCHEMA = """
CREATE TABLE IF NOT EXISTS skills (
    name TEXT PRIMARY KEY, terms TEXT NOT NULL DEFAULT '', path TEXT NOT NULL,
    format TEXT NOT NULL, sha256 TEXT NOT NULL, title TEXT NOT NULL, description TEXT NOT NULL,
    meta TEXT NOT NULL, body TEXT NOT NULL, sections TEXT NOT NULL, files TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    name TEXT NOT NULL, path TEXT NOT NULL, size INTEGER NOT NULL, sha256 TEXT, data BLOB,
    PRIMARY KEY (name, path));
CREATE TABLE IF NOT EXISTS info (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
_COLUMNS = "name, path, format, sha256, title, description, meta, body, sections, files, terms"


def meta_of(entry: SkillEntry, warnings: list[list[Any]] | None = None,
            errors: list[list[Any]] | None = None,
            summary: dict[str, Any] | None = None, *,
            trust: dict[str, Any] | None = None) -> dict[str, Any]:
    return {**catalog_entry(entry, summary, trust=trust), "title": entry.title,
            "intents": list(entry.intents),
            "applies_to": list(entry.applies_to), "compatibility": entry.compatibility,
            "headings": list(entry.headings), "links": list(entry.links),
            "metadata": entry.metadata, "warnings": warnings or [], "errors": errors or []}


SHARDS = 64
#: Skills buffered before a batch write: bounds the writer's memory at any corpus size.
FLUSH_EVERY = 2000

#: One skill's row of the ``skills`` table.
ContentRow = tuple[str, str, str, str, str, str, str, str, str, str, str]
#: One row of the ``files`` table: (name, path, size, sha256, data).
FileRow = tuple[str, str, int, str | None, bytes | None]


def row_of(entry: SkillEntry, warnings: list[list[Any]] | None = None,
           errors: list[list[Any]] | None = None,
           summary: dict[str, Any] | None = None, *,
           trust: dict[str, Any] | None = None) -> ContentRow:
    """What the store holds of ``entry``, as a row ready to insert (made in workers); its
    ``terms`` are empty (see the ``terms`` column)."""
    spans = []
    offset = 0
    for s in entry.sections:
        spans.append([s.heading, s.level, s.start_line, s.end_line, offset, len(s.text)])
        offset += len(s.text) + len(SECTION_SEPARATOR)
    return (entry.key, entry.path, entry.format, entry.sha256, entry.title,
            entry.description, _json(meta_of(entry, warnings, errors, summary, trust=trust)),
            entry.body,
            _json(spans),
            _json(list(entry.files)), "")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


@lru_cache(maxsize=1 << 16)
def shard_of(name: str) -> str:
    """The shard file that holds skill ``name``: stable across builds and machines."""
    number = int.from_bytes(hashlib.sha1(name.encode("utf-8")).digest()[:2], "big")
    return f"{number % SHARDS:02d}.sqlite"


class ContentStore:
    """Read or write the store in ``folder``, as a context manager (writes commit on exit).
    A shard hard-linked to the previous build is copied before its first write."""

    def __init__(self, folder: Path, *, write: bool = False) -> None:
        self.folder = folder
        self.write = write
        self.open_shards: dict[str, sqlite3.Connection] = {}
        self.pending: dict[str, list[ContentRow]] = {}
        self.pending_files: dict[str, list[FileRow]] = {}
        self.pending_skills = 0
        if write:
            folder.mkdir(parents=True, exist_ok=True)

    def _shard(self, name: str) -> sqlite3.Connection | None:
        return self._connect(shard_of(name))

    def _connect(self, shard: str) -> sqlite3.Connection | None:
        if shard in self.open_shards:
            return self.open_shards[shard]
        path = self.folder / shard
        if not self.write:
            if not path.is_file():
                return None
            db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
            db.execute(f"PRAGMA mmap_size={MMAP_BYTES}")  # see MMAP_BYTES
        else:
            unshare(path)
            db = sqlite3.connect(path, isolation_level=None)
            db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + _SCHEMA)
            db.execute("INSERT OR REPLACE INTO info VALUES ('format_version', ?)",
                       (str(CONTENT_VERSION),))
            db.execute("BEGIN")
        self.open_shards[shard] = db
        return db

    def __enter__(self) -> ContentStore:
        return self

    def __exit__(self, kind: object, *rest: object) -> None:
        if self.write and kind is None:
            self._flush()
        for db in self.open_shards.values():
            if self.write:
                db.execute("COMMIT" if kind is None else "ROLLBACK")
            db.close()
        self.open_shards.clear()

    def put(self, entry: SkillEntry) -> None:
        """Add a skill that is not in the store (delete an older version first)."""
        self.put_row(row_of(entry))

    def put_row(self, row: ContentRow) -> None:
        """Add a skill from its :func:`row_of`. Rows are written in batches per shard,
        at the latest when the store closes."""
        self.pending.setdefault(shard_of(row[0]), []).append(row)
        self.pending_skills += 1
        if self.pending_skills >= FLUSH_EVERY:
            self._flush()

    def put_files(self, rows: list[FileRow]) -> None:
        """Add a skill's files (after :meth:`put_row`), written with the rows."""
        for row in rows:
            self.pending_files.setdefault(shard_of(row[0]), []).append(row)

    def _flush(self) -> None:
        for shard in sorted(self.pending.keys() | self.pending_files.keys()):
            db = self._connect(shard)
            assert db is not None
            db.executemany(f"INSERT INTO skills ({_COLUMNS}) VALUES "
                           "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", self.pending.get(shard, []))
            db.executemany("INSERT INTO files VALUES (?, ?, ?, ?, ?)",
                           self.pending_files.get(shard, []))
        self.pending.clear()
        self.pending_files.clear()
        self.pending_skills = 0

    def delete(self, name: str) -> None:
        self._flush()  # a pending put of ``name`` must go too
        db = self._shard(name)
        assert db is not None
        db.execute("DELETE FROM skills WHERE name = ?", (name,))
        db.execute("DELETE FROM files WHERE name = ?", (name,))

    def _shards(self) -> list[tuple[str, sqlite3.Connection]]:
        shards = sorted(p.name for p in self.folder.glob("*.sqlite"))
        return [(shard, db) for shard in shards if (db := self._connect(shard)) is not None]

    def names(self) -> list[str]:
        return sorted(row[0] for _, db in self._shards()
                      for row in db.execute("SELECT name FROM skills"))

    def _rows(self, name: str, query: str) -> list[tuple[Any, ...]]:
        db = self._shard(name)
        return db.execute(query, (name,)).fetchall() if db is not None else []

    def record(self, name: str) -> tuple[Any, ...] | None:
        """The ``skills`` row of ``name`` (columns as in the module docstring), or None."""
        return self.records([name]).get(name)

    def records(self, names: list[str], *, bodies: bool = True) -> dict[str, tuple[Any, ...]]:
        """:meth:`record` of many names, one query per shard; without ``bodies``, only the
        columns up to ``meta``."""
        return self._select(names, _COLUMNS if bodies else _COLUMNS[:_COLUMNS.index(", body")])

    def ranking_records(self, names: list[str]) -> dict[str, str]:
        """The ``terms`` of the skills of ``names`` that exist, by name (empty: see the
        ``terms`` column)."""
        return {name: row[1] for name, row in self._select(names, "name, terms").items()}

    def _select(self, names: list[str], columns: str) -> dict[str, tuple[Any, ...]]:
        by_shard: dict[str, list[str]] = {}
        for name in names:
            by_shard.setdefault(shard_of(name), []).append(name)
        found = {}
        for shard, wanted in by_shard.items():
            db = self._connect(shard)
            if db is not None:
                marks = ", ".join("?" * len(wanted))
                for row in db.execute(f"SELECT {columns} FROM skills WHERE name IN ({marks})",
                                      wanted):
                    found[row[0]] = row
        return found

    def file_rows(self, name: str) -> list[tuple[str, int, str | None, bool]]:
        """(path, size, sha256, stored) of each of the skill's files, by path."""
        try:
            rows = self._rows(name, "SELECT path, size, sha256, data IS NOT NULL FROM files "
                                    "WHERE name = ? ORDER BY path")
        except sqlite3.OperationalError:  # a store of format 2 keeps no files
            return []
        return [(path, size, sha, bool(stored)) for path, size, sha, stored in rows]

    def file_data(self, name: str, path: str) -> bytes | None:
        """The bytes of the skill's file ``path``, or None when not stored."""
        db = self._shard(name)
        if db is None:
            return None
        try:
            row = db.execute("SELECT data FROM files WHERE name = ? AND path = ?",
                             (name, path)).fetchone()
        except sqlite3.OperationalError:
            return None
        return bytes(row[0]) if row and row[0] is not None else None

    def meta(self, name: str) -> dict[str, Any] | None:
        rows = self._rows(name, "SELECT meta FROM skills WHERE name = ?")
        return json.loads(rows[0][0]) if rows else None

    def sections(self, name: str) -> list[Section]:
        rows = self._rows(name, "SELECT body, sections FROM skills WHERE name = ?")
        if not rows:
            return []
        body, spans = rows[0]
        return [Section(heading, level, start, end, body[offset:offset + length])
                for heading, level, start, end, offset, length in json.loads(spans)]

    def files(self, name: str) -> list[str]:
        rows = self._rows(name, "SELECT files FROM skills WHERE name = ?")
        return list(json.loads(rows[0][0])) if rows else []

    def site_parts(self, shard: str) -> dict[str, tuple[Any, ...]]:
        """What the catalog site takes of each skill of ``shard`` (two queries): name ->
        (title, metadata, headings, supporting files, (path, sha256) of each file whose
        bytes were kept)."""
        db = self._connect(shard)
        if db is None:
            return {}
        kept: dict[str, list[tuple[str, str]]] = {}
        try:
            for name, path, digest in db.execute(
                    "SELECT name, path, sha256 FROM files WHERE data IS NOT NULL "
                    "AND sha256 IS NOT NULL ORDER BY name, path"):
                kept.setdefault(name, []).append((path, digest))
        except sqlite3.OperationalError:  # a store of format 2 keeps no files
            pass
        parts: dict[str, tuple[Any, ...]] = {}
        for name, meta, files in db.execute("SELECT name, meta, files FROM skills"):
            found = json.loads(meta)
            metadata = found.get("metadata")
            parts[name] = (str(found.get("title") or ""),
                           metadata if isinstance(metadata, dict) else {},
                           [str(h) for h in found.get("headings") or []],
                           list(json.loads(files)), kept.get(name, []))
        return parts

    def dump(self) -> Iterator[tuple[Any, ...]]:
        """Every row in a stable order: two stores with equal dumps hold the same content."""
        rows = [row for shard, db in self._shards()
                for row in db.execute(f"SELECT {_COLUMNS} FROM skills")]
        yield from sorted(rows)
        files = [row for _, db in self._shards() for row in db.execute("SELECT * FROM files")]
        yield from sorted(files)


def unshare(path: Path) -> None:
    """Give ``path`` its own copy if it is hard-linked to another file."""
    if path.is_file() and path.stat().st_nlink > 1:
        private = path.with_suffix(".tmp")
        shutil.copyfile(path, private)
        os.replace(private, path)
