"""The files bundled with a SKILL.md: everything else in its folder, read once.

Skills are untrusted: the walk never follows a symlink out of the corpus root, never
descends into a symlinked folder, a hidden folder or a nested skill (a folder with its own
``SKILL.md``), and stops after :data:`MAX_FILES` files. Only files that look like text by
their name are read (Markdown, scripts, configuration); the rest are only measured.
Nothing is ever executed.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import lru_cache

from skillsite.linter import skilltree
from skillsite.linter.capped import read_capped
from skillsite.linter.links import folder_of
from skillsite.models import Document

MAX_FILES = 500
TEXT_SUFFIXES = frozenset({
    ".md", ".markdown", ".txt", ".rst", ".sh", ".bash", ".zsh", ".fish", ".py", ".js",
    ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php", ".ps1", ".psm1", ".bat", ".cmd", ".lua",
    ".json", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf", ".env", ".html", ".htm",
    ".xml", ".xsd", ".sql", ".go", ".rs", ".java", ".kt", ".swift", ".c", ".h", ".cpp",
})
SCRIPT_SUFFIXES = frozenset({".sh", ".bash", ".zsh", ".fish", ".py", ".js", ".mjs", ".cjs",
                             ".ts", ".rb", ".pl", ".php", ".ps1", ".psm1", ".bat", ".cmd",
                             ".lua"})
#: Files a skill folder holds for people or for tools, not for the agent: never orphans,
#: and their links are not the skill's references.
_FOR_PEOPLE = re.compile(r"(?:^|/)(?:LICEN[CS]E|COPYING|NOTICE|README|CHANGELOG|CONTRIBUTING|"
                         r"AUTHORS|SECURITY)(?:\.\w+)?$|(?:^|/)(?:__init__\.py|"
                         r"requirements[\w.-]*\.txt|package(?:-lock)?\.json|pyproject\.toml|"
                         r"\.gitignore|\.DS_Store|[\w.-]+\.lock)$|^agents/openai\.yaml$",
                         re.IGNORECASE)


@dataclass(frozen=True, init=False)
class Bundled:
    """One bundled file. ``rel`` is its path below the skill folder, with ``/``;
    ``text`` is None when it was not read (not text by name, too large, binary, not UTF-8)."""

    rel: str
    path: str
    size: int
    text: str | None
    #: The bytes read (None when not read): the build keeps them in the content store
    #: without reading the file again.
    data: bytes | None = field(default=None, compare=False, repr=False)
    #: A licence, README, changelog, package manifest or client metadata file
    #: (``agents/openai.yaml``, read by Codex, not by the agent).
    for_people: bool = field(init=False, compare=False, repr=False)
    is_markdown: bool = field(init=False, compare=False, repr=False)

    def __init__(self, rel: str, path: str, size: int, text: str | None,
                 data: bytes | None = None) -> None:
        # One per bundled file: the fields go straight into the instance's dict (the
        # frozen dataclass's own __init__ sets each through object.__setattr__).
        # for_people and is_markdown are worked out at once: every rule that looks at the
        # files asks both questions of each of them (a cached_property would take a lock
        # on every look).
        fields = self.__dict__
        fields["rel"], fields["path"], fields["size"], fields["text"] = rel, path, size, text
        fields["data"] = data
        fields["for_people"], fields["is_markdown"] = _kinds(rel)


@lru_cache(maxsize=4096)
def _kinds(rel: str) -> tuple[bool, bool]:
    """Whether a bundled file is for people and whether it is Markdown, by its path below
    the skill (the same few paths come back skill after skill: ``references/...``,
    ``LICENSE.txt``, ``scripts/...``)."""
    return (_FOR_PEOPLE.search(rel) is not None,
            rel.lower().endswith((".md", ".markdown")))


def bundled_files(doc: Document, max_size: int) -> list[Bundled]:
    """The files bundled with the ``SKILL.md`` ``doc`` (none for other formats)."""
    if doc.source.kind != "skill-md":
        return []
    found: list[Bundled] | None = doc.derived.get("bundled")
    if found is None:
        found = doc.derived["bundled"] = _walk(folder_of(doc), _real(str(doc.source.root)),
                                               max_size, doc.source.tree)
    return found


@lru_cache(maxsize=64)
def _real(root: str) -> str:
    return os.path.realpath(root)


def real_root(root: str) -> str:
    """The real path of a corpus root, worked out once per root."""
    return _real(root)


def _walk(folder: str, root: str, max_size: int, tree: skilltree.Tree | None) -> list[Bundled]:
    """The bundled files of the skill in ``folder``, at most :data:`MAX_FILES`."""
    found: list[Bundled] = []
    # ``os.path.join(folder, rel_dir, name)``, joined by hand where the separator is "/"
    # (``folder`` is absolute and normalized, ``rel_dir`` has no empty part).
    plain = os.sep == "/" and folder != "/"
    file = skilltree.FILE
    for rel_dir, listing in skilltree.own_folders(folder, tree):
        prefix = f"{rel_dir}/" if rel_dir else ""
        for name, kind in listing:
            if kind == skilltree.FOLDER:
                continue
            if len(found) >= MAX_FILES:
                return found
            rel = prefix + name
            if rel == "SKILL.md":
                continue
            path = f"{folder}/{rel}" if plain else os.path.join(folder, rel_dir, name)
            if kind == file and _read_as_text(name):  # most files: _read, inline
                try:
                    raw = read_capped(path, max_size)
                except OSError:
                    continue
                if len(raw) <= max_size:
                    found.append(Bundled(rel, path, len(raw), _text(raw), raw))
                    continue
            bundled = _read(path, name, kind, rel, root, folder, max_size)
            if bundled is not None:
                found.append(bundled)
    return found


def _read(path: str, name: str, kind: str, rel: str, root: str, folder: str,
          max_size: int) -> Bundled | None:
    if kind == skilltree.LINK:
        path = os.path.realpath(path)
        if (not path.startswith(root + os.sep) or not os.path.isfile(path)
                or path == os.path.realpath(os.path.join(folder, "SKILL.md"))):
            return None  # never followed out of the corpus root; SKILL.md is not bundled
    elif kind != skilltree.FILE:
        return None
    if not _read_as_text(name):
        try:
            return Bundled(rel, path, os.stat(path).st_size, None)
        except OSError:
            return None
    raw = _bytes(path, max_size)
    if raw is None:
        return None
    if len(raw) > max_size:
        return Bundled(rel, path, os.stat(path).st_size, None)
    return Bundled(rel, path, len(raw), _text(raw), raw)


@lru_cache(maxsize=4096)
def _read_as_text(name: str) -> bool:
    """Whether a file of this name is read: text by its suffix, or with none (the same
    few names come back skill after skill)."""
    suffix = os.path.splitext(name)[1].lower()
    return not suffix or suffix in TEXT_SUFFIXES


def _bytes(path: str, max_size: int) -> bytes | None:
    """At most ``max_size + 1`` bytes of the file: enough to tell it is too large."""
    try:
        return read_capped(path, max_size)
    except OSError:
        return None


def _text(raw: bytes) -> str | None:
    if raw.find(b"\0", 0, 8192) >= 0:  # without copying the first 8 KiB
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text.replace("\r\n", "\n") if "\r" in text else text
