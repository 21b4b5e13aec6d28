"""The incremental build's memory, on disk: every file's record (:mod:`skillsite.builder.records`)
and the discovery walk's folder listings, so unchanged files are not checked and unchanged
folders are not listed again.

The cache lives in ``dist/build-cache/`` so it always matches the artifacts beside it, and
deleting it just makes the next build clean: ``head.bin`` (format, configuration, what
the stores hold, the corpus-wide problems), :data:`CACHE_SHARDS` shards of per-file
records by path (an incremental build rewrites only those that changed),
``listings-NN.bin`` (the walk's folder listings, in shards too), ``stats.bin`` and
``stat-values.bin`` (the :class:`~skillsite.builder.changes.StatIndex` the next build
scans: its paths, kept while no file comes or goes, and its stats). It is stored with
:mod:`marshal` (plain values only,
several times faster than JSON at 100k skills, and unlike pickle it cannot run code); a
file is read only when its sha256 matches the manifest, so a damaged or edited cache is
ignored rather than trusted.
"""
from __future__ import annotations

import hashlib
import marshal
import mmap
import os
import zlib
from array import array
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from functools import partial
from itertools import chain
from operator import attrgetter
from pathlib import Path
from typing import Any, NamedTuple

from skillsite.builder.changes import FOLDER_GONE, BackgroundScan, Scan, StatIndex, Supporting
from skillsite.builder.records import CACHE_VERSION, Cached
from skillsite.linter.listings import Lazy, Listing, Overlay, as_dict, removed

CACHE_DIR = "build-cache"
STATS_FILE = "stats.bin"  # the stat index's shape: see StatIndex.shape_bytes
STAT_VALUES_FILE = "stat-values.bin"
LISTINGS_FILE = "listings-{:02d}.bin"
HEAD_MARSHAL_VERSION = 2
#: The cache is split by path so an incremental build rewrites only the parts that changed.
CACHE_SHARDS = 16
_WIDTH = len(Cached._fields)
_new_cached = partial(tuple.__new__, Cached)
_STAT_BLOB = attrgetter("stat_blob")

@dataclass
class BuildCache:
    files: dict[str, Cached] = field(default_factory=dict)
    #: Name to content fingerprint of every skill in the content store and index.
    included: dict[str, str] = field(default_factory=dict)
    #: The discovery walk's folder listings (see :class:`~skillsite.linter.discover.Listings`);
    #: None when no folder changed since the previous build (they are not even loaded).
    listings: Mapping[str, Listing] | None = field(default_factory=dict)
    #: The records as loaded, per shard.
    shards: list[dict[str, Cached]] = field(default_factory=list)
    #: The listings as loaded, per shard (each read when first asked for).
    listing_shards: Sequence[dict[str, Listing]] = field(default_factory=list)
    #: Keys whose record is new or differs from the previous cache's.
    changed: set[str] = field(default_factory=set)
    #: Whether ``listings`` cover every folder of the corpus (see ``Listings.complete``).
    walk_complete: bool = False
    #: The folders whose listing may differ from the previous build's (see
    #: ``Listings.relisted``); None: compare them all.
    relisted: frozenset[str] | None = None
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


Trusted = Mapping[str, tuple[int, int, int, str]]
#: A file's bytes as read, or mapped (see :func:`_verified`).
Buffer = bytes | mmap.mmap
#: Files are mapped, not read, where a mapped file can still be renamed and deleted.
_MAPPED = os.name == "posix"


