"""Split a Markdown body into sections at its ATX headings (``#`` to ``######``).

Headings inside fenced code blocks are not headings. Text before the first heading forms a
section with an empty heading (level 0). Line numbers are 1-based lines of the source file.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_MARKERS = ("#", "`", "~")


@dataclass(frozen=True)
class Section:
    heading: str
    level: int
    start_line: int
    end_line: int
    text: str


def split_sections(body: str, *, first_line: int = 1) -> list[Section]:
    """Sections of ``body``, whose first line is line ``first_line`` of its file."""
    lines = body.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    starts: list[tuple[int, str, int]] = []  # (index, heading, level)
    fence: str | None = None
    for index, line in enumerate(lines):
        if line.lstrip(" ")[:1] not in _MARKERS:
            continue  # most lines: no heading or fence can start here
        opener = _FENCE.match(line)
        if opener:
            marker = opener.group(1)
            if fence is None:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence):
                fence = None
            continue
        if fence is None:
            found = _HEADING.match(line)
            if found:
                starts.append((index, (found.group(2) or "").strip(), len(found.group(1))))
    if not starts or starts[0][0] > 0:
        starts.insert(0, (0, "", 0))
    sections = []
    for number, (index, heading, level) in enumerate(starts):
        end = starts[number + 1][0] if number + 1 < len(starts) else len(lines)
        text = "\n".join(lines[index:end]).strip("\n")
        if level == 0 and not text.strip():
            continue
        sections.append(Section(heading, level, first_line + index, first_line + end - 1,
                                text))
    return sections
