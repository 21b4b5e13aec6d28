"""What the discovery walk remembers of each folder between builds.

A folder whose mtime has not changed since the previous walk holds the same entries, so an
incremental build takes its :data:`Listing` from the previous build instead of listing it
again. Listings too recent to trust are not kept (see :func:`racy`).
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field


def racy(mtime_ns: int, now_ns: int) -> bool:
    """Whether something modified at ``mtime_ns`` may change again, unseen, at ``now_ns``.

    A file system stamps mtimes from a clock that ticks every few milliseconds (every
    second or two on some), so a second change within the same tick leaves the mtime as
    it was; a listing or stat that recent is not trusted later (git's "racily clean"
    rule). A whole-second mtime suggests a coarse file system.
    """
    window = 2_000_000_000 if mtime_ns % 1_000_000_000 == 0 else 100_000_000
    return mtime_ns >= now_ns - window


#: What a folder holds, as far as discovery cares: (mtime_ns, holds a SKILL.md,
#: subfolder names, (file name, kind) pairs), in the order the walk takes them.
Listing = tuple[int, bool, tuple[str, ...], tuple[tuple[str, str], ...]]


@dataclass
class Listings:
    """Folder listings kept between builds: a folder whose mtime has not changed since the
    previous walk holds the same entries, so it is not listed again. Folders with a
    symlink or a special file in them are always listed, since a link's target can
    change without its folder noticing."""

    previous: dict[str, Listing] = field(default_factory=dict)
    #: This walk's listings, to keep for the next one.
    current: dict[str, Listing] = field(default_factory=dict)
    #: mtime_ns of every folder this walk visited (not through a symlink), by path.
    mtimes: dict[str, int] = field(default_factory=dict)
    started: int = field(default_factory=time.time_ns)
    #: Whether ``current`` covers every folder of the tree, so far.
    complete: bool = True
    #: After a :func:`~skillsite.linter.discover.rewalk`, the folders it listed: every
    #: other listing of ``current`` is the very object of ``previous``. None otherwise.
    relisted: frozenset[str] | None = None


def folder_chain(folder: str, top: str) -> list[str] | None:
    """``top`` and every folder from it down to ``folder``, or None if not below it."""
    if folder == top:
        return [top]
    if not folder.startswith(top + os.sep):
        return None
    chain = [top]
    for name in folder[len(top) + 1:].split(os.sep):
        chain.append(chain[-1] + os.sep + name)
    return chain


def unchanged_listing(folder: str, listings: Listings) -> Listing | None:
    """The previous listing of ``folder`` if the folder has not changed since."""
    try:
        mtime = os.stat(folder).st_mtime_ns
    except OSError:
        return None
    listings.mtimes[folder] = mtime
    listing = listings.previous.get(folder)
    if listing is None or listing[0] != mtime:
        return None
    listings.current[folder] = listing
    return listing


def record_listing(folder: str, listings: Listings, has_skill: bool, subfolders: list[str],
            candidates: list[tuple[str, str]]) -> None:
    mtime = listings.mtimes.get(folder)
    if mtime is not None and not racy(mtime, listings.started):
        candidates.sort()
        listings.current[folder] = (mtime, has_skill, tuple(subfolders), tuple(candidates))
    else:
        listings.complete = False
