"""The content store, ``content.sqlite``: each skill's sections, metadata and files.

One SQLite file, keyed by skill name, so a reader in a fresh process fetches one skill
with an indexed lookup instead of loading the catalog, and never parses Markdown.

Tables:

- ``skills(name, path, format, sha256, title, description, meta)``: ``meta`` is JSON with
  the catalog record plus ``title``, ``intents``, ``applies_to``, ``compatibility``,
  ``headings``, ``links`` and the skill's own fields (``metadata``).
- ``sections(name, ord, heading, level, start_line, end_line, text)``: line numbers are
  lines of the skill's file (of the generated body for ``.skill.toml`` and ``skill.json``).
- ``files(name, path)``: supporting files, relative to the corpus root.
- ``info(key, value)``: ``format_version``.
"""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any, Iterator

from skillsite.catalog import catalog_entry
from skillsite.entries import SkillEntry
from skillsite.index import IndexDoc
from skillsite.sections import Section

CONTENT_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS skills (
    name TEXT PRIMARY KEY, path TEXT NOT NULL, format TEXT NOT NULL, sha256 TEXT NOT NULL,
    title TEXT NOT NULL, description TEXT NOT NULL, meta TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sections (
    name TEXT NOT NULL, ord INTEGER NOT NULL, heading TEXT NOT NULL, level INTEGER NOT NULL,
    start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, text TEXT NOT NULL,
    PRIMARY KEY (name, ord)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS files (
    name TEXT NOT NULL, path TEXT NOT NULL, PRIMARY KEY (name, path)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS info (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def meta_of(entry: SkillEntry) -> dict[str, Any]:
    return {**catalog_entry(entry), "title": entry.title, "intents": list(entry.intents),
            "applies_to": list(entry.applies_to), "compatibility": entry.compatibility,
            "headings": list(entry.headings), "links": list(entry.links),
            "metadata": entry.metadata}


class ContentStore:
    """Read and write ``content.sqlite``. Use as a context manager; writes commit on exit."""

    def __init__(self, path: Path, *, write: bool = False) -> None:
        if write:
            self.db = sqlite3.connect(path, isolation_level=None)
            self.db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + _SCHEMA)
            self.db.execute("INSERT OR REPLACE INTO info VALUES ('format_version', ?)",
                            (str(CONTENT_VERSION),))
            self.db.execute("BEGIN")
        else:
            self.db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
        self.write = write

    def __enter__(self) -> ContentStore:
        return self

    def __exit__(self, kind: object, *rest: object) -> None:
        if self.write:
            self.db.execute("COMMIT" if kind is None else "ROLLBACK")
        self.db.close()

    def put(self, entry: SkillEntry) -> None:
        self.delete(entry.name)
        self.db.execute("INSERT INTO skills VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (entry.name, entry.path, entry.format, entry.sha256, entry.title,
                         entry.description, json.dumps(meta_of(entry), ensure_ascii=False,
                                                       sort_keys=True)))
        self.db.executemany("INSERT INTO sections VALUES (?, ?, ?, ?, ?, ?, ?)",
                            [(entry.name, i, s.heading, s.level, s.start_line, s.end_line,
                              s.text) for i, s in enumerate(entry.sections)])
        self.db.executemany("INSERT INTO files VALUES (?, ?)",
                            [(entry.name, f) for f in entry.files])

    def delete(self, name: str) -> None:
        for table in ("skills", "sections", "files"):
            self.db.execute(f"DELETE FROM {table} WHERE name = ?", (name,))

    def names(self) -> list[str]:
        return [row[0] for row in self.db.execute("SELECT name FROM skills ORDER BY name")]

    def meta(self, name: str) -> dict[str, Any] | None:
        row = self.db.execute("SELECT meta FROM skills WHERE name = ?", (name,)).fetchone()
        return json.loads(row[0]) if row else None

    def sections(self, name: str) -> list[Section]:
        rows = self.db.execute("SELECT heading, level, start_line, end_line, text FROM "
                               "sections WHERE name = ? ORDER BY ord", (name,))
        return [Section(*row) for row in rows]

    def files(self, name: str) -> list[str]:
        return [row[0] for row in self.db.execute(
            "SELECT path FROM files WHERE name = ? ORDER BY path", (name,))]

    def index_doc(self, name: str) -> IndexDoc | None:
        """What the search index holds of ``name``, for ranking its candidates."""
        meta = self.meta(name)
        if meta is None:
            return None
        sections = self.sections(name)
        return IndexDoc(name=name, title=meta["title"], description=meta["description"],
                        tags=tuple(meta["tags"]), intents=tuple(meta["intents"]),
                        applies_to=tuple(meta["applies_to"]),
                        compatibility=meta["compatibility"], headings=tuple(meta["headings"]),
                        body="\n\n".join(s.text for s in sections))

    def dump(self) -> Iterator[tuple[Any, ...]]:
        """Every row in a stable order: two stores with equal dumps hold the same content."""
        for table, order in (("skills", "name"), ("sections", "name, ord"),
                             ("files", "name, path"), ("info", "key")):
            yield from (( table, *row) for row in
                        self.db.execute(f"SELECT * FROM {table} ORDER BY {order}"))
