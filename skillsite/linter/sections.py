"""Split a Markdown body into sections at its ATX headings (``#`` to ``######``).

Headings inside fenced code blocks are not headings; fences follow CommonMark (see
``fences``). Text before the first heading forms a
section with an empty heading (level 0). Line numbers are 1-based lines of the source file.
"""
from __future__ import annotations

import re

from skillsite.entries import Section

_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})(.*)")
# Lines that may open or close a fence or be a heading; every other line is plain text,
# and skipping those with one regex search is what keeps this fast on long bodies.
# (A pattern that starts with a literal newline is searched for far faster than ``^``.)
_CANDIDATE = re.compile(r"\n[ \t]*[#`~]")


def split_sections(body: str, *, first_line: int = 1) -> list[Section]:
    """Sections of ``body``, whose first line is line ``first_line`` of its file."""
    if body.endswith("\n"):
        body = body[:-1]
    starts: list[tuple[int, str, int]] = []  # (offset of the line, heading, level)
    fence: str | None = None
    for found in _CANDIDATE.finditer("\n" + body):
        offset = found.start()  # of the newline before the line, so of the line in body
        end = body.find("\n", offset)
        line = body[offset:] if end < 0 else body[offset:end]
        opener = _FENCE.match(line)
        if opener:
            marker, rest = opener.group(1), opener.group(2)
            if fence is None:
                if not (marker[0] == "`" and "`" in rest):
                    fence = marker
                    continue
            elif (marker[0] == fence[0] and len(marker) >= len(fence)
                  and not rest.strip(" \t")):
                fence = None
                continue
        if fence is None:
            atx = _HEADING.match(line)
            if atx:
                starts.append((offset, (atx.group(2) or "").strip(), len(atx.group(1))))
    if not starts or starts[0][0] > 0:
        starts.insert(0, (0, "", 0))
    sections = []
    line_number = first_line
    for number, (offset, heading, level) in enumerate(starts):
        end = starts[number + 1][0] if number + 1 < len(starts) else len(body) + 1
        chunk = body[offset:end - 1] if end > offset else ""
        lines = chunk.count("\n") + 1 if end > offset else 0
        text = chunk.strip("\n")
        if not (level == 0 and not text.strip()):
            sections.append(Section(heading, level, line_number,
                                    line_number + max(lines, 1) - 1, text))
        line_number += lines
    return sections
