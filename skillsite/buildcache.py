"""The incremental build's memory: what each file produced, and what that depended on.

A cached result is reused only while the file's size, mtime and inode are unchanged and
every dependency it recorded (link targets, the skill folder's listing) still looks the
same; everything else is checked again. The cache lives in ``dist/build-cache.bin`` so it
always matches the artifacts beside it, and deleting it just makes the next build clean.

It is stored with :mod:`marshal` (plain values only, several times faster than JSON at
100k skills, and unlike pickle it cannot run code); it is read only when its sha256 matches
the manifest, so a damaged or edited cache is ignored rather than trusted.
"""
from __future__ import annotations

import hashlib
import marshal
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillsite import __version__
from skillsite.catalog import catalog_entry, record_json
from skillsite.checker import FileResult, display_path
from skillsite.config import Config
from skillsite.content import ContentRow, row_of
from skillsite.entries import SkillEntry, entry_of, index_doc, skill_folder
from skillsite.graph import graph_input
from skillsite.index.fields import field_texts
from skillsite.models import Document, Problem, Source
from skillsite.schema import SCHEMA_DIR

CACHE_FILE = "build-cache.bin"
CACHE_VERSION = 2

Dependency = tuple[str, Any]  # (absolute path, observed state)


@dataclass
class Cached:
    """One file's result, as stored: enough to rebuild the catalog and graph without it."""

    stat: list[int]
    problems: list[list[Any]]
    record: dict[str, Any] | None
    is_skill: bool
    deps: list[Dependency] = field(default_factory=list)
    catalog: dict[str, Any] | None = None
    graph: dict[str, Any] | None = None
    fingerprint: str | None = None
    #: False for a Markdown page that turned out not to be a skill.
    found: bool = True
    #: ``catalog`` as compact JSON, so the catalog file is joined, not re-encoded.
    catalog_json: str | None = None


def fingerprint_config(config: Config, backend: str) -> str:
    """Changes to any of these invalidate every cached result."""
    schemas = sorted((p.name, p.read_bytes()) for p in SCHEMA_DIR.glob("*.json"))
    blob = repr((__version__, CACHE_VERSION, config, backend, schemas)).encode()
    return hashlib.sha256(blob).hexdigest()


def stat_key(path: Path) -> list[int]:
    info = os.stat(path)
    return [info.st_size, info.st_mtime_ns, info.st_ino]


def dependency_state(path: str) -> Any:
    """What a dependency looks like now: a folder's mtime, or whether a file exists."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_mtime_ns if stat.S_ISDIR(info.st_mode) else True


def still_valid(cached: Cached | None, path: Path) -> bool:
    if cached is None:
        return False
    try:
        if stat_key(path) != cached.stat:
            return False
    except OSError:
        return False
    return all(dependency_state(dep) == state for dep, state in cached.deps)


@dataclass(frozen=True)
class Extracted:
    """What a build worker makes of one document, besides its problems."""

    entry: SkillEntry | None
    deps: list[Dependency]
    fingerprint: str | None
    #: The entry's search-index fields, tokenized here so workers share that work.
    index_fields: dict[str, str] | None = None


def extract(doc: Document) -> Extracted:
    """The build's extractor for :func:`skillsite.checker.check_files` (runs in workers)."""
    if not isinstance((doc.data or {}).get("name"), str):
        return Extracted(None, [], None)
    entry = entry_of(doc)
    root = os.path.abspath(doc.source.root)
    watched = [os.path.join(root, link) for link in entry.links]
    # The folders' listings decide the supporting files.
    watched += [os.path.join(root, folder) for folder in skill_folder(doc, root)[1]]
    entry_field = (doc.data or {}).get("entry")
    if doc.source.kind == "skill-json" and isinstance(entry_field, str):
        folder = os.path.dirname(os.path.abspath(doc.source.path))
        watched.append(os.path.normpath(os.path.join(folder, entry_field)))
    deps = [(path, dependency_state(path)) for path in sorted(set(watched))]
    return Extracted(entry, deps, content_fingerprint(entry), field_texts(index_doc(entry)))


@dataclass(frozen=True)
class Payload:
    """A skill's rows for the content store and terms for the index, made in a worker."""

    name: str
    fingerprint: str
    content: ContentRow
    index_fields: dict[str, str]


@dataclass(frozen=True)
class Built:
    """What a build worker sends back for one file: its cache record, and the skill's
    payload when it has one. The full entry stays in the worker."""

    key: str
    cached: Cached
    payload: Payload | None


def finish(source: Source, result: FileResult | None) -> Built:
    """The build's ``finish`` for :func:`skillsite.checker.check_files` (runs in workers)."""
    try:
        stat = stat_key(source.path)
    except OSError:  # vanished, or a broken link: never valid again
        stat = [0, 0, 0]
    key = display_path(source.path, source.root)
    if result is None:
        return Built(key, Cached(stat, [], None, False, found=False), None)
    extracted: Extracted | None = result.extracted
    entry = extracted.entry if extracted else None
    record = catalog_entry(entry) if entry else None
    cached = Cached(stat, problem_rows(result.problems),
                    vars(result.record) if result.record else None, result.is_skill,
                    extracted.deps if extracted else [], record,
                    graph_input(entry) if entry else None,
                    extracted.fingerprint if extracted else None,
                    catalog_json=record_json(record) if record else None)
    payload = None
    if entry is not None and extracted is not None and extracted.index_fields is not None:
        payload = Payload(entry.name, extracted.fingerprint or "", row_of(entry),
                          extracted.index_fields)
    return Built(key, cached, payload)


def content_fingerprint(entry: SkillEntry) -> str:
    """Equal for two entries whose stored content is equal: an entry is made from its
    file's bytes, its path and its folder's files, and nothing else."""
    blob = "\0".join([entry.sha256, entry.path, *entry.files])
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def problem_rows(problems: list[Problem]) -> list[list[Any]]:
    return [[p.line, p.column, p.rule, p.severity, p.message] for p in problems]


def problems_of(path: str, rows: list[list[Any]]) -> list[Problem]:
    return [Problem(path, *row) for row in rows]


@dataclass
class BuildCache:
    files: dict[str, Cached] = field(default_factory=dict)
    #: Name to content fingerprint of every skill in the content store and index.
    included: dict[str, str] = field(default_factory=dict)


def load_cache(dist: Path, config_key: str, expected_sha256: str | None) -> BuildCache:
    """The previous build's cache; empty if it is missing, damaged or made otherwise."""
    try:
        blob = (dist / CACHE_FILE).read_bytes()
        if hashlib.sha256(blob).hexdigest() != expected_sha256:
            return BuildCache()
        document = marshal.loads(blob)
        if document.get("version") != CACHE_VERSION or document.get("config") != config_key:
            return BuildCache()
        files = {path: Cached(*fields) for path, fields in document["files"].items()}
        return BuildCache(files, dict(document["included"]))
    except (OSError, ValueError, TypeError, KeyError, AttributeError, EOFError):
        return BuildCache()


def save_cache(dist: Path, config_key: str, cache: BuildCache) -> None:
    files = {path: tuple(vars(cached).values()) for path, cached in sorted(cache.files.items())}
    document = {"version": CACHE_VERSION, "config": config_key,
                "included": dict(sorted(cache.included.items())), "files": files}
    (dist / CACHE_FILE).write_bytes(marshal.dumps(document))