def _verified(dist: Path, path: Path, checksums: Mapping[str, str],
              trusted: Trusted) -> Buffer:
    """The bytes of ``path`` (in ``dist``), which its manifest checksum must match. A file
    that still has the size, mtime and inode recorded when it was hashed (``trusted``, see
    :func:`~skillsite.store.manifest.recorded`) is taken to hold the bytes it was hashed
    with, as :func:`~skillsite.store.manifest.intact` takes them, and is not hashed again
    (200 MB at 100k skills). Where the system allows, the file is mapped rather than
    read: unmarshalled in place, nothing is copied, and a listing shard the build never
    asks for is never read (0.05 CPU-s less at 100k skills). A build never writes into
    a previous build's file (it replaces it), so the mapped bytes do not change."""
    relative = path.relative_to(dist).as_posix()
    expected = checksums.get(relative)
    with path.open("rb") as handle:
        info = os.fstat(handle.fileno())
        blob: Buffer = (mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
                        if _MAPPED and info.st_size else handle.read())
    was = trusted.get(relative)
    if (was is not None and expected is not None and was[3] == expected
            and was[:3] == (info.st_size, info.st_mtime_ns, info.st_ino)
            and len(blob) == info.st_size):
        return blob
    if hashlib.sha256(blob).hexdigest() != expected:
        raise ValueError(f"{relative} does not match the manifest")
    return blob


class EarlyScan:
    """The scan of :mod:`~skillsite.builder.changes`, started from the previous build's
    stat index as soon as the build holds its lock: before the embedding model, the
    configuration's fingerprint and the cache load, so that its helpers use the core the
    build process leaves idle meanwhile. :func:`load_cache` takes it; whatever does not
    take it (the cache is not reusable) cancels it. A context manager: leaving it cancels
    a scan not taken."""

    def __init__(self, dist: Path | None = None, checksums: Mapping[str, str] | None = None,
                 trusted: Trusted | None = None) -> None:
        self.index: StatIndex | None = None
        self.scan: BackgroundScan | None = None
        if dist is None or not checksums:
            return
        try:
            index = _read_stat_index(lambda path: _verified(dist, path, checksums,
                                                            trusted or {}), dist)
        except (OSError, ValueError, TypeError, AttributeError, EOFError):
            return
        if index.folders:  # the previous walk was complete: see save_cache
            self.index, self.scan = index, BackgroundScan(index)

    def take(self) -> tuple[StatIndex, BackgroundScan] | None:
        taken = (self.index, self.scan) if self.index and self.scan else None
        self.index = self.scan = None
        return taken

    def cancel(self) -> None:
        if self.scan is not None:
            self.scan.cancel()
        self.index = self.scan = None

    def __enter__(self) -> EarlyScan:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cancel()


def _read_stat_index(verified: Callable[[Path], Buffer], dist: Path) -> StatIndex:
    return StatIndex.from_parts(verified(dist / CACHE_DIR / STATS_FILE),
                                verified(dist / CACHE_DIR / STAT_VALUES_FILE))


def load_cache(dist: Path, config_key: str, checksums: dict[str, str],
               trusted: Trusted | None = None, early: EarlyScan | None = None) -> BuildCache:
    """The previous build's cache; empty if it is missing, damaged or made otherwise.
    ``checksums`` are the previous manifest's: a file that does not match is not read
    (``trusted``: see :func:`_verified`). The scan for changes runs while the rest loads:
    ``early``'s, started from this manifest's stat index, or one started here."""
    trusted = trusted or {}

    def verified(path: Path) -> Buffer:
        return _verified(dist, path, checksums, trusted)

    cache = BuildCache()
    scan: BackgroundScan | None = None
    try:
        head = marshal.loads(verified(dist / CACHE_DIR / "head.bin"))
        if head.get("version") != CACHE_VERSION or head.get("config") != config_key:
            return BuildCache()
        cache.included, cache.walk_complete = head["included"], head["walk_complete"]
        cache.corpus_problems = head["corpus_problems"]
        taken = early.take() if early is not None and cache.walk_complete else None
        if taken is not None:
            cache.stat_index, scan = taken
        elif cache.walk_complete:
            cache.stat_index = _read_stat_index(verified, dist)
            scan = BackgroundScan(cache.stat_index)
        for number in range(CACHE_SHARDS):
            rows = marshal.loads(verified(_shard_path(dist, number)))
            # Cached._make, less a Python call per record (100k): the widths are checked
            # at once.
            if not all(map(_WIDTH.__eq__, map(len, rows.values()))):
                raise ValueError("a cached record has the wrong number of fields")
            shard = dict(zip(rows, map(_new_cached, rows.values()), strict=True))
            cache.files.update(shard)
            cache.shards.append(shard)
        cache.changes = scan.result() if scan else None
        if cache.changes and cache.changes.tree_unchanged:
            cache.listings = None  # not needed: the walk is skipped
        else:
            shards = _ListingShards([verified(dist / CACHE_DIR / LISTINGS_FILE.format(number))
                                     for number in range(CACHE_SHARDS)])
            cache.listings, cache.listing_shards = shards, shards.parts()
        return cache
    except (OSError, ValueError, TypeError, KeyError, AttributeError, EOFError):
        if scan is not None:
            scan.cancel()  # stop and reap the helper processes
        return BuildCache()
    finally:
        if early is not None:
            early.cancel()  # not taken: the cache is not reusable


