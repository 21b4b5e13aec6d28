"""The incremental build's memory: what each file produced, and what that depended on.

A cached result is reused only while the file's size, mtime and inode are unchanged (or,
when they changed, its bytes are not) and every folder it depended on (its skill folder,
the folders of its link targets) has the same mtime; everything else is checked again.
The discovery walk's folder listings are kept too, so unchanged folders are not listed.

The cache lives in ``dist/build-cache/`` so it always matches the artifacts beside it, and
deleting it just makes the next build clean: ``head.bin`` (format, configuration, what
the stores hold, the corpus-wide problems), :data:`CACHE_SHARDS` shards of per-file
records by path (an incremental build rewrites only those that changed),
``listings-NN.bin`` (the walk's folder listings, in shards too) and ``stats.bin`` (the
:class:`~skillsite.builder.changes.StatIndex` the next build scans). It is stored with
:mod:`marshal` (plain values only,
several times faster than JSON at 100k skills, and unlike pickle it cannot run code); a
file is read only when its sha256 matches the manifest, so a damaged or edited cache is
ignored rather than trusted.
"""
from __future__ import annotations

import hashlib
import marshal
import os
import stat
import time
import zlib
from array import array
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any, Callable, Container, Iterable, Mapping, NamedTuple

from skillsite import __version__
from skillsite.builder.changes import FOLDER_GONE, BackgroundScan, Scan, StatIndex
from skillsite.builder.entries import entry_of, index_doc, skill_folder
from skillsite.config import Config
from skillsite.index.fields import field_texts
from skillsite.linter.checker import FileResult, display_path
from skillsite.linter.discover import Listing, racy
from skillsite.linter.schema import SCHEMA_DIR
from skillsite.models import Document, Problem, SkillEntry, Source
from skillsite.store.catalog import catalog_entry, record_json
from skillsite.store.content import ContentRow, row_of

CACHE_DIR = "build-cache"
CACHE_VERSION = 9
STATS_FILE = "stats.bin"
LISTINGS_FILE = "listings-{:02d}.bin"
#: The cache is split by path so an incremental build rewrites only the parts that changed.
CACHE_SHARDS = 16

Dependency = tuple[str, Any]  # (absolute folder path, its state: see dependency_state)


class Cached(NamedTuple):
    """One file's result, as stored: enough to rebuild the catalog and graph without it.
    (A tuple: an incremental build loads 100k of them.)"""

    stat: list[int]
    problems: list[list[Any]]
    #: The file's :class:`~skillsite.linter.rules.corpus.SkillRecord`, as a plain tuple.
    record: tuple[Any, ...] | None
    is_skill: bool
    deps: list[Dependency] = []
    #: The skill's name and format when the file makes a catalog entry, else None.
    name: str | None = None
    format: str | None = None
    #: What the graph needs besides name, format and path: (tags, depends_on, links).
    graph: tuple[list[str], list[str], list[str]] | None = None
    fingerprint: str | None = None
    #: False for a Markdown page that turned out not to be a skill.
    found: bool = True
    #: The catalog record as compact JSON, so the catalog file is joined, not re-encoded.
    catalog_json: str | None = None
    #: Of the file's bytes, when it parsed: a changed stat with the same bytes is no change.
    sha256: str | None = None

    def graph_input(self, path: str) -> dict[str, Any]:
        """The skill's input to :func:`skillsite.builder.graph.build_graph`."""
        assert self.graph is not None
        tags, depends_on, links = self.graph
        return {"name": self.name, "format": self.format, "path": path, "tags": tags,
                "depends_on": depends_on, "links": links}


def fingerprint_config(config: Config, backend: str) -> str:
    """Changes to any of these invalidate every cached result."""
    schemas = sorted((p.name, p.read_bytes()) for p in SCHEMA_DIR.glob("*.json"))
    blob = repr((__version__, CACHE_VERSION, config, backend, schemas)).encode()
    return hashlib.sha256(blob).hexdigest()


def stat_key(path: Path | str) -> list[int]:
    """(size, mtime, inode) of a file; all zero when its mtime is too recent to trust
    (see :func:`~skillsite.linter.discover.racy`), so that the next build compares its bytes."""
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


def revalidated(cached: Cached, path: Path | str, mtimes: dict[str, int]) -> Cached | None:
    """``cached`` if it still describes the file at ``path`` (a copy with the new stat if
    only that changed: a touched or copied file with the same bytes), else None.
    ``mtimes`` as for :func:`dependency_state`."""
    try:
        info = os.stat(path)
        # A stored stat was not racy when stored, so an equal one is not racy now.
        if [info.st_size, info.st_mtime_ns, info.st_ino] != cached.stat:
            if cached.sha256 is None or _file_sha256(path) != cached.sha256:
                return None
            cached = cached._replace(stat=stat_key(path))
    except OSError:
        return None
    return cached if dependencies_unchanged(cached, mtimes) else None


