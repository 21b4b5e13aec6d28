"""Where a link in a skill's body goes on the site.

A body's relative links are relative to the skill's file. On the site a skill's page sits
at ``skills/<slug>/`` and its supporting files beside it, at the same relative paths, so
a link to one of them is kept. A link to another skill's file or folder goes to that
skill's page. A path that starts with a placeholder for the skill's folder
(``{baseDir}/references/x.md``, ``${CLAUDE_SKILL_DIR}/...``), which clients expand, is
relative to the skill's folder. A link to a folder holding some of the skill's files goes
to the page's list of supporting files. Anything else (outside the skill's folder, missing,
absolute paths, ``javascript:``, ``data:``...) loses its target: the site never points
out of what it publishes.
"""
from __future__ import annotations

import posixpath
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

EXTERNAL_LINK_SCHEMES = ("http", "https", "mailto")
#: Where a link to a folder of the skill's own files goes: the page's list of them.
FOLDER_ANCHOR = "#supporting-files"
#: What clients replace with the skill's folder (docs/formats.md).
SKILL_FOLDER_PLACEHOLDERS = ("{baseDir}", "${CLAUDE_SKILL_DIR}", "$CLAUDE_SKILL_DIR",
                             "{skillDir}")


@dataclass(frozen=True)
class Links:
    """How one skill's links resolve. Paths are relative to the corpus root."""

    folder: str                   # the folder of the skill's file
    files: dict[str, str]         # own supporting file -> its URL relative to the page
    pages: dict[str, str]         # a skill's file or folder -> its slug
    slug: str                     # this skill's slug

    def href(self, value: str) -> str | None:
        """The site URL for a link, or None to drop it."""
        parts = urlsplit(value.strip())
        if parts.scheme or parts.netloc:
            return value if parts.scheme.lower() in EXTERNAL_LINK_SCHEMES and \
                (parts.netloc or parts.scheme.lower() == "mailto") else None
        if not parts.path:
            return f"#{parts.fragment}" if parts.fragment else None
        fragment = f"#{parts.fragment}" if parts.fragment else ""
        target = self._target(parts.path)
        if target is None:
            return None
        if target in self.files:
            return self.files[target] + fragment
        if target not in self.pages and any(f.startswith(f"{target}/") for f in self.files):
            return FOLDER_ANCHOR       # a folder of the skill's own: its list of files
        slug = self.pages.get(target)
        if slug is None:
            return None
        return ("./" if slug == self.slug else f"../{slug}/") + fragment

    def src(self, value: str) -> str | None:
        """The site URL for an image: only the skill's own files, never a remote one."""
        parts = urlsplit(value.strip())
        if parts.scheme or parts.netloc or not parts.path:
            return None
        target = self._target(parts.path)
        return self.files.get(target) if target else None

    def _target(self, path: str) -> str | None:
        path = unquote(path).replace("\\", "/")
        for placeholder in SKILL_FOLDER_PLACEHOLDERS:
            if path == placeholder or path.startswith(placeholder + "/"):
                path = path[len(placeholder) + 1:] or "."
                break
        if path.startswith("/") or "\x00" in path:
            return None
        joined = posixpath.normpath(posixpath.join(self.folder, path))
        if joined == ".":
            return ""
        if joined.startswith("../") or joined == "..":
            return None
        return joined

    def attribute_filter(self, element: str, attribute: str, value: str) -> str | None:
        """For :func:`skillsite.site.sanitize.clean`: rewrite or drop link targets."""
        if attribute == "href":
            return self.href(value)
        if attribute == "src":
            return self.src(value)
        return value
