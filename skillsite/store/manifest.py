"""``manifest.json``: what a ``dist/`` holds, and the sha256 of every other file in it.

The build writes it last; a reader checks ``artifact_version`` (another major is refused),
each file's size before it reads it, and the checksums when asked to verify.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # concurrent.futures costs a reader's cold start 3-10 ms (logging...)
    from concurrent.futures import Future

MANIFEST = "manifest.json"
#: The format of every file in ``dist/`` (``docs/artifacts.md``). Restarted at 1.0 when
#: skills became keyed by id; 1.1: Snowball-stemmed index terms and ranking records with
#: "use when" / "not for" lines. A reader accepts 1.1 and later 1.x and answers anything
#: else "rebuild".
#: 1.2 added ``vectors/`` (with the semantic extra); 1.3 ``content/hits-delta.db``.
ARTIFACT_VERSION = "1.3"


def fsync_file(path: Path) -> None:
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


def file_checksums(folder: Path, previous: Path | None = None, *,
                   only: tuple[str, ...] = (), skip: Iterable[str] = (),
                   sync: bool = False) -> dict[str, str]:
    """sha256 of every file under ``folder`` but the manifest, by relative path.

    ``only`` limits it to these top-level entries, ``skip`` leaves these relative paths
    out, and ``sync`` also flushes each file that is not a hard link to the disk.
    A file that is a hard link to the same file in ``previous`` (an earlier dist) is the
    same bytes, so its checksum is taken from that dist's manifest instead of re-read.
    """
    known = (read_manifest(previous) or {}).get("files", {}) if previous else {}
    old_root = previous or folder  # only used when ``known`` has entries
    tops = [folder / name for name in only] if only else [folder]
    found = (p for top in tops for p in ([top, *top.rglob("*")] if top.is_dir() else [top]))
    leave_out = {MANIFEST, *skip}
    sums = {}
    for path in sorted(p for p in found if p.is_file()):
        relative = path.relative_to(folder).as_posix()
        if relative in leave_out:
            continue
        if relative in known and _same_file(path, old_root / relative):
            sums[relative] = known[relative]
            continue
        sums[relative] = file_sha256(path)
        if sync and path.stat().st_nlink == 1:
            fsync_file(path)
    return sums


def checksums_in_background(folder: Path, only: tuple[str, ...],
                            previous: Path | None = None) -> Future[dict[str, str]]:
    """:func:`file_checksums` of finished parts of a build (``sync`` on), on a thread:
    hashing releases the GIL, so the large content store and index are read while the
    build writes its other files."""
    from concurrent.futures import ThreadPoolExecutor  # only builds need the thread pool

    pool = ThreadPoolExecutor(1, thread_name_prefix="skillsite-checksums")
    future = pool.submit(file_checksums, folder, previous, only=only, sync=True)
    pool.shutdown(wait=False)
    return future


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def file_sha256(path: Path) -> str:
    """The sha256 of a file's bytes, read in blocks (dist/ files can be large)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_manifest(folder: Path, fields: dict[str, Any], previous: Path | None = None,
                   known: dict[str, str] | None = None,
                   listed: dict[str, dict[str, tuple[int, int, int]]] | None = None) -> None:
    """The manifest of ``folder``; ``known`` are checksums already taken. A file that
    ``previous`` (an earlier dist) recorded at the same path with the same size, mtime and
    inode (a hard link the build kept, or a file of a folder it moved in) takes that
    dist's checksum instead of being read again (see :func:`recorded`). Then
    :data:`STATS`, the stat of every file as hashed. ``listed``: top-level folders whose
    files (relative path -> size, mtime, inode) the caller knows exactly, not walked."""
    known = known or {}
    started = time.time_ns()
    found = _all_files(folder, listed or {})
    before = recorded(previous) if previous is not None else {}
    files: dict[str, str] = {}
    unknown: list[str] = []
    for name, stat in found.items():
        digest = known.get(name)
        if digest is None:
            was = before.get(name)
            if was is not None and was[:3] == stat:
                digest = was[3]
        if digest is None:
            unknown.append(name)
        else:
            files[name] = digest
    files.update(_hash_all(str(folder), unknown, strict=True))
    names = sorted(found)
    manifest = {"artifact_version": ARTIFACT_VERSION, **fields,
                "files": {name: files[name] for name in names},
                "sizes": {name: found[name][0] for name in names}}
    forget_loaded()  # the previous build's, read for the last time above
    data = (manifest_text(manifest) + "\n").encode("utf-8")
    (folder / MANIFEST).write_bytes(data)
    _write_stats(folder, data, [found[name] for name in names], started)


