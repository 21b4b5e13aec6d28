"""Local links in a Markdown body: what they point at and where they stand.

Links with a scheme (``https:``, ``mailto:``), protocol-relative links and pure anchors are
not local; links inside code blocks and code spans are not links at all.
"""
from __future__ import annotations

import bisect
import os
import re
from typing import Iterator
from urllib.parse import unquote

from skillsite.models import Document

_FENCE_LINE = re.compile(r" {0,3}(`{3,}|~{3,})")
# "[text](target)", text allowing one level of nested brackets; written as an unrolled
# loop because an alternation per character is several times slower.
_LINK = re.compile(r"\[[^\[\]]*(?:\[[^\]]*\][^\[\]]*)*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'(][^)]*)?\)")
# Searched in "\n" + body: a literal first character lets the regex engine skip ahead.
_REFERENCE = re.compile(r"\n {0,3}\[[^\]\n]+\]:[ \t]*<?(\S+?)>?(?=\s|$)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")

Link = tuple[str, tuple[int, int], "str | None"]


def local_links(doc: Document) -> list[Link]:
    """(target, location, absolute normalized path or None if absolute) per local link."""
    return doc.memo("local-links", lambda: list(_find_local_links(doc)))


def _find_local_links(doc: Document) -> Iterator[Link]:
    body = doc.body
    if "](" not in body and "]:" not in body:
        return
    fences = _fenced_blocks(body)
    folder = os.path.abspath(doc.source.path.parent)
    found = [(m.start(1), m.group(1)) for m in _LINK.finditer(body)]
    if "]:" in body:
        found += [(m.start(1) - 1, m.group(1)) for m in _REFERENCE.finditer("\n" + body)]
    for offset, target in sorted(found):
        if (target.startswith(("#", "//")) or _SCHEME.match(target)
                or _in_code(body, offset, fences)):
            continue
        file_part = unquote(target.split("#", 1)[0].split("?", 1)[0])
        if not file_part:
            continue
        where = _position(doc, offset)
        if file_part.startswith("/"):
            yield target, where, None
        else:
            yield target, where, os.path.normpath(os.path.join(folder, file_part))


def _fenced_blocks(body: str) -> list[tuple[int, int]]:
    """(start, end) offsets of fenced code blocks; an unclosed fence runs to the end."""
    blocks: list[tuple[int, int]] = []
    opener: tuple[int, str] | None = None
    for start, marker in _fence_lines(body):
        if opener is None:
            opener = (start, marker)
        elif marker[0] == opener[1][0] and len(marker) >= len(opener[1]):
            blocks.append((opener[0], start + len(marker)))
            opener = None
    if opener is not None:
        blocks.append((opener[0], len(body)))
    return blocks


def _fence_lines(body: str) -> list[tuple[int, str]]:
    """(line start, fence marker) of each line that opens or closes a fence, in order."""
    found = []
    for token in ("```", "~~~"):
        at = body.find(token)
        while at >= 0:
            line_start = body.rfind("\n", 0, at) + 1
            fence = _FENCE_LINE.match(body, line_start)
            if fence and fence.start(1) == at:
                found.append((line_start, fence.group(1)))
                at = fence.end()
            else:
                at += 3
            at = body.find(token, at)
    return sorted(found)


def _in_code(body: str, offset: int, fences: list[tuple[int, int]]) -> bool:
    """Inside a fenced block, or after an odd number of backticks on its line."""
    index = bisect.bisect_right(fences, (offset, len(body) + 1)) - 1
    if index >= 0 and fences[index][0] <= offset < fences[index][1]:
        return True
    line_start = body.rfind("\n", 0, offset) + 1
    return body.count("`", line_start, offset) % 2 == 1


def _position(doc: Document, offset: int) -> tuple[int, int]:
    line_start = doc.body.rfind("\n", 0, offset) + 1
    return doc.body_line + doc.body.count("\n", 0, offset), offset - line_start + 1
