"""Supporting files, published beside their skill's page.

Only a skill's own files (inside its folder, as the content store lists them) are
published, never through a symlink that leaves the corpus root, never hidden files, and
each at most :data:`MAX_FILE` bytes. A file a browser could run (HTML, SVG, XML,
JavaScript...) is published with ``.txt`` appended, so the site's origin never serves
skill-supplied active content.
"""
from __future__ import annotations

import os
import posixpath
from pathlib import Path
from urllib.parse import quote

from skillsite.site.data import SiteSkill
from skillsite.site.writing import write_if_changed

MAX_FILE = 10 * 1024 * 1024
PASSIVE_SUFFIXES = frozenset({
    ".md", ".markdown", ".txt", ".rst", ".json", ".yaml", ".yml", ".toml", ".csv", ".tsv",
    ".ini", ".cfg", ".conf", ".py", ".sh", ".bash", ".rb", ".go", ".rs", ".java", ".c",
    ".h", ".cpp", ".sql", ".tf", ".hcl", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".pdf",
    ".lock", ".env.example", ".r", ".ipynb",
})


def published_files(skill: SiteSkill) -> dict[str, str]:
    """corpus-relative path -> published path relative to the skill's page folder."""
    published = {}
    start = len(skill.folder) + 1 if skill.folder else 0
    for path in skill.files:
        inside = path[start:]
        if not inside or any(part.startswith(".") or part in ("", "..")
                             for part in inside.split("/")):
            continue
        suffix = posixpath.splitext(inside)[1].lower()
        published[path] = inside if suffix in PASSIVE_SUFFIXES else inside + ".txt"
    return published


def file_urls(published: dict[str, str]) -> dict[str, str]:
    """The same files as URLs relative to the page (percent-encoded)."""
    return {path: quote(name) for path, name in published.items()}


def copy_files(root: Path, page_folder: Path, published: dict[str, str]) -> int:
    """Copy the files into ``page_folder``; returns how many were published."""
    real_root = os.path.realpath(root)
    copied = 0
    for path, name in published.items():
        data = read_inside(real_root, path)
        if data is not None:
            write_if_changed(page_folder / name, data)
            copied += 1
    return copied


def read_inside(real_root: str, path: str) -> bytes | None:
    """A corpus file's bytes if it is a regular file that really is under the root."""
    full = os.path.realpath(os.path.join(real_root, path))
    if not full.startswith(real_root + os.sep) or not os.path.isfile(full):
        return None
    try:
        if os.path.getsize(full) > MAX_FILE:
            return None
        with open(full, "rb") as handle:
            return handle.read(MAX_FILE + 1)[:MAX_FILE]
    except OSError:
        return None