class _ListingShards(Lazy):
    """The previous build's listings, a shard unmarshalled when a folder of it is first
    asked for: after a few folders changed, the build reads a few listings of the 183k
    (at 100k skills) and rewrites their shards, and the others stay bytes."""

    def __init__(self, blobs: list[Buffer]) -> None:
        self.blobs = blobs
        self.decoded: list[dict[str, Listing] | None] = [None] * len(blobs)
        self.whole: dict[str, Listing] | None = None

    def part(self, number: int) -> dict[str, Listing]:
        part = self.decoded[number]
        if part is None:
            part = marshal.loads(self.blobs[number])
            if not isinstance(part, dict):
                raise ValueError(f"listing shard {number} is not a table")
            self.decoded[number] = part
        return part

    def parts(self) -> Sequence[dict[str, Listing]]:
        return _Parts(self)

    def __getitem__(self, key: str) -> Listing:
        return self.part(_shard_of(key))[key]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in self.part(_shard_of(key))

    def __len__(self) -> int:
        return len(self.as_dict())

    def __iter__(self) -> Iterator[str]:
        return iter(self.as_dict())

    def as_dict(self) -> dict[str, Listing]:
        """Every listing, shard after shard, as loading them all made them (kept)."""
        if self.whole is None:
            whole: dict[str, Listing] = {}
            for number in range(len(self.blobs)):
                whole.update(self.part(number))
            self.whole = whole
        return self.whole


class _Parts(Sequence[dict[str, Listing]]):
    """The shards of a :class:`_ListingShards`, each unmarshalled when asked for."""

    def __init__(self, shards: _ListingShards) -> None:
        self.shards = shards

    def __len__(self) -> int:
        return len(self.shards.blobs)

    def __getitem__(self, number: int) -> dict[str, Listing]:  # type: ignore[override]
        if not 0 <= number < len(self):
            raise IndexError(number)
        return self.shards.part(number)


Write = Callable[[Path, bytes], None]


def save_cache(work: Path, config_key: str, cache: BuildCache, old: BuildCache,
               root: Path, write: Write | None = None) -> None:
    """Write ``cache`` into ``work``, which holds hard links to ``old``'s files when the
    build is incremental (see :func:`skillsite.builder.dist.copy_previous`): a shard in which no
    record changed, and the listings when no folder changed, are left as they are.
    ``write`` writes a file, never through a hard link (by default, here and now)."""
    put = write or replace_now
    folder = work / CACHE_DIR
    folder.mkdir(exist_ok=True)
    files_out = cache.changed | gone(cache, old)
    _write_shards(lambda number: _shard_path(work, number), cache.files, old.shards, files_out,
                  tuple, put)
    index = stat_index(root, cache, old)
    head = {"version": CACHE_VERSION, "config": config_key, "included": cache.included,
            "walk_complete": bool(index.folders), "corpus_problems": cache.corpus_problems}
    # Version 2: without the references of later versions, which the 100k names and
    # fingerprints (no two the same) only pay for, twice as fast to write.
    put(folder / "head.bin", marshal.dumps(head, HEAD_MARSHAL_VERSION))
    # The shape is left as the hard link to the previous build's when it did not change.
    if not (old.stat_index is not None and index.same_shape(old.stat_index)
            and (folder / STATS_FILE).exists()):
        put(folder / STATS_FILE, index.shape_bytes())
    put(folder / STAT_VALUES_FILE, index.values_bytes())
    _save_listings(folder, cache, old, put)


