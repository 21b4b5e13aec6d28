"""Find skill files under the given roots without ever leaving them.

Symlinks are followed only when they resolve inside the root and do not lead back into a
folder already being walked; broken, escaping and looping links are reported instead.
"""
from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

from skillsite.linter.listings import (
    Listings,
    folder_chain,
    record_listing,
    unchanged_listing,
)
from skillsite.linter.skilltree import Tree, list_skill
from skillsite.models import Issue, Source

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
        for path, kind in _walk(given, given.resolve(), exclude, sink, listings,
                                trees=trees if listings is None else None):
            yield Source(Path(path), given, kind, trees.pop(path, None))


def walk_files(root: Path, *, exclude: tuple[str, ...] = (), flagged: list[Flagged],
               listings: Listings | None = None) -> Iterator[tuple[str, str]]:
    """:func:`discover` for one folder, as (path, kind) strings: cheaper where most files
    are only looked up in a cache (an incremental build of a large corpus)."""
    return _walk(root, root.resolve(), exclude, flagged, listings)


def rewalk(root: Path, folders: Iterable[str], *, exclude: tuple[str, ...],
           listings: Listings) -> list[tuple[str, str]] | None:
    """List again only ``folders`` (their mtime moved since ``listings.previous`` was
    recorded) and the folders that are new below them; every other folder holds what it
    held. Returns the files of the folders listed, and leaves in ``listings.current``
    the listings of the whole tree.

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
        start = (folder, reals[-1], frozenset(reals), False, inherited)
        files += _walk(root, real_root, exclude, sink, listings, starts=[start],
                       descend=lambda path: path not in previous)
    if sink or not listings.complete or any(
            folder not in listings.current or listings.current[folder][1] != previous[folder][1]
            for folder in here):
        return None
    kept = dict(previous)
    for folder in here:
        lost = [folder + os.sep + name
                for name in set(previous[folder][2]) - set(listings.current[folder][2])]
        while lost:  # a subfolder that went, and everything below it
            path = lost.pop()
            listing = kept.pop(path, None)
            if listing is not None:
                lost += [path + os.sep + name for name in listing[2]]
    listings.current = {**kept, **listings.current}
    return files


def _exclusion(exclude: tuple[str, ...]) -> Callable[[str], re.Match[str] | None] | None:
    """One compiled matcher for every ``exclude`` glob (as :func:`fnmatch.fnmatch` reads
    them), or None: the walk tests each entry's name and relative path against it."""
    if not exclude:
        return None
    return re.compile("|".join(f"(?:{fnmatch.translate(os.path.normcase(pattern))})"
                               for pattern in exclude)).match


#: A folder to walk: path as found, real path, real ancestors, reached through a symlink,
#: inside a SKILL.md skill's folder.
_Folder = tuple[str, str, frozenset[str], bool, bool]


