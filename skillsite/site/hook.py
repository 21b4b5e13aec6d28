"""An optional mkdocs hook that makes the build faster, never different.

skillsite's pages hand mkdocs pre-rendered, sanitized HTML blocks, each wrapped in
``<!--skillsite-html-->`` ... ``<!--/skillsite-html-->``. Python-Markdown and mkdocs would
each run a pure-Python HTML parser over them only to pass them through unchanged, which
was most of the build time. This hook takes the blocks out before Markdown runs and puts
them back, byte for byte, after. Without it (plain mkdocs, ProperDocs or Zensical reading
the same docs tree) the pages come out the same, only slower.

On a page whose Markdown outside the blocks is only headings (every page skillsite writes),
Markdown gets the headings alone (for the table of contents and anchors) and each block is
put back after the heading it followed. On any other page, each block becomes a
placeholder paragraph, replaced after. The placeholders carry a random token per page, so
no page text can forge one; the markers
cannot occur inside a block either (the sanitizer removes comments and skillsite escapes
every ``<`` it writes itself).
"""
from __future__ import annotations

import re
import secrets
from typing import Any

MARKED = re.compile(r"<div[^>\n]*><!--skillsite-html-->.*?<!--/skillsite-html--></div>",
                    re.DOTALL)
#: A heading as skillsite writes it (markup.heading): one line, its text escaped.
_HEADING_LINE = re.compile(r"#{1,6} [^\n]*\S")
_HEADING_HTML = re.compile(r"<h([1-6])[ >].*?</h\1>", re.DOTALL)
#: page -> (token, blocks) for placeholders, or ("", blocks, heading count before each).
_held: dict[str, tuple[str, list[str], list[int]]] = {}


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    blocks = [m.group(0) for m in MARKED.finditer(markdown)]
    if not blocks:
        return markdown
    gaps = MARKED.split(markdown)
    lines = [line for gap in gaps for line in gap.splitlines() if line.strip()]
    if all(_HEADING_LINE.fullmatch(line) for line in lines):
        # Only headings outside the blocks (every page skillsite writes): Markdown gets
        # the headings alone, and each block goes back after the heading it followed.
        after, count = [], 0
        for gap in gaps[:-1]:
            count += sum(1 for line in gap.splitlines() if line.strip())
            after.append(count)
        _held[page.file.src_uri] = ("", blocks, after)
        return "\n\n".join(lines) + "\n"
    token = secrets.token_hex(8)
    numbered = iter(range(len(blocks)))
    _held[page.file.src_uri] = (token, blocks, [])
    return MARKED.sub(lambda m: f"\n\nskillsite{token}x{next(numbered)}x\n\n", markdown)


def held_token(page: str) -> str | None:
    """The token of the page's placeholders ("" when Markdown got its headings alone),
    or None when no block of it is held."""
    held = _held.get(page)
    return held[0] if held is not None else None


def on_page_content(html: str, page: Any, **kwargs: Any) -> str:
    held = _held.pop(page.file.src_uri, None)
    if held is None:
        return html
    token, blocks, after = held
    if token:
        return re.sub(rf"<p>skillsite{token}x(\d+)x</p>", lambda m: blocks[int(m.group(1))],
                      html)
    headings = list(_HEADING_HTML.finditer(html))
    ends = [0] + [h.end() for h in headings]
    pieces, last = [], 0
    for block, count in zip(blocks, after, strict=False):
        at = ends[min(count, len(headings))]
        pieces += [html[last:at], "\n", block]
        last = at
    return "".join(pieces) + html[last:]