def gone(cache: BuildCache, old: BuildCache) -> set[str]:
    """The keys of ``old``'s records that ``cache`` no longer has. Each record of
    ``cache`` is ``old``'s of the same key or one of ``changed`` (see builder.checking):
    when there are as many and every key of ``changed`` was ``old``'s, none is gone,
    found without the set difference of 100k keys."""
    if len(cache.files) == len(old.files) and all(map(old.files.__contains__, cache.changed)):
        return set()
    return old.files.keys() - cache.files.keys()


def _save_listings(folder: Path, cache: BuildCache, old: BuildCache, write: Write) -> None:
    """The listing shards: those in which no folder changed are left as they are."""
    def path_of(number: int) -> Path:
        return folder / LISTINGS_FILE.format(number)

    if cache.listings is None:  # no folder changed: the previous shards hold
        for number in range(CACHE_SHARDS):
            if not path_of(number).exists():
                write(path_of(number), marshal.dumps({}))
        return
    previous = old.listings if old.listings is not None else {}
    if cache.relisted is not None:  # the others are the previous listings
        moved = set(cache.relisted)
    else:
        before = as_dict(previous)
        moved = {path for path, listing in cache.listings.items()
                 if before.get(path) is not listing}
    moved |= removed(previous, cache.listings)
    _write_shards(path_of, cache.listings, old.listing_shards, moved, lambda listing: listing,
                  write)


def _write_shards(path_of: Callable[[int], Path], records: Mapping[str, Any],
                  before: Sequence[dict[str, Any]], moved: set[str],
                  row: Callable[[Any], Any], write: Write) -> None:
    """Write ``records`` in :data:`CACHE_SHARDS` shards (each value through ``row``).
    With the shards of the previous build in ``before``, a shard in which no key
    ``moved`` is left as it is: ``path_of`` is then a hard link to it."""
    fresh = [] if len(before) == CACHE_SHARDS else _partition(records)
    # (Only kept shards need it: a clean build's 283k keys at 100k skills are not hashed twice.)
    dirty = {_shard_of(key) for key in moved} if not fresh else set()
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
        write(path, marshal.dumps({key: row(value) for key, value in sorted(part.items())}))


def _partition(records: Mapping[str, Any]) -> list[dict[str, Any]]:
    """``records`` split into the :data:`CACHE_SHARDS` shards, in one pass."""
    shards: list[dict[str, Any]] = [{} for _ in range(CACHE_SHARDS)]
    for key, value in records.items():
        shards[_shard_of(key)][key] = value
    return shards


def replace_now(path: Path, blob: bytes) -> None:
    """Write ``blob`` to ``path`` as a new file (never through a hard link to the
    previous build's)."""
    path.unlink(missing_ok=True)
    path.write_bytes(blob)


class _IndexParts(NamedTuple):
    """The next :class:`StatIndex` being made, before its file stats."""

    keys: list[str]
    folders: list[str]
    mtimes: array[int]
    outside: dict[str, int]
    supporting: dict[str, tuple[str, int]]  # path -> (owner, state), see Supporting
    walked: Container[str]  # the folders this build's walk covered
    checked: Iterable[tuple[str, Cached]]  # the skill files whose dependencies to record
    foreign: set[str]  # see StatIndex.foreign


