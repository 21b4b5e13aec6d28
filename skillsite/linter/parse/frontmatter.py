"""Split a Markdown file into YAML front matter and body.

The front matter opens on the first line with ``---`` and closes only on a line that is
exactly ``---`` (trailing spaces allowed), so ``description: a---b`` never closes it.
A byte-order mark and CRLF line endings are accepted.
"""
from __future__ import annotations

import re
from typing import NamedTuple

_FENCE = re.compile(r"^---[ \t]*$", re.MULTILINE)


class Split(NamedTuple):
    """``yaml`` is None when the file has no front matter; ``closed`` is False when it opens
    but never closes. ``body_line`` is the 1-based line the body starts on."""

    yaml: str | None
    body: str
    body_line: int
    closed: bool = True


def normalize(text: str) -> str:
    """Drop a byte-order mark and turn CRLF/CR line endings into LF."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def split(text: str) -> Split:
    """Split normalized ``text`` into front matter and body."""
    first_end = text.find("\n")
    first = text if first_end < 0 else text[:first_end]
    if first.rstrip(" \t") != "---":
        return Split(None, text, 1)
    start = first_end + 1 if first_end >= 0 else len(text)
    close = _closing(text, start)
    if close is None:
        return Split(text[start:], "", 1, closed=False)
    yaml_text = text[start:close[0]]
    body_start = close[1] + 1
    body_line = text.count("\n", 0, body_start) + 1
    return Split(yaml_text, text[body_start:], body_line)


def _closing(text: str, start: int) -> tuple[int, int] | None:
    """Where the first line from ``start`` on that is ``---`` (and spaces or tabs) starts
    and ends: what ``_FENCE.search(text, start)`` spans, found with ``str.find`` (the regex
    engine would try every character of the front matter). ``start`` is just after a line
    break, as in :func:`split`."""
    at = start - 1  # the line break before ``start``: a line of "---" follows a "\n"
    while start < len(text):
        at = text.find("\n---", at)
        if at < 0:
            return None
        line, end = at + 1, text.find("\n", at + 1)
        end = len(text) if end < 0 else end
        if not text[line + 3:end].strip(" \t"):
            return line, end
        at = end
    return None


_SKILL_MARKER = re.compile(
    r"^(?:type[ \t]*:[ \t]*[\"']?[ \t]*skill[ \t]*[\"']?[ \t]*(?:#.*)?"
    r"|schema[ \t]*:[ \t]*[\"']?mini-a\.skill/.*)$",
    re.MULTILINE | re.IGNORECASE,
)


def looks_like_virtual_skill(text: str) -> bool:
    """Cheap pre-filter for Mini-A pages: a top-level ``type: skill`` or
    ``schema: mini-a.skill/...`` line inside the front matter."""
    parts = split(normalize(text))
    return parts.yaml is not None and _SKILL_MARKER.search(parts.yaml) is not None
