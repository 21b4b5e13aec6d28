"""A skill's supporting files: the files of its own folder that the build keeps, publishes
on the skill's page and puts in its discovery archive, and why every other entry is not.

A supporting file is a regular file of the skill's folder, or a symlink to one of those
(or to the skill's own file).
Never published:

- hidden files and folders (``.env``, ``.git/``), ``node_modules`` and the like
  (:data:`~skillsite.linter.skilltree.SKIP_FOLDERS`), and nested skills (a folder with its
  own ``SKILL.md``), as the bundle walk skips them;
- a symlink to anything else: another skill's file (perhaps one left out for a
  credential), a hidden file, a file out of the folder (a link that is broken, loops,
  or leaves the corpus is reported by discovery instead);
- FIFOs, devices and sockets, which are never opened;
- names that are not valid UTF-8, which no page, archive or JSON file can hold as they are.

``check`` reports each of these (but hidden tool files such as ``.gitignore``) as
``file-not-published``, on the entry itself.
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from functools import lru_cache

from skillsite.filenames import utf8
from skillsite.linter import skilltree
from skillsite.models import Document

MAX_SUPPORTING_FILES = 500
#: Hidden files that are left out without a word: every repository has them.
QUIET_HIDDEN = frozenset({".gitignore", ".gitkeep", ".gitattributes", ".DS_Store",
                          ".npmignore", ".keep"})


@dataclass(frozen=True)
class Skipped:
    rel: str        # below the skill's folder, with ``/``
    reason: str     # why it is not published, to end "is not published: ..."


@dataclass(frozen=True)
class Supporting:
    files: tuple[str, ...]        # below the skill's folder, with ``/``, sorted
    folders: tuple[str, ...]      # every folder listed ("" is the skill's own), sorted
    skipped: tuple[Skipped, ...]  # entries left out, with their reasons


def supporting_files(folder: str, own: str, root: str,
                     tree: skilltree.Tree | None = None) -> Supporting:
    """The supporting files of the skill whose file ``own`` is in ``folder``, in the
    corpus whose real path is ``root``; ``tree`` is what discovery already listed of it
    (folders missing from it are listed now)."""
    walk = _Walk(folder, own, root)
    for skill_folder in skilltree.skill_folders(folder, tree):
        walk.folders.append(skill_folder.rel)
        if not skill_folder.nested:  # a nested skill is a skill of its own
            walk.visit(skill_folder.rel, skill_folder.entries)
    return walk.result()


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root + os.sep)


class _Walk:
    def __init__(self, folder: str, own: str, root: str) -> None:
        self.folder, self.own, self.root = folder, os.path.abspath(own), root
        #: The own file's name when the walk met it as a regular file of the folder (not a
        #: symlink): its real path is then the folder's real path and that name.
        self.own_file: str | None = None
        self.folders: list[str] = []
        self.regular: list[str] = []
        self.links: list[str] = []
        self.skipped: list[Skipped] = []

    def visit(self, rel_dir: str, entries: list[skilltree.Entry]) -> None:
        """Sort the entries of one folder (its subfolders are visited on their own)."""
        for name, kind in sorted(entries):
            rel = f"{rel_dir}/{name}" if rel_dir else name
            if not utf8(name):
                self.skipped.append(Skipped(rel, "its name is not valid UTF-8; rename it"))
            elif kind == skilltree.FOLDER:
                continue
            elif name.startswith("."):
                if name not in QUIET_HIDDEN:
                    self.skipped.append(Skipped(rel, "hidden files are never published"))
            elif kind == skilltree.LINK:
                self.links.append(rel)
            elif kind == skilltree.FILE:
                if os.path.join(self.folder, rel) != self.own:
                    self.regular.append(rel)
                else:
                    self.own_file = rel
            else:
                self.skipped.append(Skipped(rel, f"it is a {self._kind(rel)}, not a "
                                                 "regular file"))

    def _kind(self, rel: str) -> str:
        try:
            mode = os.lstat(os.path.join(self.folder, rel)).st_mode
        except OSError:
            return "file that vanished"
        if stat.S_ISFIFO(mode):
            return "FIFO"
        if stat.S_ISSOCK(mode):
            return "socket"
        return "device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "special file"

    def result(self) -> Supporting:
        files = self.regular + self._linked()
        files.sort()
        if len(files) > MAX_SUPPORTING_FILES:
            self.skipped += [Skipped(rel, f"the skill has more than {MAX_SUPPORTING_FILES} "
                                          "files") for rel in files[MAX_SUPPORTING_FILES:]]
            del files[MAX_SUPPORTING_FILES:]
        return Supporting(tuple(files), tuple(sorted(self.folders)),
                          tuple(sorted(self.skipped, key=lambda s: s.rel)))

    def _linked(self) -> list[str]:
        """The symlinks that are supporting files (the others are skipped, with why)."""
        if not self.links:
            return []  # most skills: no real path to work out
        # A regular file of the walk lies in real folders below the skill's (the walk never
        # goes into a symlinked one): its real path is the folder's and its own below it.
        real_folder = os.path.realpath(self.folder)
        real = {os.path.join(real_folder, rel) for rel in self.regular}
        real.add(os.path.join(real_folder, self.own_file) if self.own_file is not None
                 else os.path.realpath(self.own))
        files = []
        for rel in self.links:
            target = os.path.realpath(os.path.join(self.folder, rel))
            if target in real:
                files.append(rel)
            elif not os.path.isfile(target) or not _inside(target, self.root):
                continue  # broken, a loop, a folder or out of the root: discovery says so
            else:
                self.skipped.append(Skipped(rel, "it is a symlink to a file that is not one "
                                                 "of this skill's own supporting files "
                                                 "(another skill's, a hidden or special "
                                                 "file, or one outside the folder)"))
        return files


def nothing_skipped(tree: skilltree.Tree | None) -> bool:
    """Whether :func:`supporting_files` surely skips no entry of a skill whose folders
    discovery listed as ``tree``: every entry is a regular file or a folder with a
    visible, valid UTF-8 name, every folder the walk enters is listed, and there are at
    most :data:`MAX_SUPPORTING_FILES` files. Cheaper than the walk, and true of most
    skills; False (work it out) when unsure."""
    if not tree:
        return False
    files = 0
    for rel, entries in tree.items():
        for name, kind in entries:
            if name.startswith(".") or kind not in (skilltree.FILE, skilltree.FOLDER) \
                    or not (name.isascii() or utf8(name)):
                return False
            if kind == skilltree.FILE:
                files += 1
            elif skilltree.descends(name, kind) and (f"{rel}/{name}" if rel else name) \
                    not in tree:
                return False  # the walk would list it now (discovery could not)
    return files <= MAX_SUPPORTING_FILES


@lru_cache(maxsize=64)
def _real(root: str) -> str:
    return os.path.realpath(root)


def supporting_of(doc: Document) -> Supporting:
    """The supporting files of a SKILL.md's or skill.json's document, worked out once."""
    def compute() -> Supporting:
        own = os.path.abspath(doc.source.path)
        tree = doc.source.tree if doc.source.kind == "skill-md" else None
        return supporting_files(os.path.dirname(own), own, _real(str(doc.source.root)), tree)

    found: Supporting = doc.memo("supporting", compute)
    return found
