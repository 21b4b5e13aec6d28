"""``catalog.json``: the compact, published listing of every skill in ``dist/``.

About 50-100 tokens a skill: enough for an agent to choose, never a body. Its schema is
``schemas/catalog.schema.json``. Descriptions are kept exactly as written.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from skillsite.entries import SkillEntry

CATALOG_VERSION = 1  # restarted with artifact 1.0: records have an ``id``


NO_PROBLEMS: dict[str, Any] = {"errors": 0, "warnings": 0, "rules": []}


def catalog_entry(entry: SkillEntry, problems: dict[str, Any] | None = None, *,
                  trust: dict[str, Any] | None = None) -> dict[str, Any]:
    """The catalog's record of one skill; ``problems`` sums its file's lint problems
    (``errors``, ``warnings``, ``rules``), and ``trust`` is its trust assessment
    (``{"level", "summary", "reasons", "capabilities"}``, see ``linter/trust.py``)."""
    record: dict[str, Any] = {
        "id": entry.key,
        "name": entry.name,
        "description": entry.description,
        "format": entry.format,
        "path": entry.path,
        "tags": list(entry.tags),
        "version": entry.version,
        "depends_on": list(entry.depends_on),
        "sha256": entry.sha256,
        "problems": problems or NO_PROBLEMS,
    }
    if entry.plugin:
        record["plugin"] = entry.plugin
    if entry.collection:
        record["collection"] = entry.collection
    if trust is not None:
        record["trust"] = trust
    return record


def record_json(record: dict[str, Any] | list[Any]) -> str:
    """One record as the catalog file holds it: compact JSON."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def render_catalog(records: Iterable[str], *, plugins: list[dict[str, Any]] | None = None,
                   collections: list[dict[str, Any]] | None = None) -> bytes:
    """The catalog file's bytes from records already in :func:`record_json` form and in
    path order: joined, not re-encoded, which matters at 100k skills. ``plugins`` and
    ``collections`` are the groups (see :mod:`skillsite.store.groups`)."""
    head, tail = _around_records(plugins, collections)
    return (head + ",".join(records) + tail).encode("utf-8")


def _around_records(plugins: list[dict[str, Any]] | None,
                    collections: list[dict[str, Any]] | None) -> tuple[str, str]:
    """What the catalog file holds before its records and after them."""
    return (f'{{"version":{CATALOG_VERSION},"skills":[',
            f'],"plugins":{record_json(plugins or [])},'
            f'"collections":{record_json(collections or [])}}}')


#: Records joined and encoded at a time when the catalog file is written.
WRITE_BATCH = 4096


def write_catalog(records: Iterable[str], path: Path, *,
                  plugins: list[dict[str, Any]] | None = None,
                  collections: list[dict[str, Any]] | None = None,
                  write: Callable[[Path, Iterable[bytes]], None] | None = None) -> None:
    """Write :func:`render_catalog`'s bytes a batch of records at a time: at 100k skills,
    the whole file as one string and again as bytes was the build's peak of memory.
    ``write`` takes the path and the parts instead (the build writes on a thread)."""
    parts = _catalog_parts(records, plugins, collections)
    if write is not None:
        write(path, parts)
        return
    with path.open("wb") as out:
        for part in parts:
            out.write(part)


def _catalog_parts(records: Iterable[str], plugins: list[dict[str, Any]] | None,
                   collections: list[dict[str, Any]] | None) -> Iterator[bytes]:
    head, tail = _around_records(plugins, collections)
    records = iter(records)
    yield head.encode("utf-8")
    separator = ""
    while batch := list(islice(records, WRITE_BATCH)):
        yield (separator + ",".join(batch)).encode("utf-8")
        separator = ","
    yield tail.encode("utf-8")
