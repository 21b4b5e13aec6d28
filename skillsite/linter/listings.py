"""What the discovery walk remembers of each folder between builds.

A folder whose mtime has not changed since the previous walk holds the same entries, so an
incremental build takes its :data:`Listing` from the previous build instead of listing it
again. Listings too recent to trust are not kept (see :func:`racy`).
"""
from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping
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


class Lazy(Mapping[str, Listing]):
    """Listings read only as far as they are asked for (see :class:`Overlay`, and the
    build cache's shards); :meth:`as_dict` makes them a plain dict for the readers of
    every folder's."""

    def as_dict(self) -> dict[str, Listing]:
        raise NotImplementedError


def as_dict(listings: Mapping[str, Listing]) -> dict[str, Listing]:
    """``listings`` as a plain dict (itself when it is one)."""
    if isinstance(listings, dict):
        return listings
    if isinstance(listings, Lazy):
        return listings.as_dict()
    return dict(listings)


class Overlay(Lazy):
    """``base`` with the listings of ``over`` put over it and the folders of ``gone``
    taken out, without a copy of ``base``: the listings of the whole tree after a
    :func:`~skillsite.linter.discover.rewalk`, where ``base`` is the previous build's
    (183k folders at 100k skills, most of them never read again). It reads and iterates
    as the dict ``{**{k: v for k, v in base.items() if k not in gone}, **over}``."""

    def __init__(self, base: Mapping[str, Listing], over: dict[str, Listing],
                 gone: set[str]) -> None:
        self.base, self.over, self.gone = base, over, frozenset(gone)
        #: The folders of ``over`` that ``base`` (less ``gone``) does not hold, in order.
        self.added = [key for key in over if key in self.gone or key not in base]

    def __getitem__(self, key: str) -> Listing:
        found = self.over.get(key)
        if found is not None:
            return found
        if key in self.gone:
            raise KeyError(key)
        return self.base[key]

    def __contains__(self, key: object) -> bool:
        return key in self.over or (key not in self.gone and key in self.base)

    def __len__(self) -> int:
        return len(self.base) - len(self.gone) + len(self.added)

    def __iter__(self) -> Iterator[str]:
        gone = self.gone
        yield from (key for key in self.base if key not in gone)
        yield from self.added

    def same_folders(self) -> bool:
        """Whether the folders are those of ``base``: none gone, none new."""
        return not removed(self.base, self) and all(map(self.base.__contains__, self.added))

    def as_dict(self) -> dict[str, Listing]:
        merged = dict(as_dict(self.base))
        for key in self.gone:
            del merged[key]
        merged.update(self.over)
        return merged


def removed(previous: Mapping[str, Listing], current: Mapping[str, Listing]) -> set[str]:
    """The folders of ``previous`` that ``current`` no longer holds."""
    if isinstance(current, Overlay) and current.base is previous:
        return {key for key in current.gone if key not in current.over}
    return set(previous.keys() - current.keys())


@dataclass
class Listings:
    """Folder listings kept between builds: a folder whose mtime has not changed since the
    previous walk holds the same entries, so it is not listed again. Folders with a
    symlink or a special file in them are always listed, since a link's target can
    change without its folder noticing."""

    previous: Mapping[str, Listing] = field(default_factory=dict)
    #: This walk's listings, to keep for the next one (see :meth:`whole`).
    current: dict[str, Listing] = field(default_factory=dict)
    #: mtime_ns of every folder this walk visited (not through a symlink), by path.
    mtimes: dict[str, int] = field(default_factory=dict)
    started: int = field(default_factory=time.time_ns)
    #: Whether ``current`` covers every folder of the tree, so far.
    complete: bool = True
    #: After a :func:`~skillsite.linter.discover.rewalk`, the folders it listed: every
    #: other listing of ``current`` is the very object of ``previous``. None otherwise.
    relisted: frozenset[str] | None = None
    #: After a rewalk, the listings of the whole tree: ``current`` over ``previous``.
    tree: Overlay | None = None

    def whole(self) -> Mapping[str, Listing]:
        """The listings of the whole tree: ``current``, or :attr:`tree` after a rewalk."""
        return self.tree if self.tree is not None else self.current


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
