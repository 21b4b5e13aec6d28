"""Rules about the Markdown body: its size and its relative links."""
from __future__ import annotations

import bisect
import os
import re
from typing import Iterator
from urllib.parse import unquote

from skillsite.models import Document
from skillsite.rules.context import Context
from skillsite.rules.registry import Finding, rule

MAX_BODY_LINES = 500
MAX_BODY_TOKENS = 5000
_CHARS_PER_TOKEN = 4

_FENCE = re.compile(r"^ {0,3}(```+|~~~+).*?^ {0,3}\1[ \t]*$", re.MULTILINE | re.DOTALL)
_INLINE_CODE = re.compile(r"(`+)[^`]*?\1")
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'(][^)]*)?\)")
_REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.MULTILINE)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@rule("body-too-long", "warning", formats=("skill-md", "virtual"))
def body_too_long(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    The body should stay under 500 lines and about 5000 tokens (Agent Skills
    recommendation), because the whole body is loaded when the skill activates. Move
    detail into ``references/`` files that the agent reads only when needed.
    Tokens are estimated as characters / 4.
    """
    lines = doc.body.count("\n") + (0 if doc.body.endswith("\n") or not doc.body else 1)
    tokens = len(doc.body) // _CHARS_PER_TOKEN
    if lines > MAX_BODY_LINES:
        yield (doc.body_line, 1), (f"body has {lines} lines, over the recommended "
                                   f"{MAX_BODY_LINES}; move detail into references/")
    elif tokens > MAX_BODY_TOKENS:
        yield (doc.body_line, 1), (f"body is about {tokens} tokens, over the recommended "
                                   f"{MAX_BODY_TOKENS}; move detail into references/")


@rule("empty-body", "warning", formats=("skill-md",))
def empty_body(doc: Document, ctx: Context) -> Iterator[Finding]:
    """The ``SKILL.md`` has front matter but no instructions after it."""
    if doc.data is not None and not doc.body.strip():
        yield (doc.body_line, 1), "body is empty; add the instructions the agent should follow"


@rule("broken-link", "warning", formats=("skill-md", "virtual"))
def broken_link(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    A relative link in the body points at a file that does not exist.

    Links with a scheme (``https:``, ``mailto:``) and pure anchors (``#usage``) are not
    checked; links inside code blocks and inline code are ignored. The specification is
    silent on links, so this is a warning.
    """
    for target, where, path in _local_links(doc):
        if path is not None and _inside(path, _skill_root(doc)) and not os.path.exists(path):
            yield where, f"link target {target!r} does not exist"


@rule("link-escapes-root", "warning", formats=("skill-md", "virtual"))
def link_escapes_root(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    A relative link leaves the skill's root: the folder holding ``SKILL.md`` (for a Mini-A
    page, the corpus root), or is an absolute file path.

    A skill is copied and installed as one folder, so such links break once it is
    installed; and skillsite never follows a path out of the root. The specification asks
    that file references be relative to the skill root.
    """
    root = _skill_root(doc)
    for target, where, path in _local_links(doc):
        if path is None or not _inside(path, root):
            yield where, (f"link {target!r} leads outside the skill folder; copy the file "
                          "into the skill instead")


@rule("reference-depth", "warning", formats=("skill-md",))
def reference_depth(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    File references should go one level deep from ``SKILL.md`` (``references/guide.md``,
    not ``references/pdf/forms/guide.md``), as the Agent Skills specification recommends,
    so an agent never has to chase nested references.
    """
    root = _skill_root(doc)
    for target, where, path in _local_links(doc):
        if path is not None and _inside(path, root):
            depth = os.path.relpath(path, root).count(os.sep)
            if depth > 1:
                yield where, (f"link {target!r} is {depth} folders deep; keep references "
                              "one level below the skill folder")


def _skill_root(doc: Document) -> str:
    folder = doc.source.root if doc.source.kind == "virtual" else doc.source.path.parent
    return doc.memo("skill-root", lambda: os.path.abspath(folder))


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root + os.sep)


Link = tuple[str, tuple[int, int], "str | None"]


def _local_links(doc: Document) -> list[Link]:
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