def stat_index(root: Path, cache: BuildCache, old: BuildCache) -> StatIndex:
    """The index for the next build's :func:`~skillsite.builder.changes.scan`; empty (no fast
    path) unless this build's walk recorded every folder. When the folders and files are
    those of ``old``'s index, it is updated rather than rebuilt."""
    before = old.stat_index
    if not cache.walk_complete:
        return StatIndex()
    updated = before is not None and _same_tree(cache, old, before)
    if updated:
        assert before is not None
        parts = _updated_index(cache, old, before)
    elif cache.listings is not None:
        parts = _fresh_index(cache, as_dict(cache.listings))
    else:
        return StatIndex()
    if not _record_dependencies(parts, str(root)):
        return StatIndex()
    outside = outside_now = parts.outside
    if updated:  # only the records checked again have a new stat
        assert before is not None
        stats = _patched(before.file_stats, parts.keys, 3,
                         {key: cache.files[key].stat for key in cache.changed})
        gone = _gone_dependencies(cache, old)
        # (A path is in one table or the other: the one it is recorded in now.)
        outside = _merged(before.outside, [*gone, *parts.supporting], outside)
        supporting = _merged_supporting(before.supporting, [*gone, *outside_now],
                                        parts.supporting)
    else:
        stats = array("q", chain.from_iterable(map(marshal.loads, map(
            _STAT_BLOB, map(cache.files.__getitem__, parts.keys)))))  # (Cached.stat, in C)
        supporting = Supporting.of(parts.supporting)
    return StatIndex(str(root), parts.folders, parts.mtimes, parts.keys, stats, outside,
                     supporting, sorted(parts.foreign))


def _updated_index(cache: BuildCache, old: BuildCache, before: StatIndex) -> _IndexParts:
    """``before``, for a build whose folders and files are the same: only the files
    checked again have new dependencies to record."""
    walked: Container[str]
    listings = cache.listings
    moved = old.changes.changed_folders if old.changes else None
    if listings is None:  # no folder changed
        mtimes, walked = before.folder_mtimes, set(before.folders)
    elif moved is not None:  # only these folders were listed again
        mtimes = _patched(before.folder_mtimes, before.folders, 1,
                          {folder: [listings[folder][0]] for folder in moved})
        walked = listings
    else:
        mtimes = array("q", (listings[folder][0] for folder in before.folders))
        walked = listings
    # The dependencies of the records checked again are recorded apart, then merged
    # with ``before``'s (see :func:`_merged`).
    checked = ((key, cache.files[key]) for key in cache.changed)
    return _IndexParts(before.keys, before.folders, mtimes, {}, {}, walked, checked,
                       set(before.foreign).difference(cache.changed))


def _gone_dependencies(cache: BuildCache, old: BuildCache) -> list[str]:
    """The supporting files the old records of the files checked again depended on. A
    few stale folders in ``outside`` are harmless, but a stale file (one deleted since)
    would send every later build down the slow path, so these go (and come back with
    the new records that still depend on them)."""
    return [dep for key in cache.changed for dep, state in getattr(old.files.get(key), "deps", ())
            if isinstance(state, int) and state < FOLDER_GONE]


def _merged(before: dict[str, Any], gone: list[str], added: dict[str, Any]) -> dict[str, Any]:
    """``before`` less the keys ``gone``, then with ``added``: ``before`` itself when that
    is the same (a one-skill change mostly records what it did), else a copy in that
    order. Two copies of 115k entries, then their comparison with ``before`` to keep the
    stat index's file, cost more than these few look-ups."""
    if (all(before.get(key, _MISSING) == value for key, value in added.items())
            and all(key in added for key in gone if key in before)):
        return before
    merged = dict(before)
    for key in gone:
        merged.pop(key, None)
    merged.update(added)
    return merged


_MISSING = object()


