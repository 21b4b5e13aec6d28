"""``content/hits.db``: what a search reads of each skill, all skills in one SQLite file.

A search ranks about 30 candidates and shows about 10. In the 64 content shards those rows
sit in as many files, so reading them took one statement per shard, about 15 µs each on
the benchmark machine, and half of a warm search's time at 100k skills. Here one statement
reads them all.

One table, ``hits(name, terms, format, title, description, tags, bare)``, one row per
skill: ``name`` is the skill's id, ``terms`` its ranking record
(:mod:`skillsite.index.ranking_record`), ``tags`` a JSON list, and ``bare`` the name
part of the id, indexed, so that a bare name resolves to its ids with one lookup. The
other columns are what a search hit shows. Pages are 16 kB, so that rows of about 2 kB pack instead
of spilling onto
overflow pages. ``info(key, value)`` holds ``format_version`` (1).

A build writes the file next to the shards. An incremental build copies it before its
first change, since the previous ``dist/`` holds a hard link to it: the copy (172 MB at
100k skills) starts on a thread at the first change, and the changes wait in memory until
the file is needed (the store's close, at the end of the build's check), so that the
kernel copies while the build goes on.
"""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path
from typing import Any

from skillsite.store.content import MMAP_BYTES, unshare

HITS_FILE = "hits.db"
HITS_VERSION = 1
PAGE_BYTES = 16384
#: Rows buffered before a batch write, and names asked for in one statement.
BATCH = 2000
_SCHEMA = f"""
PRAGMA page_size={PAGE_BYTES};
CREATE TABLE IF NOT EXISTS hits (
    name TEXT PRIMARY KEY, terms TEXT NOT NULL, format TEXT NOT NULL, title TEXT NOT NULL,
    description TEXT NOT NULL, tags TEXT NOT NULL, bare TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS hits_bare ON hits (bare);
CREATE TABLE IF NOT EXISTS info (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
COLUMNS = "name, terms, format, title, description, tags, bare"

#: One skill's row: (id, terms, format, title, description, tags as JSON, bare name).
HitRow = tuple[str, str, str, str, str, str, str]


def hit_row(name: str, terms: str, format: str, title: str, description: str,
            tags: list[str], bare: str = "") -> HitRow:
    """A skill's row, ready to insert (made in build workers); ``name`` is its id and
    ``bare`` its name."""
    return (name, terms, format, title, description,
            json.dumps(tags, ensure_ascii=False, separators=(",", ":")), bare or name)


class _Copy:
    """``path`` copied to ``path.tmp`` on a thread (copying releases the interpreter
    lock); :meth:`finish` waits and puts the copy in its place."""

    def __init__(self, path: Path) -> None:
        self.path, self.copy = path, path.with_suffix(".tmp")
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="skillsite-unshare",
                                       daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            shutil.copyfile(self.path, self.copy)
        except BaseException as error:  # raised again by finish, in the build's thread
            self.error = error

    def finish(self) -> None:
        self.thread.join()
        if self.error is not None:
            raise self.error
        os.replace(self.copy, self.path)

    def abandon(self) -> None:
        self.thread.join()
        self.copy.unlink(missing_ok=True)


class HitStore:
    """Read or write ``content/hits.db``, as a context manager (writes commit on exit)."""

    def __init__(self, path: Path, *, write: bool = False) -> None:
        self.path = path
        self.write = write
        #: Rows to insert and (as a str) names to delete, in order, not yet written.
        self.pending: list[HitRow | str] = []
        self._deleting = False  # a name to delete is in ``pending``
        self._copy: _Copy | None = None
        self._db: sqlite3.Connection | None = None
        if not write:
            self._db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
            self._db.execute(f"PRAGMA mmap_size={MMAP_BYTES}")

    def _changing(self) -> None:
        """A first change: a file shared with the previous build starts to be copied."""
        if (self._db is None and self._copy is None and self.path.is_file()
                and self.path.stat().st_nlink > 1):
            self._copy = _Copy(self.path)

    @property
    def db(self) -> sqlite3.Connection:
        """The connection; a writer opens (and copies) the file when a change must be
        written, so a build that changes no skill leaves the previous build's file
        linked."""
        if self._db is None:
            if self._copy is not None:
                self._copy.finish()
            else:
                unshare(self.path)
            self._db = sqlite3.connect(self.path, isolation_level=None)
            self._db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                                   + _SCHEMA)
            self._db.execute("INSERT OR REPLACE INTO info VALUES ('format_version', ?)",
                             (str(HITS_VERSION),))
            self._db.execute("BEGIN")
        return self._db

    def put(self, row: HitRow) -> None:
        """Add a skill that is not in the store (delete an older version first)."""
        self._changing()
        self.pending.append(row)
        if len(self.pending) >= BATCH:
            self._flush()

    def delete(self, name: str) -> None:
        """Remove a skill (a pending put of ``name`` goes too: the order is kept)."""
        self._changing()
        self.pending.append(name)
        self._deleting = True
        if len(self.pending) >= BATCH:
            self._flush()

    def _flush(self) -> None:
        if not self.pending:
            return
        insert = f"INSERT INTO hits ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)"
        if not self._deleting:
            self.db.executemany(insert, self.pending)
        else:
            rows: list[HitRow | str] = []
            for item in self.pending:
                if isinstance(item, str):
                    if rows:
                        self.db.executemany(insert, rows)
                        rows = []
                    self.db.execute("DELETE FROM hits WHERE name = ?", (item,))
                else:
                    rows.append(item)
            if rows:
                self.db.executemany(insert, rows)
        self.pending.clear()
        self._deleting = False

    def rows(self, names: list[str], columns: str = COLUMNS) -> dict[str, tuple[Any, ...]]:
        """The rows of the skills of ``names`` that exist, by name: ``columns`` of them,
        the first of which must be ``name``."""
        self._flush()
        found = {}
        for start in range(0, len(names), BATCH):
            wanted = names[start:start + BATCH]
            marks = ", ".join("?" * len(wanted))
            for row in self.db.execute(f"SELECT {columns} FROM hits WHERE name IN ({marks})",
                                       wanted):
                found[row[0]] = row
        return found

    def ids_named(self, bare: str) -> list[str]:
        """The ids of the skills whose name is ``bare``, sorted: one indexed lookup."""
        self._flush()
        return sorted(row[0] for row in self.db.execute(
            "SELECT name FROM hits WHERE bare = ?", (bare,)))

    def dump(self) -> Iterator[tuple[Any, ...]]:
        """Every row, by name: two stores with equal dumps hold the same hits."""
        self._flush()
        yield from self.db.execute(f"SELECT {COLUMNS} FROM hits ORDER BY name")

    def close(self, commit: bool = False) -> None:
        try:
            if self.write and commit:
                self._flush()
        except BaseException:
            commit = False  # (a full disk: SQLite may have rolled back already)
            raise
        finally:
            if self._db is not None:
                if self.write and commit:
                    self._db.execute("COMMIT")
                elif self.write:
                    with suppress(sqlite3.Error):
                        self._db.execute("ROLLBACK")
                self._db.close()
            elif self._copy is not None:  # nothing was written after all, or it failed
                self._copy.abandon()

    def __enter__(self) -> HitStore:
        return self

    def __exit__(self, kind: object, *rest: object) -> None:
        self.close(commit=kind is None)