def dependencies_unchanged(cached: Cached, mtimes: dict[str, int]) -> bool:
    """Whether every folder ``cached`` depended on looks as it did; ``mtimes`` as for
    :func:`dependency_state`."""
    for folder, state in cached.deps:  # after a walk, this runs for every file
        if mtimes.get(folder, _UNSEEN) != state \
                and not _dependency_unchanged(folder, state, mtimes):
            return False
    return True


_UNSEEN = object()  # a folder the walk did not visit: look at it


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
    """The build's extractor for :func:`skillsite.linter.checker.check_files` (runs in workers)."""
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
    """The build's ``finish`` for :func:`skillsite.linter.checker.check_files` (runs in workers)."""
    try:
        stat = stat_key(source.path)
    except OSError:  # vanished, or a broken link: never valid again
        stat = [0, 0, 0]
    key = display_path(source.path, source.root)
    if result is None:
        return Built(key, Cached(stat, [], None, False, found=False), None)
    extracted: Extracted | None = result.extracted
    entry = extracted.entry if extracted else None
    cached = Cached(stat, problem_rows(result.problems),
                    tuple(result.record) if result.record else None,
                    result.is_skill, extracted.deps if extracted else [],
                    sha256=extracted.sha256 if extracted else None)
    if entry is not None:
        cached = cached._replace(
            name=entry.name, format=entry.format,
            graph=(list(entry.tags), list(entry.depends_on), list(entry.links)),
            fingerprint=extracted.fingerprint if extracted else None,
            catalog_json=record_json(catalog_entry(entry)))
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
    #: The discovery walk's folder listings (see :class:`~skillsite.linter.discover.Listings`);
    #: None when no folder changed since the previous build (they are not even loaded).
    listings: dict[str, Listing] | None = field(default_factory=dict)
    #: The records as loaded, per shard.
    shards: list[dict[str, Cached]] = field(default_factory=list)
    #: The listings as loaded, per shard.
    listing_shards: list[dict[str, Listing]] = field(default_factory=list)
    #: Keys whose record is new or differs from the previous cache's.
    changed: set[str] = field(default_factory=set)
    #: Whether ``listings`` cover every folder of the corpus (see ``Listings.complete``).
    walk_complete: bool = False
    #: How the corpus compares with the previous build's stats (scanned while loading).
    changes: Scan | None = None
    #: The previous build's stat index, as loaded.
    stat_index: StatIndex | None = None
    #: The corpus-wide rules' problems, as rows: reused while no record changes.
    corpus_problems: list[list[Any]] | None = None


def _shard_of(key: str) -> int:
    return zlib.crc32(key.encode("utf-8", "surrogateescape")) % CACHE_SHARDS


def _shard_path(dist: Path, number: int) -> Path:
    return dist / CACHE_DIR / f"{number:02d}.bin"


def load_cache(dist: Path, config_key: str, checksums: dict[str, str]) -> BuildCache:
    """The previous build's cache; empty if it is missing, damaged or made otherwise.
    ``checksums`` are the previous manifest's: a file that does not match is not read.
    The scan for changes starts first and runs while the rest loads."""

    def verified(path: Path) -> bytes:
        blob = path.read_bytes()
        relative = path.relative_to(dist).as_posix()
        if hashlib.sha256(blob).hexdigest() != checksums.get(relative):
            raise ValueError(f"{relative} does not match the manifest")
        return blob

    cache = BuildCache()
    scan: BackgroundScan | None = None
    try:
        head = marshal.loads(verified(dist / CACHE_DIR / "head.bin"))
        if head.get("version") != CACHE_VERSION or head.get("config") != config_key:
            return BuildCache()
        cache.included, cache.walk_complete = head["included"], head["walk_complete"]
        cache.corpus_problems = head["corpus_problems"]
        if cache.walk_complete:
            cache.stat_index = StatIndex.from_bytes(verified(dist / CACHE_DIR / STATS_FILE))
            scan = BackgroundScan(cache.stat_index)
        for number in range(CACHE_SHARDS):
            rows = marshal.loads(verified(_shard_path(dist, number)))
            shard = {key: Cached._make(fields) for key, fields in rows.items()}
            cache.files.update(shard)
            cache.shards.append(shard)
        cache.changes = scan.result() if scan else None
        if cache.changes and cache.changes.tree_unchanged:
            cache.listings = None  # not needed: the walk is skipped
        else:
            cache.listings = {}
            for number in range(CACHE_SHARDS):
                part = marshal.loads(verified(dist / CACHE_DIR / LISTINGS_FILE.format(number)))
                cache.listings.update(part)
                cache.listing_shards.append(part)
        return cache
    except (OSError, ValueError, TypeError, KeyError, AttributeError, EOFError):
        if scan is not None:
            scan.result()  # reap the helper process
        return BuildCache()


