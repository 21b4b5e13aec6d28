"""Whether the previous build's site can be carried forward: the check of
:func:`skillsite.store.manifest.intact` (its files are exactly those its manifest lists,
each with its sha256), walked with ``os.scandir`` and hashed in batches on threads.

A site holds four files a skill (400k at 100k skills): ``pathlib``'s walk and one thread
task a file cost more than reading and hashing them (40 s of CPU at 100k, against about
a fifth of it here).
"""
from __future__ import annotations

import hashlib
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from skillsite.store.manifest import read_manifest

#: Files hashed by one thread task.
BATCH = 256


def intact(dist: Path, tops: tuple[str, ...]) -> bool:
    """Whether the files under the top-level entries ``tops`` of ``dist`` are exactly the
    ones its manifest lists there, each with its sha256 (and none a symbolic link)."""
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
    batches = [found[start:start + BATCH] for start in range(0, len(found), BATCH)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        return all(pool.map(lambda names: _match(str(dist), names, wanted), batches))


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
