"""``catalog.json``: the compact, published listing of every skill in ``dist/``.

About 50-100 tokens a skill: enough for an agent to choose, never a body. Its schema is
``schemas/catalog.schema.json``. Descriptions are kept exactly as written.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

from skillsite.entries import SkillEntry

CATALOG_VERSION = 1


def catalog_entry(entry: SkillEntry) -> dict[str, Any]:
    """The catalog's record of one skill."""
    return {
        "name": entry.name,
        "description": entry.description,
        "format": entry.format,
        "path": entry.path,
        "tags": list(entry.tags),
        "version": entry.version,
        "depends_on": list(entry.depends_on),
        "sha256": entry.sha256,
    }


def record_json(record: dict[str, Any]) -> str:
    """One record as the catalog file holds it: compact JSON."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def render_catalog(records: Iterable[str]) -> bytes:
    """The catalog file's bytes from records already in :func:`record_json` form and in
    path order: joined, not re-encoded, which matters at 100k skills."""
    head = f'{{"version":{CATALOG_VERSION},"skills":['
    return (head + ",".join(records) + "]}").encode("utf-8")


def write_catalog(records: Iterable[str], path: Path) -> None:
    path.write_bytes(render_catalog(records))
