"""Find skill files under the given roots without ever leaving them.

Symlinks are followed only when they resolve inside the root and do not lead back into a
folder already being walked; broken, escaping and looping links are reported instead.
"""
from __future__ import annotations

import fnmatch
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path, PurePath
from typing import NamedTuple, cast

from skillsite.linter.listings import (
    Listing,
    Listings,
    Overlay,
    folder_chain,
    record_listing,
    unchanged_listing,
)
from skillsite.linter.skilltree import FILE, FOLDER, OTHER, Entry, Tree, list_skill
from skillsite.linter.skilltree import entries as kinds_of
from skillsite.models import Document, Issue, Source

#: Folders never worth walking: version control, dependencies, caches, build output.
SKIPPED_DIRS = frozenset({
    ".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".nox",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", "site-packages", ".skillsite-cache",
})
CANDIDATE = "markdown"  # a Markdown page that may be a Mini-A virtual skill


@dataclass(frozen=True)
class Flagged:
    """A path discovery could not use, with the problem to report for it."""

    path: Path
    issue: Issue


_NAME = attrgetter("name")


def kind_of(name: str) -> str | None:
    """The format a file name announces, or None."""
    if name == "SKILL.md":
        return "skill-md"
    if name.endswith(".skill.toml"):
        return "skill-toml"
    if name == "skill.json":
        return "skill-json"
    if name.lower().endswith((".md", ".markdown")):
        return CANDIDATE  # a Mini-A virtual skill if its front matter says so
    return None


def discover(paths: list[Path], *, exclude: tuple[str, ...] = (),
             flagged: list[Flagged] | None = None,
             listings: Listings | None = None) -> Iterator[Source]:
    """Yield every skill-file candidate under ``paths``, in a stable order.

    Problems with paths (broken, escaping or looping symlinks, missing paths) are appended
    to ``flagged``. With ``listings``, unchanged folders are taken from it and every
    listing is recorded in it.
    """
    sink = flagged if flagged is not None else []
    for given in paths:
        if not os.path.lexists(given):
            sink.append(Flagged(given, Issue("unreadable-file", 1, 1,
                                             f"{given} does not exist")))
            continue
        if given.is_file():
            kind = kind_of(given.name)
            if kind:
                yield Source(given, given.parent, kind)
            continue
        trees: dict[str, Tree] = {}
        below, top = _below(given), str(given)
        # Below an absolute, normalized root, each path found is too: its folder is
        # what precedes its name (``links.folder_of`` would join and normalize it again).
        cut = top != os.sep and os.path.isabs(top) and os.path.normpath(top) == top
        for path, kind in _walk(given, given.resolve(), exclude, sink, listings,
                                trees=trees if listings is None else None):
            yield Source(below(path), given, kind, trees.pop(path, None),
                         path[:path.rfind(os.sep)] if cut else None)


#: ``PurePath._from_parsed_parts`` of Python 3.11, which makes a path of parts already
#: split and normalized. ``Path(text)`` splits and normalizes ``text`` again (some 3 us,
#: a tenth of a cold check's walk at 10k skills); later versions parse a path only when
#: asked to (and changed this helper).
_FROM_PARTS = sys.version_info[:2] == (3, 11) and os.sep == "/" and hasattr(
    PurePath, "_from_parsed_parts")


def _below(given: Path) -> Callable[[str], Path]:
    """``Path`` for each path the walk of the folder ``given`` finds: ``str(given)``, the
    separator and the names below it."""
    top = os.path.join(str(given), "")
    if not _FROM_PARTS or top == "./" or top == "/":
        return Path
    make = type(given)._from_parsed_parts  # type: ignore[attr-defined]
    drive, root, parts = given._drv, given._root, given._parts  # type: ignore[attr-defined]
    cut = len(top)

    def below(path: str) -> Path:
        if path.startswith(top):
            made = make(drive, root, parts + path[cut:].split("/"))
            made._str = path  # what str() would join again
            return cast(Path, made)
        return Path(path)
    return below