def save_cache(work: Path, config_key: str, cache: BuildCache, old: BuildCache,
               root: Path) -> None:
    """Write ``cache`` into ``work``, which holds hard links to ``old``'s files when the
    build is incremental (see :func:`skillsite.builder.dist.copy_previous`): a shard in which no
    record changed, and the listings when no folder changed, are left as they are."""
    folder = work / CACHE_DIR
    folder.mkdir(exist_ok=True)
    files_out = cache.changed | (old.files.keys() - cache.files.keys())
    _write_shards(lambda number: _shard_path(work, number), cache.files, old.shards, files_out,
                  tuple)
    index = stat_index(root, cache, old)
    head = {"version": CACHE_VERSION, "config": config_key, "included": cache.included,
            "walk_complete": bool(index.folders), "corpus_problems": cache.corpus_problems}
    _replace_file(folder / "head.bin", marshal.dumps(head))
    _replace_file(folder / STATS_FILE, index.to_bytes())
    _save_listings(folder, cache, old)


def _save_listings(folder: Path, cache: BuildCache, old: BuildCache) -> None:
    """The listing shards: those in which no folder changed are left as they are."""
    def path_of(number: int) -> Path:
        return folder / LISTINGS_FILE.format(number)

    if cache.listings is None:  # no folder changed: the previous shards hold
        for number in range(CACHE_SHARDS):
            if not path_of(number).exists():
                _replace_file(path_of(number), marshal.dumps({}))
        return
    previous = old.listings or {}
    moved = {path for path, listing in cache.listings.items()
             if previous.get(path) is not listing}
    moved |= previous.keys() - cache.listings.keys()
    _write_shards(path_of, cache.listings, old.listing_shards, moved, lambda listing: listing)


def _write_shards(path_of: Callable[[int], Path], records: Mapping[str, Any],
                  before: list[dict[str, Any]], moved: set[str],
                  row: Callable[[Any], Any]) -> None:
    """Write ``records`` in :data:`CACHE_SHARDS` shards (each value through ``row``).
    With the shards of the previous build in ``before``, a shard in which no key
    ``moved`` is left as it is: ``path_of`` is then a hard link to it."""
    dirty = {_shard_of(key) for key in moved}
    fresh = [] if len(before) == CACHE_SHARDS else _partition(records)
    for number in range(CACHE_SHARDS):
        path = path_of(number)
        if fresh:
            part = fresh[number]
        elif number not in dirty and path.exists():
            continue
        else:
            part = dict(before[number])
            for key in (k for k in moved if _shard_of(k) == number):
                if key in records:
                    part[key] = records[key]
                else:
                    part.pop(key, None)
        _replace_file(path, marshal.dumps({key: row(value)
                                           for key, value in sorted(part.items())}))


def _partition(records: Mapping[str, Any]) -> list[dict[str, Any]]:
    """``records`` split into the :data:`CACHE_SHARDS` shards, in one pass."""
    shards: list[dict[str, Any]] = [{} for _ in range(CACHE_SHARDS)]
    for key, value in records.items():
        shards[_shard_of(key)][key] = value
    return shards


def _replace_file(path: Path, blob: bytes) -> None:
    path.unlink(missing_ok=True)  # never write through a hard link to the previous build
    path.write_bytes(blob)


def stat_index(root: Path, cache: BuildCache, old: BuildCache) -> StatIndex:
    """The index for the next build's :func:`~skillsite.builder.changes.scan`; empty (no fast
    path) unless this build's walk recorded every folder. When the folders and files are
    those of ``old``'s index, it is updated rather than rebuilt."""
    before = old.stat_index
    if not cache.walk_complete:
        return StatIndex()
    walked: Container[str]
    if before is not None and _same_tree(cache, before):
        keys, outside, folders = before.keys, dict(before.outside), before.folders
        if cache.listings is None:  # no folder changed
            mtimes, walked = before.folder_mtimes, set(folders)
        else:
            mtimes = array("q", (cache.listings[folder][0] for folder in folders))
            walked = cache.listings
        # Only the files checked again can have new dependencies; a few stale extras
        # in ``outside`` are harmless.
        owners: Iterable[Cached] = (cache.files[key] for key in cache.changed)
    elif cache.listings is not None:
        keys, outside = list(cache.files), {}
        folders = list(cache.listings)
        mtimes = array("q", (listing[0] for listing in cache.listings.values()))
        walked, owners = cache.listings, cache.files.values()
    else:
        return StatIndex()
    for cached in owners:
        for dep, state in cached.deps:
            if dep not in walked:
                if not (state is None or isinstance(state, int)) or isinstance(state, bool):
                    return StatIndex()  # a state that only a full check can compare
                outside[dep] = FOLDER_GONE if state is None else state
    stats = array("q", chain.from_iterable(cache.files[key].stat for key in keys))
    return StatIndex(str(root), folders, mtimes, keys, stats, outside)


def _same_tree(cache: BuildCache, index: StatIndex) -> bool:
    """Whether ``cache`` has the very folders and files that ``index`` lists."""
    if cache.listings is not None and cache.listings.keys() != set(index.folders):
        return False
    return cache.listings is None or cache.files.keys() == set(index.keys)
