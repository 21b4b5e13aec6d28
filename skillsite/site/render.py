"""A skill's body, rendered once: CommonMark (markdown-it-pyrs, markdown-it in Rust),
Pygments highlighting in Material's markup, then :func:`~skillsite.site.sanitize.clean`.

The body is parsed whole (so link references resolve across sections) and cut at its
top-level headings: each heading goes back to mkdocs as a Markdown heading, so Material
builds the table of contents and anchors, and what lies between goes as an HTML block.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from markdown_it_pyrs import MarkdownIt, Node
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
    return MarkdownIt("commonmark").enable_many(["table", "strikethrough"])


def render_body(body: str, links: Links) -> list[Part]:
    """``body`` as parts, each sanitized with ``links`` deciding every href and src."""
    md = _markdown()
    data = body.encode("utf-8")            # source maps count bytes
    tree = md.tree(body)
    # Each part is rendered on its own, with every link reference definition of the body.
    definitions = "\n".join(_source(data, n) for n in tree.children if n.name == "definition")
    code = [n for n in tree.walk() if n.name in ("fence", "code_block") and n.srcmap]
    parts: list[Part] = []
    heading, level, start = "", 0, 0
    for node in tree.children:
        if node.name in ("heading", "lheading") and node.srcmap is not None:
            begin, end = node.srcmap
            parts.append(_part(md, heading, level, data[start:begin], code, definitions,
                               links, start))
            heading, level, start = _plain(node), int(node.meta["level"]), end
    parts.append(_part(md, heading, level, data[start:], code, definitions, links, start))
    return [p for p in parts if p.heading or p.html.strip()]


def _source(data: bytes, node: Node) -> str:
    begin, end = node.srcmap or (0, 0)
    return data[begin:end].decode("utf-8", "replace")


def _part(md: MarkdownIt, heading: str, level: int, chunk: bytes, code: list[Node],
          definitions: str, links: Links, offset: int) -> Part:
    text = chunk.decode("utf-8", "replace")
    if not text.strip():
        return Part(heading, level, "")
    raw = md.render(f"{text}\n\n{definitions}\n" if definitions else text)
    end = offset + len(chunk)
    inside = [n for n in code if n.srcmap and offset <= n.srcmap[0] < end]
    shown = _COMMENT.sub(REMOVED_COMMENT, _highlighted(raw, inside))
    return Part(heading, level, clean(shown, links.attribute_filter))


#: An HTML comment the body holds (one in code is escaped by then, so it is not matched).
#: The sanitizer would drop it without a trace, while `read` and the archive serve it, and
#: a comment is where instructions meant for agents alone hide: the page says where it was.
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
REMOVED_COMMENT = ("<em>[An HTML comment was removed here: the site does not show comments, "
                   "but the skill's text holds one. See its source.]</em>")
_CODE = re.compile(r'<pre><code(?: class="language-([^"]*)")?>(.*?)</code></pre>', re.DOTALL)


def _highlighted(raw: str, code: list[Node]) -> str:
    """``raw`` with each fenced block highlighted in Material's markup. The blocks found
    in the HTML are matched with the code nodes of the tree, in order; when raw HTML in
    the part makes them differ, only blocks that name a language are highlighted."""
    found = list(_CODE.finditer(raw))
    kinds = [n.name for n in code] if len(code) == len(found) else [""] * len(found)
    pieces, last = [], 0
    for match, kind in zip(found, kinds, strict=True):
        language = match.group(1)
        if language is None and kind != "fence":
            continue                     # indented code stays as it is
        pieces += [raw[last:match.start()],
                    _highlight(html.unescape(match.group(2)), html.unescape(language or ""),
                               None)]
        last = match.end()
    return "".join(pieces) + raw[last:]


def _plain(node: Node) -> str:
    """A heading's text without any markup (its HTML is dropped, never shown)."""
    words = []
    for child in node.children:
        if child.name in ("text", "text_special"):
            words.append(str(child.meta.get("content", "")))
        elif child.name in ("softbreak", "hardbreak"):
            words.append(" ")
        elif child.name not in ("image", "html_inline"):
            words.append(_plain(child))
    return "".join(words).strip()
