"""The folders of one skill, listed once for discovery and for the bundle walk.

Listing a folder costs several system calls (``openat``, ``fstat``, two ``getdents64``,
``close``), more than reading a small file on some machines. Discovery lists every folder
of the corpus, and the bundle walk (``bundle.py``) needs the listings of each skill's
folders again. So when discovery meets a folder holding a ``SKILL.md``, it lists the
folders of that skill at once, as the bundle walk goes through them (see
:func:`descends`), keeps those listings for its own visit of the same folders, and hands
the skill's :data:`Tree` to the bundle walk with the source.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import NamedTuple

#: Folders the bundle walk never goes into (besides hidden ones).
SKIP_FOLDERS = frozenset({"node_modules", "__pycache__", "venv"})
#: The kinds of entry, as the bundle walk asks about them.
FOLDER, LINK, FILE, OTHER = "d", "l", "f", "o"
#: (name, kind) of one entry of a folder.
Entry = tuple[str, str]
#: Per folder of a skill, by its path below the skill's folder with ``/`` (``""`` for the
#: skill's folder itself), its entries in the order the file system listed them.
Tree = dict[str, list[Entry]]


def kind(entry: os.DirEntry[str]) -> str:
    """The entry's kind; a symlink is a :data:`LINK`, whatever it points at."""
    if entry.is_symlink():
        return LINK
    if entry.is_dir(follow_symlinks=False):
        return FOLDER
    return FILE if entry.is_file(follow_symlinks=False) else OTHER


def entries(listing: Iterable[os.DirEntry[str]]) -> list[Entry]:
    """(name, :func:`kind`) of each entry, without a call of :func:`kind` each."""
    return [(entry.name, LINK if entry.is_symlink()
             else FOLDER if entry.is_dir(follow_symlinks=False)
             else FILE if entry.is_file(follow_symlinks=False) else OTHER)
            for entry in listing]


def descends(name: str, entry_kind: str) -> bool:
    """Whether the bundle walk goes into this entry: a real folder (never a symlink),
    neither hidden nor one of :data:`SKIP_FOLDERS`."""
    return entry_kind == FOLDER and not name.startswith(".") and name not in SKIP_FOLDERS


def holds_skill(listing: list[Entry]) -> bool:
    """A folder with its own ``SKILL.md``: a nested skill, checked on its own."""
    return any(name == "SKILL.md" for name, _ in listing)


def list_skill(top: list[os.DirEntry[str]], listed: dict[str, list[os.DirEntry[str]]]) -> Tree:
    """The tree of the skill whose folder holds ``top``: every folder below it that the
    bundle walk visits is listed now, and its listing also put in ``listed`` under its
    path as discovery spells it (``entry.path``). A folder that cannot be listed is left
    out of both; whoever needs it lists it again and meets the error."""
    tree: Tree = {"": entries(top)}
    pending = [(name, entry.path) for (name, entry_kind), entry in zip(tree[""], top, strict=True)
               if entry_kind == FOLDER and descends(name, entry_kind)]
    while pending:
        rel, path = pending.pop()
        try:
            with os.scandir(path) as scan:
                listing = list(scan)
        except OSError:
            continue
        listed[path] = listing
        tree[rel] = here = entries(listing)
        if holds_skill(here):
            continue
        pending += [(f"{rel}/{name}", entry.path) for (name, entry_kind), entry
                    in zip(here, listing, strict=True) if descends(name, entry_kind)]
    return tree


class SkillFolder(NamedTuple):
    rel: str               # below the skill's folder, with ``/`` (``""`` for its own)
    entries: list[Entry]
    nested: bool           # it holds a SKILL.md of its own: another skill, not entered


def skill_folders(folder: str, tree: Tree | None) -> Iterator[SkillFolder]:
    """Every folder of the skill whose folder is ``folder``, as the bundle walk and the
    supporting files see them: each folder's entries come from ``tree`` (what discovery
    listed) or are listed now; a folder that cannot be listed is left out. A nested
    skill's folder is yielded with ``nested`` set, and nothing below it."""
    pending = [""]
    while pending:
        rel_dir = pending.pop()
        listing = _listing(folder, rel_dir, tree or {})
        if listing is None:
            continue
        nested = bool(rel_dir) and holds_skill(listing)
        yield SkillFolder(rel_dir, listing, nested)
        if not nested:
            pending += [f"{rel_dir}/{name}" if rel_dir else name
                        for name, entry_kind in listing if descends(name, entry_kind)]


def own_folders(folder: str, tree: Tree | None) -> list[tuple[str, list[Entry]]]:
    """(``rel``, entries) of each folder of :func:`skill_folders` but the nested skills',
    in the same order: as a list, for the bundle walk (which goes through each skill's
    folders once, and most skills have one to three)."""
    found: list[tuple[str, list[Entry]]] = []
    known = tree or {}
    pending = [""]
    while pending:
        rel_dir = pending.pop()
        listing = _listing(folder, rel_dir, known)
        if listing is None:
            continue
        below = []
        for name, entry_kind in listing:
            if name == "SKILL.md" and rel_dir:
                break  # a nested skill: checked on its own
            if entry_kind == FOLDER and name[0] != "." and name not in SKIP_FOLDERS:
                below.append(f"{rel_dir}/{name}" if rel_dir else name)
        else:
            found.append((rel_dir, listing))
            pending += below
    return found


def _listing(folder: str, rel_dir: str, tree: Tree) -> list[Entry] | None:
    """The entries of ``rel_dir`` below ``folder``: from ``tree`` (what discovery listed),
    or listed now; None when it cannot be listed."""
    listing = tree.get(rel_dir)
    if listing is None:
        try:
            with os.scandir(os.path.join(folder, rel_dir)) as scan:
                listing = entries(scan)
        except OSError:
            return None
    return listing