def walk_files(root: Path, *, exclude: tuple[str, ...] = (), flagged: list[Flagged],
               listings: Listings | None = None) -> Iterator[tuple[str, str]]:
    """:func:`discover` for one folder, as (path, kind) strings: cheaper where most files
    are only looked up in a cache (an incremental build of a large corpus)."""
    return _walk(root, root.resolve(), exclude, flagged, listings)


def rewalk(root: Path, folders: Iterable[str], *, exclude: tuple[str, ...],
           listings: Listings) -> list[tuple[str, str]] | None:
    """List again only ``folders`` (their mtime moved since ``listings.previous`` was
    recorded) and the folders that are new below them; every other folder holds what it
    held. Returns the files of the folders listed, and leaves in ``listings.tree`` the
    listings of the whole tree (those it listed are ``listings.current``).

    None when this cannot stand in for a full walk: a folder gained or lost its
    SKILL.md (which changes what the Markdown below it is), holds a symlink or a special
    file, or could not be recorded (nothing is flagged then: the full walk will be).
    """
    real_root = root.resolve()
    previous, top, real_top = listings.previous, str(root), str(real_root)
    changed = sorted(set(folders))
    gone = {folder for folder in changed if not os.path.isdir(folder)}
    here = [folder for folder in changed if folder not in gone]
    if any(folder not in previous or os.path.dirname(folder) not in changed for folder in gone) \
            or any(folder not in previous for folder in here):
        return None
    sink: list[Flagged] = []
    files: list[tuple[str, str]] = []
    for folder in here:
        chain = folder_chain(folder, top)
        if chain is None or any(a not in previous for a in chain):
            return None
        inherited = any(previous[a][1] for a in chain[:-1])
        reals = [real_top + a[len(top):] for a in chain]
        start = _Folder(folder, reals[-1], frozenset(reals), False, inherited)
        files += _walk(root, real_root, exclude, sink, listings, starts=[start],
                       descend=lambda path: path not in previous)
    if sink or not listings.complete or any(
            folder not in listings.current or listings.current[folder][1] != previous[folder][1]
            for folder in here):
        return None
    gone_below: set[str] = set()
    for folder in here:
        lost = [folder + os.sep + name
                for name in set(previous[folder][2]) - set(listings.current[folder][2])]
        while lost:  # a subfolder that went, and everything below it
            path = lost.pop()
            listing = previous.get(path) if path not in gone_below else None
            if listing is not None:
                gone_below.add(path)
                lost += [path + os.sep + name for name in listing[2]]
    listings.relisted = frozenset(listings.current)
    # The previous listings, less those gone, under those listed again: not a copy of
    # every folder's (only the few looked at are read, see Overlay).
    listings.tree = Overlay(previous, listings.current, gone_below)
    return files


def _exclusion(exclude: tuple[str, ...]) -> Callable[[str], re.Match[str] | None] | None:
    """One compiled matcher for every ``exclude`` glob (as :func:`fnmatch.fnmatch` reads
    them), or None: the walk tests each entry's name and relative path against it."""
    if not exclude:
        return None
    return re.compile("|".join(f"(?:{fnmatch.translate(os.path.normcase(pattern))})"
                               for pattern in exclude)).match


class _Folder(NamedTuple):
    """A folder waiting to be walked."""

    path: str  # as found
    real: str  # its real path
    ancestors: frozenset[str]  # the real paths of the folders above it, and its own
    via_link: bool  # reached through a symlink
    in_skill: bool  # inside a SKILL.md skill's folder


@dataclass
class _Scan:
    """What the listing of one folder gave."""

    in_skill: bool
    tree: Tree | None  # the skill's tree, when the folder holds a SKILL.md and trees are kept
    keep: bool  # a listing worth recording for the next incremental build
    files: list[tuple[str, str]] = field(default_factory=list)
    subfolders: list[str] = field(default_factory=list)
    candidates: list[tuple[str, str]] = field(default_factory=list)


