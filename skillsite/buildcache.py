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
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillsite import __version__
from skillsite.catalog import catalog_entry, record_json
from skillsite.checker import FileResult, display_path
from skillsite.config import Config
from skillsite.content import ContentRow, row_of
from skillsite.discover import Listing, racy
from skillsite.entries import SkillEntry, entry_of, index_doc, skill_folder
from skillsite.graph import graph_input
from skillsite.index.fields import field_texts
from skillsite.models import Document, Problem, Source
from skillsite.schema import SCHEMA_DIR

CACHE_FILE = "build-cache.bin"
CACHE_VERSION = 3

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
    #: Of the file's bytes, when it parsed: a changed stat with the same bytes is no change.
    sha256: str | None = None


def fingerprint_config(config: Config, backend: str) -> str:
    """Changes to any of these invalidate every cached result."""
    schemas = sorted((p.name, p.read_bytes()) for p in SCHEMA_DIR.glob("*.json"))
    blob = repr((__version__, CACHE_VERSION, config, backend, schemas)).encode()
    return hashlib.sha256(blob).hexdigest()


def stat_key(path: Path | str) -> list[int]:
    """(size, mtime, inode) of a file; all zero when its mtime is too recent to trust
    (see :func:`~skillsite.discover.racy`), so that the next build compares its bytes."""
    info = os.stat(path)
    if racy(info.st_mtime_ns, time.time_ns()):
        return [0, 0, 0]
    return [info.st_size, info.st_mtime_ns, info.st_ino]


def dependency_state(folder: str, mtimes: dict[str, int] | None = None) -> Any:
    """What a dependency (a folder) looks like now: its mtime, or the hash of its
    entries' names while the mtime is too recent to trust; None if it does not exist.
    ``mtimes`` are folders' mtimes the discovery walk has just read."""
    mtime = mtimes.get(folder) if mtimes else None
    if mtime is None:
        try:
            info = os.stat(folder)
        except OSError:
            return None
        if not stat.S_ISDIR(info.st_mode):
            return True
        mtime = info.st_mtime_ns
    if racy(mtime, time.time_ns()):
        return ["names", _names_hash(folder)]
    return mtime


def _names_hash(folder: str) -> str:
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return ""
    return hashlib.sha1("\0".join(names).encode("utf-8", "surrogateescape")).hexdigest()


def _dependency_unchanged(folder: str, state: Any, mtimes: dict[str, int]) -> bool:
    if isinstance(state, list):  # a racy folder: compare its names
        return _names_hash(folder) == state[1] if os.path.isdir(folder) else False
    return dependency_state(folder, mtimes) == state


def still_valid(cached: Cached | None, path: Path | str, mtimes: dict[str, int]) -> bool:
    """Whether ``cached`` still describes the file at ``path``; ``mtimes`` as for
    :func:`dependency_state`. A file whose stat changed but whose bytes did not (touched,
    or copied) is still valid, and its new stat is kept."""
    if cached is None:
        return False
    try:
        key = stat_key(path)
        if key != cached.stat or key == [0, 0, 0]:
            if cached.sha256 is None or _file_sha256(path) != cached.sha256:
                return False
            cached.stat = key
    except OSError:
        return False
    return all(_dependency_unchanged(dep, state, mtimes) for dep, state in cached.deps)


def _file_sha256(path: Path | str) -> str:
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


@dataclass(frozen=True)
class Extracted:
    """What a build worker makes of one document, besides its problems."""

    entry: SkillEntry | None
    deps: list[Dependency]
    fingerprint: str | None
    #: The entry's search-index fields, tokenized here so workers share that work.
    index_fields: dict[str, str] | None = None
    #: Of the file's bytes.
    sha256: str | None = None


def extract(doc: Document) -> Extracted:
    """The build's extractor for :func:`skillsite.checker.check_files` (runs in workers)."""
    if not isinstance((doc.data or {}).get("name"), str):
        return Extracted(None, [], None, sha256=doc.sha256)
    entry = entry_of(doc)
    root = os.path.abspath(doc.source.root)
    # Whether a link target or an entry script exists changes only with the listing of
    # its folder; the skill folder's listings decide the supporting files.
    watched = [os.path.dirname(os.path.join(root, link)) for link in entry.links]
    watched += [os.path.join(root, folder) for folder in skill_folder(doc, root)[1]]
    entry_field = (doc.data or {}).get("entry")
    if doc.source.kind == "skill-json" and isinstance(entry_field, str):
        folder = os.path.dirname(os.path.abspath(doc.source.path))
        watched.append(os.path.dirname(os.path.normpath(os.path.join(folder, entry_field))))
    deps = [(path, dependency_state(path)) for path in sorted(set(watched))]
    return Extracted(entry, deps, content_fingerprint(entry), field_texts(index_doc(entry)),
                     doc.sha256)


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
                    catalog_json=record_json(record) if record else None,
                    sha256=extracted.sha256 if extracted else None)
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
    #: The discovery walk's folder listings (see :class:`~skillsite.discover.Listings`).
    listings: dict[str, Listing] = field(default_factory=dict)


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
        return BuildCache(files, document["included"], document["listings"])
    except (OSError, ValueError, TypeError, KeyError, AttributeError, EOFError):
        return BuildCache()


def save_cache(dist: Path, config_key: str, cache: BuildCache) -> None:
    files = {path: tuple(vars(cached).values()) for path, cached in sorted(cache.files.items())}
    document = {"version": CACHE_VERSION, "config": config_key,
                "included": dict(sorted(cache.included.items())), "files": files,
                "listings": dict(sorted(cache.listings.items()))}
    (dist / CACHE_FILE).write_bytes(marshal.dumps(document))