def manifest_text(manifest: dict[str, Any]) -> str:
    """``json.dumps(manifest, indent=2)``, with its two largest members, ``files`` and
    ``sizes`` (flat, last, 400k entries each at 100k skills with the site), encoded a line
    each with the C string encoder instead of the indenting encoder, which is Python."""
    from json.encoder import encode_basestring_ascii as quoted

    flat = ("files", "sizes")
    last = list(manifest)[-2:]
    if last != list(flat) or not all(
            isinstance(manifest[name], dict) and manifest[name] for name in flat):
        return json.dumps(manifest, indent=2)
    files, sizes = manifest["files"], manifest["sizes"]
    if not (all(isinstance(k, str) and isinstance(v, str) for k, v in files.items())
            and all(isinstance(k, str) and type(v) is int for k, v in sizes.items())):
        return json.dumps(manifest, indent=2)
    head = json.dumps({k: v for k, v in manifest.items() if k not in flat}, indent=2)
    return "".join([
        head[:-2] + ",\n" if len(manifest) > 2 else "{\n",
        '  "files": {\n',
        ",\n".join([f"    {quoted(k)}: {quoted(v)}" for k, v in files.items()]),
        '\n  },\n  "sizes": {\n',
        ",\n".join([f"    {quoted(k)}: {v}" for k, v in sizes.items()]),
        "\n  }\n}"])


#: Beside the manifest (and not in it), the size, mtime and inode of each file it lists as
#: they were when it was hashed: a later build trusts a file whose stat is unchanged
#: instead of hashing it again (as git trusts its index), see :func:`recorded`.
STATS = "manifest.stat"
_STATS_MAGIC = b"skillsite-stat-1\n"
#: A file modified less than this before its stat was taken is always hashed again: a
#: change made within the same tick of the file system's clock keeps the mtime ("racily
#: clean" in git's words).
RACY_NS = 2_000_000_000


def _all_files(folder: Path, listed: dict[str, dict[str, tuple[int, int, int]]]
               ) -> dict[str, tuple[int, int, int]]:
    """The size, mtime (ns) and inode of every file of ``folder`` but the manifest and
    :data:`STATS`, by relative path (a symbolic link to a file as that file); those of the
    top-level entries in ``listed`` as it gives them."""
    tops = [top for top in os.listdir(folder) if top not in (MANIFEST, STATS, *listed)]
    folders = tuple(top for top in tops if (folder / top).is_dir()
                    and not (folder / top).is_symlink())
    found = _found_by_find(folder, folders) if folders else ({}, False)
    if found is None or found[1]:  # no find, or a symbolic link: walked here
        walked: dict[str, os.stat_result] = {}
        for top in tops:
            _stat_walk(str(folder), top, walked, links=True)
        files = {name: (s.st_size, s.st_mtime_ns, s.st_ino) for name, s in walked.items()}
        for given in listed.values():
            files.update(given)
        return files
    files = found[0]
    for given in listed.values():
        files.update(given)
    for top in tops:
        if top not in folders:
            walked = {}
            _stat_walk(str(folder), top, walked, links=True)
            files.update({name: (s.st_size, s.st_mtime_ns, s.st_ino)
                          for name, s in walked.items()})
    return files


def _write_stats(folder: Path, manifest: bytes, stats: list[tuple[int, int, int]],
                 started: int) -> None:
    from array import array

    values = array("q")
    for size, mtime, inode in stats:
        values.extend((size, mtime if mtime < started - RACY_NS else -1, inode))
    header = _STATS_MAGIC + hashlib.sha256(manifest).digest() + len(stats).to_bytes(8, "little")
    if values.itemsize != 8:  # pragma: no cover - a platform without 64-bit 'q'
        return
    (folder / STATS).write_bytes(header + values.tobytes())


def recorded(dist: Path, loaded: tuple[bytes, dict[str, Any]] | None = None
             ) -> dict[str, tuple[int, int, int, str]]:
    """What :data:`STATS` says of the files of ``dist``'s manifest: path -> size, mtime
    (ns), inode and sha256, for the files whose stat was taken safely after their last
    change; nothing when the record is missing, damaged or of another manifest.

    A file with that stat now is trusted to hold those bytes: a change made in place that
    keeps its size, mtime and inode is not seen (dist/ is the build's own output, and only
    what the build wrote there is carried forward)."""
    from array import array

    loaded = loaded or _load(dist)
    try:
        stat = os.stat(dist / STATS)
        seen = (stat.st_size, stat.st_mtime_ns, stat.st_ino)
        kept = _RECORDED.get(str(dist))
        if loaded is not None and kept is not None and kept[0] == seen \
                and kept[1] is loaded[0]:
            return kept[2]
        raw = (dist / STATS).read_bytes()
    except OSError:
        return {}
    if loaded is None:
        return {}
    manifest, listed = loaded
    files = listed.get("files")
    head = len(_STATS_MAGIC) + 32 + 8
    if (not isinstance(files, dict) or not raw.startswith(_STATS_MAGIC)
            or raw[len(_STATS_MAGIC):head - 8] != hashlib.sha256(manifest).digest()):
        return {}
    count = int.from_bytes(raw[head - 8:head], "little")
    values = array("q")
    if values.itemsize != 8 or count != len(files) or len(raw) - head != count * 24:
        return {}
    values.frombytes(raw[head:])
    found = {}
    triples = zip(*[iter(values)] * 3, strict=True)
    for (name, digest), (size, mtime, inode) in zip(files.items(), triples, strict=True):
        if mtime >= 0 and isinstance(name, str) and isinstance(digest, str):
            found[name] = (size, mtime, inode, digest)  # in the order written
    _RECORDED.clear()
    if _LOADED.get(str(dist / MANIFEST), ((), (b"", {})))[1][0] is manifest \
            and stat.st_mtime_ns < time.time_ns() - RACY_NS and len(raw) == stat.st_size:
        _RECORDED[str(dist)] = (seen, manifest, found)
    return found


