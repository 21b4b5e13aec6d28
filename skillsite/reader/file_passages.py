"""What ``read`` adds around a passage: a supporting file read like a body (``read REF
--file references/forms.md``, or a ``skill://`` URI as the ref), the ``{baseDir}/…``
references of the text as refs to the skill's files, and which lines of a line-range
read are the front matter (the body does not hold them, so they read blank)."""
from __future__ import annotations

import hashlib
import re
from typing import Any

from skillsite.reader.errors import ReaderError
from skillsite.reader.passages import Position
from skillsite.reader.results import FileRef
from skillsite.reader.shelf import Shelf, StoredSkill

# Claude Code's placeholder for the skill's folder, followed by a path in it.
BASE_DIR = re.compile(r"\{baseDir\}/([\w.\-/]+)")
MAX_REFERENCES = 50


def file_text(shelf: Shelf, skill: StoredSkill, path: str) -> tuple[str, str]:
    """(text, sha256) of a supporting file; a file that is not UTF-8 text is refused."""
    from skillsite.reader.uris import file_uri

    data = _files().file_bytes(shelf, skill, path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ReaderError("invalid-argument", f"{skill.name}: {path[:200]} is not UTF-8 text, "
                          "so read cannot show it; an MCP client can fetch it as the "
                          f"resource {file_uri(skill.name, path)}", path=path[:200]) from None
    return text, hashlib.sha256(data).hexdigest()


def start_of_file(skill: StoredSkill, path: str, sha256: str) -> Position:
    return Position(skill.name, sha256, "file", 0, file=path.removeprefix("./"))


def references(skill: StoredSkill, text: str, key: str) -> tuple[FileRef, ...]:
    """The distinct ``{baseDir}/<path>`` references of ``text``, in order of appearance,
    as refs to the files of the skill refs name ``key`` (its id, or ``@<library>/<id>``)."""
    if "{baseDir}/" not in text:
        return ()
    from skillsite.reader.uris import file_uri

    held = {skill.local(path) for path in skill.files} | {"SKILL.md", skill.path.rsplit("/")[-1]}
    found: dict[str, FileRef] = {}
    for match in BASE_DIR.finditer(text):
        path = match.group(1).rstrip(".").rstrip("/")
        if path and path not in found and len(found) < MAX_REFERENCES:
            exists = path in held or any(h.startswith(path + "/") for h in held)
            found[path] = FileRef(f"{{baseDir}}/{path}", path, file_uri(key, path),
                                  exists)
    return tuple(found.values())


def front_matter_lines(shelf: Shelf, skill: StoredSkill, first: int, last: int
                       ) -> tuple[int, int] | None:
    """The lines of ``first``..``last`` that are the SKILL.md's front matter, if any."""
    body_starts = skill.spans[0].start_line if skill.spans else 1
    if skill.format != "skill-md" or first >= body_starts:
        return None
    try:
        closing = _files().front_matter(shelf, skill).count("\n") + 2
    except ReaderError:  # the file is over the size cap: all before the body
        closing = body_starts - 1
    if first > closing:
        return None
    return first, min(last, closing)


def _files() -> Any:
    """The files module, loaded when a read needs it (it loads another result module)."""
    from skillsite.reader import skill_files as files

    return files
