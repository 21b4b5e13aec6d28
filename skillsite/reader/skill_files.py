"""A skill's files as ``dist/`` keeps them: verbatim bytes, and a SKILL.md for every skill.

A ``SKILL.md`` skill serves its own file. The other formats (``.skill.toml``,
``skill.json``, Mini-A pages) get a generated ``SKILL.md`` view, front matter with the
name and description and the body the reader serves, next to their own file, verbatim.
Paths are looked up in the store, never on disk, so no path can reach outside ``dist/``.
"""
from __future__ import annotations

import hashlib
import json
import re

from skillsite.filenames import utf8
from skillsite.reader.errors import ReaderError
from skillsite.reader.results import FileInfo
from skillsite.reader.shelf import Shelf, StoredSkill

SKILL_MD = "SKILL.md"
MAX_PATH_CHARS = 1024
_FRONT_MATTER = re.compile(r"\A(?:\ufeff)?---[ \t]*\r?\n(.*?)^---[ \t]*\r?$", re.S | re.M)


def own_file(skill: StoredSkill) -> str:
    """The skill's own file, relative to its folder (``SKILL.md``, ``x.skill.toml``...)."""
    return skill.path.rsplit("/", 1)[-1]


def generated_view(skill: StoredSkill) -> bytes:
    """A SKILL.md for a skill of another format (JSON strings are valid YAML)."""
    head = (f"---\nname: {json.dumps(skill.name, ensure_ascii=False)}\n"
            f"description: {json.dumps(skill.description, ensure_ascii=False)}\n---\n\n")
    return (head + skill.body + "\n").encode("utf-8")


def file_list(shelf: Shelf, skill: StoredSkill) -> list[FileInfo]:
    """Every file of the skill: its own, a generated SKILL.md if it has none, and its
    supporting files (those over the size cap are listed with ``stored`` False)."""
    rows = [FileInfo(path, size, sha, stored, False)
            for path, size, sha, stored in shelf.files(skill.name)]
    if skill.format != "skill-md":
        view = generated_view(skill)
        rows.insert(0, FileInfo(SKILL_MD, len(view), hashlib.sha256(view).hexdigest(), True,
                                True))
    return rows


def file_bytes(shelf: Shelf, skill: StoredSkill, path: object) -> bytes:
    """The bytes of ``path`` (relative to the skill's folder)."""
    if (not isinstance(path, str) or not 0 < len(path) <= MAX_PATH_CHARS or "\0" in path
            or not utf8(path)):
        raise ReaderError("invalid-argument", "a file path is a relative path inside the "
                          "skill's folder, such as SKILL.md or references/REFERENCE.md")
    wanted = path.removeprefix("./")
    if wanted == SKILL_MD and skill.format != "skill-md":
        return generated_view(skill)
    data = shelf.file_data(skill.name, wanted)
    if data is not None:
        return data
    known = [row.path for row in file_list(shelf, skill)]
    if wanted in known:
        raise ReaderError("not-found", f"{skill.name}: {wanted} is larger than the build's "
                          "size cap, so dist/ lists it but does not keep it", path=wanted)
    raise ReaderError("not-found", f"{skill.name} has no file {wanted[:200]!r}; its files: "
                      + ", ".join(known[:50]), files=known)


def front_matter(shelf: Shelf, skill: StoredSkill) -> str:
    """The skill's metadata as written: a Markdown file's front matter (between the
    ``---`` lines), or a ``.skill.toml`` / ``skill.json`` manifest whole."""
    data = shelf.file_data(skill.name, own_file(skill))
    if data is None:
        raise ReaderError("not-found", f"{skill.name}: dist/ does not keep its file (it is "
                          "over the size cap, max-file-size)")
    text = data.decode("utf-8", "replace")
    if skill.format in ("skill-toml", "skill-json"):
        return text
    found = _FRONT_MATTER.match(text)
    return found.group(1) if found else ""