#: What :func:`recorded` last found, by dist: the stat of :data:`STATS` it read, the
#: manifest's bytes (those :func:`_load` keeps) and the files. A build asks three times
#: (its cache, the previous site's check, its manifest): 400k files at 100k skills.
_RECORDED: dict[str, tuple[tuple[int, int, int], bytes, dict[str, tuple[int, int, int, str]]]] = {}


def read_manifest(dist: Path) -> dict[str, Any] | None:
    loaded = _load(dist)
    return loaded[1] if loaded else None


def _load(dist: Path) -> tuple[bytes, dict[str, Any]] | None:
    """The manifest's bytes and what they hold, or None. A build reads the previous
    manifest five times (70 MB of JSON at 100k skills with the site): the last one read
    is kept while its size, mtime and inode stay those it was read with (and it was
    written at least :data:`RACY_NS` before), until :func:`forget_loaded`. Callers must
    not change what it returns."""
    path = str(dist / MANIFEST)
    try:
        stat = os.stat(path)
        seen = (stat.st_size, stat.st_mtime_ns, stat.st_ino)
        kept = _LOADED.get(path)
        if kept is not None and kept[0] == seen:
            return kept[1]
        with open(path, "rb") as handle:
            data = handle.read()
        manifest = json.loads(data.decode("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict):
        return None
    _LOADED.clear()
    if stat.st_mtime_ns < time.time_ns() - RACY_NS and len(data) == stat.st_size:
        _LOADED[path] = (seen, (data, manifest))
    return data, manifest


#: The last manifest :func:`_load` read, by path: its stat, bytes and contents.
_LOADED: dict[str, tuple[tuple[int, int, int], tuple[bytes, dict[str, Any]]]] = {}


def forget_loaded() -> None:
    """Let go of the manifest :func:`_load` keeps (hundreds of MB at 100k skills), and
    of what :func:`recorded` found in it."""
    _LOADED.clear()
    _RECORDED.clear()


def intact(dist: Path, tops: tuple[str, ...],
           seen: dict[str, tuple[int, int, int]] | None = None) -> bool:
    """Whether the files under the top-level entries ``tops`` of ``dist`` are exactly the
    ones its manifest lists there, each with its sha256, and none a symbolic link: what a
    build may carry forward from it (hard-linked, so that a change made since would reach
    the new build too).

    A file whose size, mtime and inode are those :data:`STATS` recorded when it was hashed
    is trusted (see :func:`recorded`); only the others are read and hashed, on threads.
    A site holds four files a skill (400k at 100k skills), so the walk uses ``os.scandir``.
    When it is, ``seen`` receives the size, mtime and inode of each of those files."""
    loaded = _load(dist)
    listed = loaded[1].get("files") if loaded else None
    if loaded is None or not isinstance(listed, dict):
        return False
    wanted = {name: digest for name, digest in listed.items()
              if isinstance(name, str) and name.split("/", 1)[0] in tops}
    tops = tuple(top for top in tops if (dist / top).is_dir() and not (dist / top).is_symlink())
    # (A process of its own costs 10-20 ms: a folder of a few files is walked here.)
    by_find = (_found_by_find(dist, tops) if len(wanted) >= FIND_FROM else None) if tops \
        else ({}, False)
    if by_find is not None and by_find[1]:
        return False  # a symbolic link
    if by_find is None:
        walked: dict[str, os.stat_result] = {}
        for top in tops:
            if not _stat_walk(str(dist), top, walked):
                return False
        found = {name: (s.st_size, s.st_mtime_ns, s.st_ino) for name, s in walked.items()}
    else:
        found = by_find[0]
    if not wanted or len(found) != len(wanted) or found.keys() != wanted.keys():
        return False
    known = recorded(dist, loaded)
    unknown = []
    for name, stat in found.items():
        was = known.get(name)
        if was is None or was[:3] != stat or was[3] != wanted[name]:
            unknown.append(name)
    hashed = _hash_all(str(dist), unknown)
    whole = len(hashed) == len(unknown) and all(hashed[name] == wanted[name] for name in unknown)
    if whole and seen is not None:
        seen.update(found)
    return whole


#: From this many files listed, :func:`intact` lists them with ``find``.
FIND_FROM = 1000


def _found_by_find(dist: Path, tops: tuple[str, ...]
                   ) -> tuple[dict[str, tuple[int, int, int]], bool] | None:
    """The size, mtime (ns) and inode of every file under the folders ``tops`` of
    ``dist``, by relative path, listed by GNU ``find`` in its own process: 400k files at
    100k skills are walked in C, beside the build's threads instead of holding the
    interpreter lock; and whether it met a symbolic link (then the files are not all
    there). None where ``find`` is missing or fails (then the walk is done here)."""
    import subprocess
    import tempfile

    # Its output (30 MB at 100k skills) goes to a file, read at once: read from a pipe, a
    # chunk at a time, each read gave up the interpreter lock, and a thread of a busy
    # build (the previous site's check) waited a switch interval to take it back each
    # time, seconds in all.
    try:
        with tempfile.TemporaryFile() as listing:
            done = subprocess.run(["find", *tops, "-mindepth", "1", "-printf",
                                   "%y %s %T@ %i %p\\0"], cwd=dist, stdout=listing,
                                  stderr=subprocess.DEVNULL, check=False)
            listing.seek(0)
            output = listing.read()
    except OSError:
        return None
    if done.returncode != 0:
        return None
    found = {}
    try:
        for line in output.split(b"\0")[:-1]:
            kind, size, mtime, inode, path = line.split(b" ", 4)
            if kind == b"l":
                return {}, True
            if kind != b"f":
                continue
            seconds, _, fraction = mtime.partition(b".")
            found[os.fsdecode(path)] = (int(size), int(seconds) * 1_000_000_000
                                        + int(fraction[:9].ljust(9, b"0") or b"0"), int(inode))
    except ValueError:
        return None
    return found, False


#: Files hashed by one thread task of :func:`_hash_all`.
HASH_BATCH = 256


def _stat_walk(root: str, relative: str, found: dict[str, os.stat_result], *,
               links: bool = False) -> bool:
    """Add the files under ``root/relative`` (or that file) to ``found`` (relative, with
    ``/``), with their stat; False at a symbolic link (never carried forward), or with
    ``links`` a link to a file is taken as that file (and one to a folder left out)."""
    path = os.path.join(root, relative)
    if os.path.islink(path):
        if not links:
            return False
        if os.path.isfile(path):
            found[relative] = os.stat(path)
        return True
    if not os.path.isdir(path):
        if os.path.isfile(path):
            found[relative] = os.lstat(path)
        return True
    return _scan(path, relative + "/", found, links)


def _scan(path: str, prefix: str, found: dict[str, os.stat_result], links: bool) -> bool:
    """:func:`_stat_walk` of a folder (``prefix``: its relative path and ``/``)."""
    with os.scandir(path) as entries:
        for entry in entries:
            if entry.is_symlink():
                if not links:
                    return False
                if entry.is_file():
                    found[prefix + entry.name] = entry.stat()
            elif entry.is_dir(follow_symlinks=False):
                if not _scan(entry.path, f"{prefix}{entry.name}/", found, links):
                    return False
            elif entry.is_file(follow_symlinks=False):
                found[prefix + entry.name] = entry.stat(follow_symlinks=False)
    return True


def _hash_all(root: str, names: list[str], *, strict: bool = False) -> dict[str, str]:
    """The sha256 of each of ``names`` (relative to ``root``), hashed in batches on
    threads (hashing releases the interpreter lock); a file that cannot be read is left
    out, or with ``strict`` raises its OSError."""
    if len(names) <= HASH_BATCH:
        return _hash_batch(root, names, strict)
    from concurrent.futures import ThreadPoolExecutor

    batches = [names[start:start + HASH_BATCH] for start in range(0, len(names), HASH_BATCH)]
    hashed: dict[str, str] = {}
    with ThreadPoolExecutor(max_workers=4) as pool:
        for part in pool.map(lambda batch: _hash_batch(root, batch, strict), batches):
            hashed.update(part)
    return hashed


def _hash_batch(root: str, names: list[str], strict: bool) -> dict[str, str]:
    hashed = {}
    for name in names:
        try:
            with open(os.path.join(root, name), "rb", buffering=0) as handle:
                hashed[name] = hashlib.file_digest(handle, "sha256").hexdigest()
        except OSError:
            if strict:
                raise
    return hashed
