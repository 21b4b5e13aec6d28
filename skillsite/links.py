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

_FENCE = re.compile(r"^ {0,3}(```+|~~~+).*?^ {0,3}\1[ \t]*$", re.MULTILINE | re.DOTALL)
_INLINE_CODE = re.compile(r"(`+)[^`]*?\1")
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'(][^)]*)?\)")
_REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.MULTILINE)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")

Link = tuple[str, tuple[int, int], "str | None"]


def local_links(doc: Document) -> list[Link]:
    """(target, location, absolute normalized path or None if absolute) per local link."""
    return doc.memo("local-links", lambda: list(_find_local_links(doc)))


def _find_local_links(doc: Document) -> Iterator[Link]:
    body = doc.body
    if "](" not in body and "]:" not in body:
        return
    code = _code_spans(body)
    folder = os.path.abspath(doc.source.path.parent)
    matches = [*_LINK.finditer(body), *_REFERENCE.finditer(body)]
    for match in sorted(matches, key=lambda m: m.start(1)):
        target = match.group(1)
        if target.startswith(("#", "//")) or _SCHEME.match(target) or _in_code(match, code):
            continue
        file_part = unquote(target.split("#", 1)[0].split("?", 1)[0])
        if not file_part:
            continue
        where = _position(doc, match.start(1))
        if file_part.startswith("/"):
            yield target, where, None
        else:
            yield target, where, os.path.normpath(os.path.join(folder, file_part))


def _code_spans(body: str) -> list[tuple[int, int]]:
    if "`" not in body and "~~~" not in body:
        return []
    fences = [m.span() for m in _FENCE.finditer(body)]
    inline = [m.span() for m in _INLINE_CODE.finditer(body)]
    return sorted(fences + inline)


def _in_code(match: re.Match[str], spans: list[tuple[int, int]]) -> bool:
    index = bisect.bisect_right(spans, (match.start(), float("inf"))) - 1
    return index >= 0 and spans[index][0] <= match.start() < spans[index][1]


def _position(doc: Document, offset: int) -> tuple[int, int]:
    line_start = doc.body.rfind("\n", 0, offset) + 1
    return doc.body_line + doc.body.count("\n", 0, offset), offset - line_start + 1
