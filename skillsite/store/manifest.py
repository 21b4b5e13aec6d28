"""``manifest.json``: what a ``dist/`` holds, and the sha256 of every other file in it.

The build writes it last; a reader checks ``artifact_version`` (another major is refused),
each file's size before it reads it, and the checksums when asked to verify.
"""
from __future__ import annotations

import hashlib
import json
import os
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
#: 1.2 added ``vectors/`` (with the semantic extra).
ARTIFACT_VERSION = "1.2"


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
                   known: dict[str, str] | None = None) -> None:
    """The manifest of ``folder``; ``known`` are checksums already taken."""
    known = known or {}
    files = {**file_checksums(folder, previous, skip=known), **known}
    sizes = {name: (folder / name).stat().st_size for name in sorted(files)}
    manifest = {"artifact_version": ARTIFACT_VERSION, **fields,
                "files": dict(sorted(files.items())), "sizes": sizes}
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=False) + "\n",
                                   encoding="utf-8")


def read_manifest(dist: Path) -> dict[str, Any] | None:
    try:
        manifest = json.loads((dist / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) else None


def intact(dist: Path, tops: tuple[str, ...]) -> bool:
    """Whether the files under the top-level entries ``tops`` of ``dist`` are exactly the
    ones its manifest lists there, each with its sha256, and none a symbolic link: what a
    build may carry forward from it (hard-linked, so that a change made since would reach
    the new build too).

    A site holds four files a skill (400k at 100k skills), so the walk uses ``os.scandir``
    and the files are hashed in batches on threads: ``pathlib``'s walk and one thread task
    a file cost more than reading and hashing them."""
    from concurrent.futures import ThreadPoolExecutor

    listed = (read_manifest(dist) or {}).get("files")
    if not isinstance(listed, dict):
        return False
    wanted = {name: digest for name, digest in listed.items()
              if isinstance(name, str) and name.split("/", 1)[0] in tops}
    found: list[str] = []
    for top in tops:
        folder = dist / top
        if folder.is_dir() and not folder.is_symlink() and not _walk(str(dist), top, found):
            return False
    if not wanted or len(found) != len(wanted) or set(found) != wanted.keys():
        return False
    batches = [found[start:start + HASH_BATCH] for start in range(0, len(found), HASH_BATCH)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        return all(pool.map(lambda names: _match(str(dist), names, wanted), batches))


#: Files hashed by one thread task of :func:`intact`.
HASH_BATCH = 256


def _walk(root: str, relative: str, found: list[str]) -> bool:
    """Add the files under ``root/relative`` to ``found`` (relative, with ``/``); False
    at a symbolic link (never carried forward)."""
    with os.scandir(os.path.join(root, relative)) as entries:
        for entry in entries:
            name = f"{relative}/{entry.name}"
            if entry.is_symlink():
                return False
            if entry.is_dir(follow_symlinks=False):
                if not _walk(root, name, found):
                    return False
            elif entry.is_file(follow_symlinks=False):
                found.append(name)
    return True


def _match(root: str, names: list[str], wanted: dict[str, str]) -> bool:
    for name in names:
        try:
            with open(os.path.join(root, name), "rb", buffering=0) as handle:
                digest = hashlib.file_digest(handle, "sha256").hexdigest()
        except OSError:
            return False
        if digest != wanted[name]:
            return False
    return True