def _walk(root: Path, real_root: Path, exclude: tuple[str, ...],
          sink: list[Flagged], listings: Listings | None, starts: list[_Folder] | None = None,
          descend: Callable[[str], bool] | None = None,
          trees: dict[str, Tree] | None = None) -> Iterator[tuple[str, str]]:
    """The walk from ``root``, or from ``starts`` going down only into the subfolders
    ``descend`` accepts (see :func:`rewalk`). With ``trees``, the folders of each skill
    are listed when its ``SKILL.md`` is found, and its tree is put there under that path."""
    walk = _Walker(root, real_root, exclude, sink, listings, descend, trees)
    top, real_top = str(root), str(real_root)
    return walk.run(starts or [_Folder(top, real_top, frozenset({real_top}), False, False)])


class _Walker:
    """One walk. A file reached twice (through a symlinked folder and directly) is checked
    once, under its real path: whatever is reached through a symlink waits until the rest
    is walked. Paths are plain strings, joined by hand: this sees every entry of the tree."""

    def __init__(self, root: Path, real_root: Path, exclude: tuple[str, ...],
                 sink: list[Flagged], listings: Listings | None,
                 descend: Callable[[str], bool] | None, trees: dict[str, Tree] | None) -> None:
        self.real_root, self.top = real_root, str(root)
        self.excluded = _exclusion(exclude)
        self.sink, self.listings, self.descend, self.trees = sink, listings, descend, trees
        self.seen: set[tuple[str, str]] = set()
        self.stack: list[_Folder] = []
        self.linked: list[_Folder] = []
        self.listed: dict[str, list[os.DirEntry[str]]] = {}  # listed with a skill's tree
        #: A walk that records no listing and excludes nothing (a check).
        self.plain = listings is None and self.excluded is None

    def run(self, starts: list[_Folder]) -> Iterator[tuple[str, str]]:
        self.stack = list(starts)
        while self.stack or self.linked:
            folder = self.stack.pop() if self.stack else self.linked.pop()
            unchanged = None
            if self.listings is not None and not folder.via_link:
                unchanged = unchanged_listing(folder.path, self.listings)
            if unchanged is not None:  # the common case of an incremental build
                yield from self._from_listing(folder, unchanged)
            else:
                yield from self._list(folder)

    def _from_listing(self, folder: _Folder, unchanged: Listing) -> Iterator[tuple[str, str]]:
        """The folder as the previous build listed it, unchanged since: kept lean."""
        in_skill = folder.in_skill or unchanged[1]
        here, real_here = folder.path + os.sep, folder.real + os.sep
        for name in unchanged[2]:
            real = real_here + name
            if self.descend is None or self.descend(here + name):
                self.stack.append(_Folder(here + name, real, folder.ancestors | {real}, False,
                                          in_skill))
        for name, known in unchanged[3]:
            if not (in_skill and known == CANDIDATE):
                real = real_here + name
                if (real, known) not in self.seen:
                    self.seen.add((real, known))
                    yield here + name, known

    def _list(self, folder: _Folder) -> list[tuple[str, str]]:
        """Read the folder, queue its subfolders and return its skill files, by name."""
        try:
            raw = self.listed.pop(folder.path, None)
            raw = list(os.scandir(folder.path)) if raw is None else raw
            if self.plain:  # a check: a folder without symlinks goes the short way
                has_skill = False
                for entry in raw:
                    if entry.is_symlink():
                        break
                    if entry.name == "SKILL.md":
                        has_skill = True
                else:
                    return self._list_plain(folder, raw, has_skill)
            # sorted(key=(not is_symlink, name), reverse=True): the rest, then the links,
            # each by name from the last (names are unique), without a key tuple each.
            links = [e for e in raw if e.is_symlink()]
            entries = sorted(raw if not links else [e for e in raw if not e.is_symlink()],
                             key=_NAME, reverse=True)
            entries += sorted(links, key=_NAME, reverse=True)
        except OSError as exc:
            self.sink.append(Flagged(Path(folder.path), Issue(
                "unreadable-file", 1, 1, f"cannot list folder: {exc.strerror}")))
            if self.listings is not None:
                self.listings.complete = False
            return []
        # Markdown beside a SKILL.md, or below it, is the skill's own reference material
        # (Agent Skills layout), never a Mini-A page of its own.
        has_skill = any(e.name == "SKILL.md" for e in entries)
        keeps_tree = has_skill and self.trees is not None and not folder.via_link
        scan = _Scan(in_skill=folder.in_skill or has_skill,
                     tree=list_skill(raw, self.listed) if keeps_tree else None,
                     keep=self.listings is not None and not folder.via_link)
        for entry in entries:
            self._add(entry, folder, scan)
        if scan.keep:
            assert self.listings is not None
            record_listing(folder.path, self.listings, has_skill, scan.subfolders,
                           scan.candidates)
        elif self.listings is not None:
            self.listings.complete = False
        return sorted(scan.files)

    def _list_plain(self, folder: _Folder, raw: list[os.DirEntry[str]],
                    has_skill: bool) -> list[tuple[str, str]]:
        """:meth:`_list` of a folder without symlinks, in a walk that records no listing
        and excludes nothing (a check): what :meth:`_add` does for each entry, without a
        :class:`_Scan` or a call per entry. A skill's folder is sorted from the kinds its
        tree holds of its entries, and only its subfolders by name (for the stack)."""
        in_skill = folder.in_skill or has_skill
        trees = self.trees if has_skill and not folder.via_link else None
        tree = list_skill(raw, self.listed) if trees is not None else None
        files: list[tuple[str, str]] = []
        folders: list[os.DirEntry[str]] = []
        odd: list[os.DirEntry[str]] = []  # not regular files: flagged
        here = folder.real + os.sep
        for (name, entry_kind), entry in zip(tree[""] if tree is not None else kinds_of(raw),
                                             raw, strict=True):
            if entry_kind == FOLDER:
                if name not in SKIPPED_DIRS:
                    below = tree.get(name) if tree is not None else None
                    if below is not None and _quiet(below):
                        # Listed with the skill's tree, and it holds nothing this walk
                        # looks for: not visited (most of a skill's folders).
                        self.listed.pop(entry.path, None)
                    else:
                        folders.append(entry)
                continue
            kind = kind_of(name)
            if kind is None or (kind == CANDIDATE and in_skill):
                continue  # a skill's own Markdown: no page of its own
            if entry_kind != FILE:
                odd.append(entry)
                continue
            key = (here + name, kind)
            if key not in self.seen:
                self.seen.add(key)
                files.append((entry.path, kind))
                if trees is not None and tree is not None and kind == "skill-md":
                    trees[entry.path] = tree
        for entry in sorted(odd, key=_NAME, reverse=True):  # in the order _list met them
            self.sink.append(Flagged(Path(entry.path), Issue(
                "unreadable-file", 1, 1,
                "not a regular file (a FIFO, socket or device); it was not read")))
        if folders:  # onto the stack from the last by name: walked by name
            folders.sort(key=_NAME, reverse=True)
            for entry in folders:
                self._add_folder(entry.path, here + entry.name, folder, in_skill, False)
        files.sort()
        return files

    def _add(self, entry: os.DirEntry[str], folder: _Folder, scan: _Scan) -> None:
        """Sort one folder entry into ``scan``: a subfolder to walk, a skill file, or
        nothing (skipped, excluded, or flagged)."""
        name, is_link = entry.name, entry.is_symlink()
        is_dir = not is_link and entry.is_dir(follow_symlinks=False)
        kind = None if is_dir else kind_of(name)
        if not (is_dir or is_link or kind) or name in SKIPPED_DIRS or self._excluded(entry):
            return
        scan.keep = scan.keep and not is_link
        if kind == CANDIDATE and scan.in_skill and not is_link:
            if entry.is_file(follow_symlinks=False):
                scan.candidates.append((name, kind))  # a page again once the SKILL.md goes
            return
        real = folder.real + os.sep + name
        if is_link:
            target = _inside(Path(entry.path), self.real_root, self.sink)
            if target is None:
                return
            real, is_dir = str(target), target.is_dir()
        if is_dir:
            self._add_folder(entry.path, real, folder, scan.in_skill, is_link)
            scan.subfolders.append(name)
        elif kind:
            self._add_file(entry, real, kind, is_link, scan)

    def _excluded(self, entry: os.DirEntry[str]) -> bool:
        return self.excluded is not None and (
            self.excluded(os.path.normcase(entry.name)) is not None
            or self.excluded(os.path.normcase(relative_path(entry.path, self.top))) is not None)

    def _add_folder(self, path: str, real: str, parent: _Folder, in_skill: bool,
                    is_link: bool) -> None:
        if real in parent.ancestors:
            self.sink.append(Flagged(Path(path), Issue(
                "symlink-loop", 1, 1,
                "symlink points back into a folder that contains it; it was not followed")))
        elif self.descend is None or self.descend(path):
            follows_link = parent.via_link or is_link
            (self.linked if follows_link else self.stack).append(
                _Folder(path, real, parent.ancestors | {real}, follows_link, in_skill))

    def _add_file(self, entry: os.DirEntry[str], real: str, kind: str, is_link: bool,
                  scan: _Scan) -> None:
        if not (os.path.isfile(real) if is_link else entry.is_file(follow_symlinks=False)):
            # Opening a FIFO would block forever; a device could be read without end.
            self.sink.append(Flagged(Path(entry.path), Issue(
                "unreadable-file", 1, 1,
                "not a regular file (a FIFO, socket or device); it was not read")))
            scan.keep = False
            return
        scan.candidates.append((entry.name, kind))
        # Keyed by kind too: "notes.md -> SKILL.md" must not hide the SKILL.md itself.
        if (real, kind) not in self.seen:
            self.seen.add((real, kind))
            scan.files.append((entry.path, kind))
            if scan.tree is not None and self.trees is not None and kind == "skill-md":
                self.trees[entry.path] = scan.tree


