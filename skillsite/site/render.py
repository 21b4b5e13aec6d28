"""A skill's body, rendered once: CommonMark (markdown-it-py), Pygments highlighting in
Material's markup, then :func:`~skillsite.site.sanitize.clean`.

The body is parsed whole (so link references resolve across sections) and cut at its
top-level headings: each heading goes back to mkdocs as a Markdown heading, so Material
builds the table of contents and anchors, and what lies between goes as an HTML block.
"""
from __future__ import annotations

import html
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from skillsite.site.links import Links
from skillsite.site.sanitize import clean

#: Code longer than this is shown without highlighting (Pygments is slow on huge inputs).
MAX_HIGHLIGHT = 50_000
_FORMATTER = HtmlFormatter(nowrap=True)


@dataclass(frozen=True)
class Part:
    """A heading (empty for what precedes the first one) and the sanitized HTML after it."""

    heading: str
    level: int
    html: str


@lru_cache(maxsize=256)
def _lexer(language: str) -> Lexer | None:
    try:
        return get_lexer_by_name(language)
    except (ClassNotFound, ValueError):
        return None


def _highlight(code: str, language: str, attrs: Any) -> str:
    lexer = _lexer(language.split()[0].lower()) if language.strip() else None
    if lexer is None or len(code) > MAX_HIGHLIGHT:
        body = html.escape(code)
    else:
        body = highlight(code, lexer, _FORMATTER)
    return f'<div class="highlight"><pre><span></span><code>{body}</code></pre></div>\n'


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True, "highlight": _highlight})
    return md.enable(["table", "strikethrough"])


def render_body(body: str, links: Links) -> list[Part]:
    """``body`` as parts, each sanitized with ``links`` deciding every href and src."""
    md = _markdown()
    env: dict[str, Any] = {}
    tokens = md.parse(body, env)
    parts: list[Part] = []
    heading, level = "", 0
    chunk: list[Token] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.type == "heading_open" and token.level == 0:
            parts.append(_part(md, heading, level, chunk, env, links))
            heading, level, chunk = _plain(tokens[index + 1]), int(token.tag[1]), []
            index += 3
            continue
        chunk.append(token)
        index += 1
    parts.append(_part(md, heading, level, chunk, env, links))
    return [p for p in parts if p.heading or p.html.strip()]


def _part(md: MarkdownIt, heading: str, level: int, chunk: list[Token],
          env: dict[str, Any], links: Links) -> Part:
    raw = md.renderer.render(chunk, md.options, env) if chunk else ""
    return Part(heading, level, clean(raw, links.attribute_filter) if raw else "")


def _plain(inline: Token) -> str:
    """A heading's text without any markup (its HTML is dropped, never shown)."""
    words = []
    for child in inline.children or ():
        if child.type in ("text", "code_inline"):
            words.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            words.append(" ")
    return "".join(words).strip()