def _walk(root: Path, real_root: Path, exclude: tuple[str, ...],  # noqa: C901, PLR0912, PLR0915 (to split)
          sink: list[Flagged], listings: Listings | None, starts: list[_Folder] | None = None,
          descend: Callable[[str], bool] | None = None,
          trees: dict[str, Tree] | None = None) -> Iterator[tuple[str, str]]:
    """The walk from ``root``, or from ``starts`` going down only into the subfolders
    ``descend`` accepts (see :func:`rewalk`). With ``trees``, the folders of each skill
    are listed when its ``SKILL.md`` is found, and its tree is put there under that path."""
    # A file reached twice (through a symlinked folder and directly) is checked once, under
    # its real path: whatever is reached through a symlink waits until the rest is walked.
    # Paths are plain strings, joined by hand: this loop sees every entry of the tree.
    seen: set[tuple[str, str]] = set()
    sep = os.sep
    excluded = _exclusion(exclude)
    top, real_top = str(root), str(real_root)
    stack: list[_Folder] = starts or [(top, real_top, frozenset({real_top}), False, False)]
    linked: list[_Folder] = []
    listed: dict[str, list[os.DirEntry[str]]] = {}  # listed with a skill's tree, not yet walked
    while stack or linked:
        folder, real_folder, ancestors, via_link, in_skill = (stack.pop() if stack
                                                              else linked.pop())
        unchanged = None
        if listings is not None and not via_link:
            unchanged = unchanged_listing(folder, listings)
        if unchanged is not None:  # the common case of an incremental build: keep it lean
            in_skill = in_skill or unchanged[1]
            here, real_here = folder + sep, real_folder + sep
            for name in unchanged[2]:
                real = real_here + name
                if descend is None or descend(here + name):
                    stack.append((here + name, real, ancestors | {real}, False, in_skill))
            for name, known in unchanged[3]:
                if not (in_skill and known == CANDIDATE):
                    real = real_here + name
                    if (real, known) not in seen:
                        seen.add((real, known))
                        yield here + name, known
            continue
        try:
            raw = listed.pop(folder, None)
            raw = list(os.scandir(folder)) if raw is None else raw
            entries = sorted(raw, key=lambda e: (not e.is_symlink(), e.name), reverse=True)
        except OSError as exc:
            sink.append(Flagged(Path(folder), Issue("unreadable-file", 1, 1,
                                                    f"cannot list folder: {exc.strerror}")))
            if listings is not None:
                listings.complete = False
            continue
        files: list[tuple[str, str]] = []
        # Markdown beside a SKILL.md, or below it, is the skill's own reference material
        # (Agent Skills layout), never a Mini-A page of its own.
        has_skill = any(e.name == "SKILL.md" for e in entries)
        in_skill = in_skill or has_skill
        tree = list_skill(raw, listed) if has_skill and trees is not None and not via_link else None
        keep = listings is not None and not via_link  # a listing worth recording
        subfolders: list[str] = []
        candidates: list[tuple[str, str]] = []
        for entry in entries:
            name, is_link = entry.name, entry.is_symlink()
            is_dir = not is_link and entry.is_dir(follow_symlinks=False)
            kind = None if is_dir else kind_of(name)
            if not (is_dir or is_link or kind) or name in SKIPPED_DIRS:
                continue
            if excluded and (excluded(os.path.normcase(name))
                             or excluded(os.path.normcase(relative_path(entry.path, top)))):
                continue
            keep = keep and not is_link
            if kind == CANDIDATE and in_skill and not is_link:
                if entry.is_file(follow_symlinks=False):
                    candidates.append((name, kind))  # a page again once the SKILL.md goes
                continue
            real = real_folder + sep + name
            if is_link:
                target = _inside(Path(entry.path), real_root, sink)
                if target is None:
                    continue
                real, is_dir = str(target), target.is_dir()
            if is_dir:
                if real in ancestors:
                    sink.append(Flagged(Path(entry.path), Issue(
                        "symlink-loop", 1, 1,
                        "symlink points back into a folder that contains it; it was not followed")))
                else:
                    follows_link = via_link or is_link
                    if descend is None or descend(entry.path):
                        (linked if follows_link else stack).append(
                            (entry.path, real, ancestors | {real}, follows_link, in_skill))
                    subfolders.append(name)
                continue
            if not kind:
                continue
            if not (os.path.isfile(real) if is_link else entry.is_file(follow_symlinks=False)):
                # Opening a FIFO would block forever; a device could be read without end.
                sink.append(Flagged(Path(entry.path), Issue(
                    "unreadable-file", 1, 1,
                    "not a regular file (a FIFO, socket or device); it was not read")))
                keep = False
                continue
            candidates.append((name, kind))
            # Keyed by kind too: "notes.md -> SKILL.md" must not hide the SKILL.md itself.
            if (real, kind) not in seen:
                seen.add((real, kind))
                files.append((entry.path, kind))
                if tree is not None and trees is not None and kind == "skill-md":
                    trees[entry.path] = tree
        if keep:
            assert listings is not None
            record_listing(folder, listings, has_skill, subfolders, candidates)
        elif listings is not None:
            listings.complete = False
        yield from sorted(files)  # one folder: by name


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
