"""Supporting files, published beside their skill's page.

Only a skill's supporting files (see :mod:`skillsite.linter.supporting`) are published,
and only the bytes the build kept of them in the content store: the corpus is never read
again, so a file changed, swapped or turned into a FIFO after linting never reaches the
site. A file a browser could run (HTML, SVG, XML,
JavaScript...) is published with ``.txt`` appended, so the site's origin never serves
skill-supplied active content.
"""
from __future__ import annotations

import posixpath
from pathlib import Path
from urllib.parse import quote

from skillsite.site.data import SiteSkill
from skillsite.site.writing import write_if_changed
from skillsite.store.content import ContentStore

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
        if path not in skill.stored or not inside or any(
                part.startswith(".") or part in ("", "..") for part in inside.split("/")):
            continue
        suffix = posixpath.splitext(inside)[1].lower()
        published[path] = inside if suffix in PASSIVE_SUFFIXES else inside + ".txt"
    return published


def file_urls(published: dict[str, str]) -> dict[str, str]:
    """The same files as URLs relative to the page (percent-encoded)."""
    return {path: quote(name) for path, name in published.items()}


def stored_bytes(store: ContentStore, skill: SiteSkill, path: str) -> bytes | None:
    """The bytes the build kept of the skill's file ``path`` (relative to the corpus
    root), or None when it kept none."""
    if path not in skill.stored:
        return None
    start = len(skill.folder) + 1 if skill.folder else 0
    return store.file_data(skill.name, path[start:])


def copy_files(store: ContentStore, skill: SiteSkill, page_folder: Path,
               published: dict[str, str]) -> int:
    """Copy the files into ``page_folder``; returns how many were published."""
    copied = 0
    for path, name in published.items():
        data = stored_bytes(store, skill, path)
        if data is not None:
            write_if_changed(page_folder / name, data)
            copied += 1
    return copied