def _merged_supporting(before: Supporting, gone: list[str],
                       added: dict[str, tuple[str, int]]) -> Supporting:
    """:func:`_merged` of supporting files: ``before`` itself when that is the same, found
    with a search in C per path when there are few (the 115k paths are not hashed)."""
    if len(added) + len(gone) <= 16:
        paths = before.paths
        same = all(path in added for path in gone if path in paths)
        for path, (owner, state) in added.items() if same else ():
            try:
                number = paths.index(path)
            except ValueError:
                same = False
                break
            same = (before.owners[number], before.states[number]) == (owner, state)
            if not same:
                break
        if same:
            return before
    merged = before.as_dict()
    for path in gone:
        merged.pop(path, None)
    merged.update(added)
    return Supporting.of(merged)


def _patched(values: array[int], keys: list[str], width: int,
             changes: dict[str, list[int]]) -> array[int]:
    """A copy of ``values`` (``width`` of them per key of ``keys``, in order) with those
    of the keys in ``changes`` replaced: cheaper than making the array again from 100k
    records when only a few moved."""
    values = array("q", values)
    if len(changes) <= 16:  # a search in C each, where the loop below is Python's
        found = []
        for key in changes:
            with suppress(ValueError):
                found.append((keys.index(key), key))
    else:
        found = [(number, key) for number, key in enumerate(keys) if key in changes]
    for number, key in found:
        values[number * width:(number + 1) * width] = array("q", changes[key])
    return values


def _fresh_index(cache: BuildCache, listings: dict[str, Listing]) -> _IndexParts:
    mtimes = array("q", (listing[0] for listing in listings.values()))
    return _IndexParts(list(cache.files), list(listings), mtimes, {}, {}, listings,
                       cache.files.items(), set())


def _record_dependencies(parts: _IndexParts, root: str) -> bool:
    """Add the dependencies of ``parts.checked`` that the walk does not cover to
    ``parts.outside`` (supporting files to ``parts.supporting``), and the files that
    depend on a folder outside their own to ``parts.foreign``; False when one has a
    state that only a full check can compare."""
    for key, cached in parts.checked:
        folder = key.rpartition("/")[0]
        own = f"{root}{os.sep}{folder.replace('/', os.sep)}" if folder else root
        below = own + os.sep
        for dep, state in cached.deps:
            if dep != own and not dep.startswith(below):
                parts.foreign.add(key)
            if dep in parts.walked:
                continue
            if not (state is None or isinstance(state, int)) or isinstance(state, bool):
                return False
            if state is not None and state < FOLDER_GONE:  # a supporting file
                parts.supporting[dep] = (key, state)
                parts.outside.pop(dep, None)
            else:
                parts.outside[dep] = FOLDER_GONE if state is None else state
                parts.supporting.pop(dep, None)
    return True


def _same_tree(cache: BuildCache, old: BuildCache, index: StatIndex) -> bool:
    """Whether ``cache`` has the very folders and files that ``index`` (``old``'s stat
    index) lists.

    ``old``'s listings and records have the folders and files of its index: the build
    that saved them made the index from them, or kept its previous index because they
    had that one's (this test). So after a rewalk that found no folder gone or new
    (see :class:`~skillsite.linter.listings.Overlay`), when every record made again
    existed before and the counts are the index's, the folders and files are those of
    the index; the look-ups of all of them (283k at 100k skills, the first use of each
    path's hash) are left for the other cases."""
    listings = cache.listings
    if listings is None:
        return True  # no folder changed: the files are the previous build's
    if not (isinstance(listings, Overlay) and listings.base is old.listings
            and listings.same_folders()):
        # (Lengths, then look-ups in C: sets of the 183k folders and 100k files cost more.)
        if not _same_keys(as_dict(listings), index.folders):
            return False
    elif (len(cache.files) == len(old.files) == len(index.keys)
          and all(map(old.files.__contains__, cache.changed))):
        # Every record is the previous build's or one of ``changed`` (see
        # builder.checking): here all of them are keys of ``old.files``.
        return True
    return _same_keys(cache.files, index.keys)


def _same_keys(mapping: Mapping[str, Any], keys: list[str]) -> bool:
    """Whether ``keys`` (no two the same) are the keys of ``mapping``."""
    return len(mapping) == len(keys) and all(map(mapping.__contains__, keys))
