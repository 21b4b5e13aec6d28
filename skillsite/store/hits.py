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

A build writes the file next to the shards. The previous ``dist/`` holds a hard link to
it, so an incremental build that changes it must copy it first (172 MB at 100k skills),
then hash it for the manifest and flush it to disk: more than the rest of a one-skill
rebuild's writing. So while the previous file is large (:data:`DELTA_FROM_BYTES`) and
few skills changed since it was written (:data:`DELTA_NAMES`), a build leaves it as it
is and writes the changes to ``content/hits-delta.db`` instead: the same ``hits`` table
with the rows added or changed since, and ``gone(name)``, the ids whose row in
``hits.db`` no longer counts (every id of the delta's ``hits`` is among them). A reader
attaches the delta, and its one statement reads both. A build with more changes copies
``hits.db`` (on a thread, from the change that outgrows the delta; the changes wait in
memory until the file is needed, at the store's close, so that the kernel copies while
the build goes on), folds the delta into it, and leaves no delta.
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
DELTA_FILE = "hits-delta.db"
#: A previous ``hits.db`` at least this large is left as it is while the changes since it
#: fit in a delta (about 10k skills): a smaller one costs less to copy than a second file
#: costs its readers.
DELTA_FROM_BYTES = 16 << 20
#: At most this many ids in a delta (a changed skill counts once): beyond, it is folded.
DELTA_NAMES = 1000
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
_DELTA_SCHEMA = _SCHEMA + "CREATE TABLE IF NOT EXISTS gone (name TEXT PRIMARY KEY) WITHOUT ROWID;\n"
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
    """Read or write ``content/hits.db`` with its delta (see the module docstring), as a
    context manager (writes commit on exit). A reader attaches the delta when
    ``layered`` (by default: when the file exists)."""

    def __init__(self, path: Path, *, write: bool = False, layered: bool | None = None) -> None:
        self.path = path
        self.delta = path.with_name(DELTA_FILE)
        self.write = write
        #: Rows to insert and (as a str) names to delete, in order, not yet written.
        self.pending: list[HitRow | str] = []
        self._deleting = False  # a name to delete is in ``pending``
        self._copy: _Copy | None = None
        self._db: sqlite3.Connection | None = None
        #: A writer's choice, made at its first change: True writes the changes to the
        #: delta, False into ``hits.db`` (None: not made yet).
        self._to_delta: bool | None = None
        self._changed: set[str] = set()  # the ids changed, while they may fit in a delta
        self._room = -1
        #: The schemas of the connection that hold ``hits.db`` and the delta (None: none).
        self._base, self._over = "main", None if write else "delta"
        #: A reader's delta's ids (at most :data:`DELTA_NAMES`): rows of other ids are
        #: read from ``hits.db`` alone.
        self._gone: frozenset[str] | None = None
        if not write:
            self._db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
            self._db.execute(f"PRAGMA mmap_size={MMAP_BYTES}")
            if layered if layered is not None else self.delta.is_file():
                self._db.execute("ATTACH DATABASE ? AS delta",
                                 (f"file:{self.delta}?mode=ro&immutable=1",))
                self._gone = frozenset(name for (name,) in self._db.execute(
                    "SELECT name FROM delta.gone"))
            else:
                self._over = None

    def _changing(self, name: str) -> None:
        """Before each change (of the skill ``name``): once the changes outgrow a delta,
        the copy of a file shared with the previous build starts."""
        if self._to_delta is False or self._copy is not None or self._db is not None:
            return  # (once the file written is open, the choice holds)
        if self._to_delta is None:
            self._room = self._delta_room()
        self._changed.add(name)
        self._to_delta = len(self._changed) <= self._room
        if not self._to_delta and self.path.is_file() and self.path.stat().st_nlink > 1:
            self._copy = _Copy(self.path)

    def _delta_room(self) -> int:
        """How many ids a delta beside the previous ``hits.db`` may take (-1: none may
        be written, the file is new or this build's own)."""
        try:
            info = self.path.stat()
        except OSError:
            return -1
        if info.st_nlink < 2 or info.st_size < DELTA_FROM_BYTES:
            return -1
        return DELTA_NAMES - _count_gone(self.delta)

    @property
    def db(self) -> sqlite3.Connection:
        """The connection; a writer opens (and copies) the file it writes when a change
        must be written, so a build that changes no skill leaves the previous build's
        files linked."""
        if self._db is None:
            if self._to_delta:
                self._db = self._open(self.delta, _DELTA_SCHEMA)
                self._db.execute("ATTACH DATABASE ? AS base",
                                 (f"file:{self.path}?mode=ro&immutable=1",))
                self._base, self._over = "base", "main"
            else:
                if self._copy is not None:
                    self._copy.finish()
                self._db = self._open(self.path, _SCHEMA)
                self._fold_delta(self._db)
            self._db.execute("BEGIN")
        return self._db

    def _open(self, path: Path, schema: str) -> sqlite3.Connection:
        unshare(path)  # never write through a hard link to the previous build's file
        db = sqlite3.connect(path, isolation_level=None)
        db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + schema)
        db.execute("INSERT OR REPLACE INTO info VALUES ('format_version', ?)",
                   (str(HITS_VERSION),))
        return db

    def _fold_delta(self, db: sqlite3.Connection) -> None:
        """Apply the previous build's delta to ``hits.db`` (a copy of its own), and remove
        it: this build leaves none."""
        if not self.delta.is_file():
            return
        db.execute("ATTACH DATABASE ? AS delta", (f"file:{self.delta}?mode=ro", ))
        db.execute("DELETE FROM hits WHERE name IN (SELECT name FROM delta.gone)")
        db.execute(f"INSERT INTO hits ({COLUMNS}) SELECT {COLUMNS} FROM delta.hits")
        db.execute("DETACH DATABASE delta")
        self.delta.unlink()

    def put(self, row: HitRow) -> None:
        """Add a skill that is not in the store (delete an older version first)."""
        self._changing(row[0])
        self.pending.append(row)
        if len(self.pending) >= BATCH:
            self._flush()

    def delete(self, name: str) -> None:
        """Remove a skill (a pending put of ``name`` goes too: the order is kept)."""
        self._changing(name)
        self.pending.append(name)
        self._deleting = True
        if len(self.pending) >= BATCH:
            self._flush()

    def _flush(self) -> None:
        if not self.pending:
            return
        db = self.db
        insert = f"INSERT INTO hits ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)"
        deleting = ["DELETE FROM hits WHERE name = ?"]
        if self._over == "main":  # the delta: a row of hits.db with the same id is void
            insert = insert.replace("INSERT", "INSERT OR REPLACE")
            deleting.append("INSERT OR IGNORE INTO gone VALUES (?)")
            db.executemany("INSERT OR IGNORE INTO gone VALUES (?)",
                           [(item[0],) for item in self.pending if not isinstance(item, str)])
        if not self._deleting:
            db.executemany(insert, self.pending)
        else:
            rows: list[HitRow | str] = []
            for item in self.pending:
                if isinstance(item, str):
                    if rows:
                        db.executemany(insert, rows)
                        rows = []
                    for statement in deleting:
                        db.execute(statement, (item,))
                else:
                    rows.append(item)
            if rows:
                db.executemany(insert, rows)
        self.pending.clear()
        self._deleting = False

    def _select(self, columns: str, where: str,
                names: list[str] | None = None) -> tuple[str, int]:
        """A statement reading ``columns`` of the rows that match ``where`` from both
        files (from ``hits.db`` alone when the rows are those of ``names`` and the delta
        has none of them), and how many times ``where``'s parameters are to be given."""
        if self._over is None or (names is not None and self._gone is not None
                                  and self._gone.isdisjoint(names)):
            return f"SELECT {columns} FROM {self._base}.hits WHERE {where}", 1
        return (f"SELECT {columns} FROM {self._base}.hits WHERE {where} AND name NOT IN "
                f"(SELECT name FROM {self._over}.gone) "
                f"UNION ALL SELECT {columns} FROM {self._over}.hits WHERE {where}"), 2

    def rows(self, names: list[str], columns: str = COLUMNS) -> dict[str, tuple[Any, ...]]:
        """The rows of the skills of ``names`` that exist, by name: ``columns`` of them,
        the first of which must be ``name``."""
        self._flush()
        found = {}
        for start in range(0, len(names), BATCH):
            wanted = names[start:start + BATCH]
            statement, times = self._select(columns, f"name IN ({', '.join('?' * len(wanted))})",
                                            wanted)
            for row in self.db.execute(statement, wanted * times):
                found[row[0]] = row
        return found

    def ids_named(self, bare: str) -> list[str]:
        """The ids of the skills whose name is ``bare``, sorted: one indexed lookup in
        each file."""
        self._flush()
        statement, times = self._select("name", "bare = ?")
        return sorted(row[0] for row in self.db.execute(statement, [bare] * times))

    def dump(self) -> Iterator[tuple[Any, ...]]:
        """Every row, by name: two stores with equal dumps hold the same hits."""
        self._flush()
        statement, times = self._select(COLUMNS, "1")
        yield from self.db.execute(f"SELECT * FROM ({statement}) ORDER BY name")

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


def _count_gone(delta: Path) -> int:
    """The ids a delta holds (0 without one; a damaged one counts as full: folded)."""
    if not delta.is_file():
        return 0
    try:
        db = sqlite3.connect(f"file:{delta}?mode=ro", uri=True)
        try:
            return int(db.execute("SELECT count(*) FROM gone").fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error:
        return DELTA_NAMES + 1
