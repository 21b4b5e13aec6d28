"""``prompt`` and, for the MCP server, files, front matter and names."""
from __future__ import annotations

import json
import os
import sys
from bisect import bisect_left
from collections.abc import Sequence
from typing import Any

from skillsite.reader import results
from skillsite.reader.errors import ReaderError
from skillsite.reader.session import BUDGET, NOTHING, Session, operation
from skillsite.reader.views import clamp, cursor_after, page_start, text_argument

#: The ``prompt`` budget when every skill is asked for (about Claude Code's listing cap).
DEFAULT_PROMPT_CHARS = 8000
MAX_PREFIX_CHARS = 512


@operation("prompt", spends=NOTHING)
def prompt(session: Session, refs: Sequence[str] | None = None, style: str = "xml",
           max_chars: int | None = None, *, location_root: str | None = None
           ) -> results.Prompt:
    from skillsite.reader.prompting import STYLES, render

    session.refuse_in_safe_mode("prompt")
    if style not in STYLES:
        raise ReaderError("invalid-argument", f"style must be one of {', '.join(STYLES)}")
    if max_chars is not None:
        max_chars = clamp(max_chars, 1, 10_000_000, "max_chars")
    if refs is None:
        entries = sorted(entry for library in session.libraries().sessions
                         for entry in _catalog(library))
        max_chars = DEFAULT_PROMPT_CHARS if max_chars is None else max_chars
    else:
        found = [session.find(ref) for ref in refs]
        entries = [(where.qualified(s.name), s.description, s.path) for where, s in found]
    root = location_root
    listed = [(name, description, os.path.join(root, path) if root else path)
              for name, description, path in entries]
    text, included, omitted = render(style, listed, max_chars)
    return results.Prompt(style, text, len(text), tuple(included), tuple(omitted))


@operation("skill_file", spends=BUDGET)
def skill_file(session: Session, name: str, path: str = "SKILL.md") -> bytes:
    session.refuse_in_safe_mode("skill_file")
    from skillsite.reader import skill_files as files

    session, skill = session.find(name)
    data = files.file_bytes(session.store, skill, path)
    size = len(data)
    if session.allowance(skill.name, size) < size:
        raise ReaderError("budget-exceeded", f"{skill.name}/{path} has {size} bytes, more "
                          "than this session's character budget has left",
                          budget="characters", used=session.budget.served,
                          limit=session.budget.max_chars)
    session.charge(skill.name, size)
    return data


@operation("skill_files", spends=NOTHING)
def skill_files(session: Session, name: str) -> list[results.FileInfo]:
    session.refuse_in_safe_mode("skill_files")
    from skillsite.reader import skill_files as files

    session, skill = session.find(name)
    return files.file_list(session.store, skill)


@operation("front_matter", spends=NOTHING)
def front_matter(session: Session, name: str) -> str:
    session.refuse_in_safe_mode("front_matter")
    from skillsite.reader import skill_files as files

    session, skill = session.find(name)
    return files.front_matter(session.store, skill)


@operation("front_matter_data", spends=NOTHING)
def front_matter_data(session: Session, name: str) -> dict[str, Any]:
    session.refuse_in_safe_mode("front_matter_data")
    _, skill = session.find(name)
    if skill.format != "skill-md":
        return {"name": skill.meta.get("name", skill.name), "description": skill.description}
    return dict(skill.meta.get("metadata") or {})


@operation("names", spends=NOTHING)
def names(session: Session, cursor: str | None = None, limit: int = 100,
          prefix: str = "") -> results.NamePage:
    session.refuse_in_safe_mode("names")
    limit = clamp(limit, 1, 1000, "limit")
    prefix = text_argument(prefix, "prefix", MAX_PREFIX_CHARS)
    mounts = session.call.mounts
    every = (mounts.all_names(session.call, lambda name: session.at(name).finder.names())
             if mounts.named else session.finder.names())
    first, end = _starting(every, prefix)
    start = max(page_start(every, cursor), first)
    page = every[start:min(start + limit, end)]
    more = start + limit < end
    return results.NamePage(tuple(page), end - first,
                            cursor_after(page[-1]) if more else None)


def _starting(names: list[str], prefix: str) -> tuple[int, int]:
    """[first, end) of the sorted ``names`` that start with ``prefix``."""
    first = bisect_left(names, prefix)
    if not prefix:
        return first, len(names)
    if prefix[-1] != chr(sys.maxunicode):
        # every string that starts with the prefix sorts before the prefix with its last
        # character the next one
        return first, bisect_left(names, prefix[:-1] + chr(ord(prefix[-1]) + 1), first)
    end = first
    while end < len(names) and names[end].startswith(prefix):
        end += 1
    return first, end


def _catalog(session: Session) -> list[tuple[str, str, str]]:
    path = session.artifacts.require("catalog.json")
    try:
        skills = json.loads(path.read_bytes())["skills"]
        entries = [(session.qualified(s["name"]), s["description"], s["path"])
                   for s in skills]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise session.artifacts.damaged("catalog.json", f"cannot be read ({error})") from None
    return sorted(entries)