def _quiet(listing: list[Entry]) -> bool:
    """Whether a folder inside a skill, with these entries, gives the walk nothing: no
    subfolder, no symlink, and no file it would yield or flag (inside a skill, Markdown
    is the skill's own and any other file is no skill file)."""
    for name, entry_kind in listing:
        if ((entry_kind != FILE and entry_kind != OTHER) or name == "SKILL.md"
                or name == "skill.json" or name.endswith(".skill.toml")):
            return False
    return True


def own_path(doc: Document) -> str:
    """The path of ``doc``'s file below its corpus root, with ``/`` separators."""
    # The absolute folder links.folder_of worked out for the rules, when it did: the
    # file's absolute path is that folder and its name, without a second abspath.
    folder, name = doc.derived.get("folder"), os.path.basename(doc.source.path)
    path = (os.path.join(folder, name) if folder is not None and name not in ("", ".", "..")
            else os.path.abspath(doc.source.path))
    return relative_path(path, os.path.abspath(doc.source.root))


def relative_path(path: str, top: str) -> str:
    """``path`` relative to the folder ``top``, with ``/`` separators."""
    if path.startswith(top + os.sep):  # the usual case, without relpath's cost
        return path[len(top) + 1:].replace(os.sep, "/")
    return os.path.relpath(path, top).replace(os.sep, "/")


def _inside(link: Path, real_root: Path, sink: list[Flagged]) -> Path | None:
    """Resolve ``link``; None (and a flagged problem) if it is broken or leaves the root."""
    try:
        target = link.resolve(strict=True)
    except RuntimeError:
        sink.append(Flagged(link, Issue("symlink-loop", 1, 1,
                                        "symlink chain loops back on itself; remove it")))
        return None
    except OSError:
        sink.append(Flagged(link, Issue("symlink-broken", 1, 1,
                                        f"symlink target {os.readlink(link)!r} does not "
                                        "exist; fix or remove the link")))
        return None
    if target != real_root and real_root not in target.parents:
        sink.append(Flagged(link, Issue("symlink-escape", 1, 1,
                                        f"symlink points outside the corpus root "
                                        f"(to {target}); it was not followed")))
        return None
    return target
