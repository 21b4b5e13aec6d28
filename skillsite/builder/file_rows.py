"""A skill's files for the content store: its own file and its supporting files, verbatim.

``dist/`` serves them without the corpus (the MCP server's resources, ``skill_file``), so
the build keeps their bytes, with these limits:

- the skill's own file as it was parsed and linted (:attr:`Document.raw`), never read
  again, so that an edit after linting never reaches ``dist/``;
- only files inside the skill's own folder (those :func:`~skillsite.builder.shapes.
  skill_folder` lists), regular files only, and never through a symlink that leads out of
  the corpus root;
- each at most the configured ``max-file-size``, and at most :data:`MAX_SKILL_BYTES` per
  skill in all; a file past either cap is listed with its size, without bytes.

Runs in the build's worker processes, like the rest of a skill's content row.
"""
from __future__ import annotations

import hashlib
import os
import stat

from skillsite.entries import SkillEntry
from skillsite.linter.bundle import bundled_files, real_root
from skillsite.linter.capped import read_capped
from skillsite.models import Document
from skillsite.store.content import FileRow

#: The most bytes of files kept for one skill.
MAX_SKILL_BYTES = 8 * 1024 * 1024


def file_rows(doc: Document, entry: SkillEntry, max_file_size: int) -> tuple[FileRow, ...]:
    """The ``files`` rows of ``entry``: its own file first, then its supporting files."""
    root = real_root(str(doc.source.root))
    own = os.path.abspath(doc.source.path)
    folder = os.path.dirname(own)
    rows = []
    left = MAX_SKILL_BYTES
    paths = [own] + [os.path.join(os.path.abspath(doc.source.root), p) for p in entry.files]
    read = _already_read(doc, max_file_size)
    inside = folder + os.sep
    for path in paths:
        local = _relative(path, folder, inside)
        if local.startswith("../"):
            continue  # not inside the skill's folder
        cap = min(max_file_size, left)
        # The skill's own file as it was linted, never read again; nor a bundled file
        # that linting read (a regular file of the skill's folder).
        known = doc.raw if path == own and doc.raw else read.get(path)
        size, data = ((len(known), known if len(known) <= cap else None)
                      if known is not None else _read(path, root, cap))
        if size is None:
            continue
        if data is not None:
            left -= len(data)
        digest = (None if data is None
                  else doc.sha256 if data is doc.raw and doc.was_read  # (hashed once)
                  else hashlib.sha256(data).hexdigest())
        rows.append((entry.key, local, size, digest, data))
    return tuple(rows)


def _relative(path: str, folder: str, inside: str) -> str:
    """``os.path.relpath(path, folder)`` with ``/`` separators; a plain path under the
    folder (the usual case) without relpath's cost."""
    if path.startswith(inside) and "/." not in path and "//" not in path \
            and not path.endswith(os.sep):
        return path[len(inside):].replace(os.sep, "/")
    return os.path.relpath(path, folder).replace(os.sep, "/")


def _already_read(doc: Document, max_file_size: int) -> dict[str, bytes]:
    """The bytes of the bundled files that linting read, by path: only regular files of
    the skill's folder (a symlink's bundled path is its target's), within the size cap."""
    if "bundled" not in doc.derived:
        return {}
    return {bundled.path: bundled.data for bundled in bundled_files(doc, max_file_size)
            if bundled.data is not None and len(bundled.data) <= max_file_size}


def _read(path: str, root: str, cap: int) -> tuple[int | None, bytes | None]:
    """(size, bytes) of a regular file inside ``root``; bytes None over ``cap``; size
    None when it is not such a file (or vanished)."""
    real = os.path.realpath(path)
    if real != root and not real.startswith(root + os.sep):
        return None, None
    try:
        info = os.stat(real)
        if not stat.S_ISREG(info.st_mode):
            return None, None
        if info.st_size > cap:
            return info.st_size, None
        data = read_capped(real, cap)
    except OSError:
        return None, None
    return (len(data), None) if len(data) > cap else (len(data), data)


def files_fingerprint(rows: tuple[FileRow, ...]) -> str:
    """Changes whenever a kept file's bytes, or a listed file's size, change."""
    blob = "\0".join(f"{path}\0{size}\0{digest}" for _, path, size, digest, _ in rows)
    return hashlib.sha256(blob.encode("utf-8", "surrogateescape")).hexdigest()
