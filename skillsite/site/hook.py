"""An optional mkdocs hook that makes the build faster, never different.

skillsite's pages hand mkdocs pre-rendered, sanitized HTML blocks, each wrapped in
``<!--skillsite-html-->`` ... ``<!--/skillsite-html-->``. Python-Markdown and mkdocs would
each run a pure-Python HTML parser over them only to pass them through unchanged, which
was most of the build time. This hook takes the blocks out before Markdown runs and puts
them back, byte for byte, after. Without it (plain mkdocs, ProperDocs or Zensical reading
the same docs tree) the pages come out the same, only slower.

The placeholders carry a random token per page, so no page text can forge one; the markers
cannot occur inside a block either (the sanitizer removes comments and skillsite escapes
every ``<`` it writes itself).
"""
from __future__ import annotations

import re
import secrets
from typing import Any

MARKED = re.compile(r"<div[^>\n]*><!--skillsite-html-->.*?<!--/skillsite-html--></div>",
                    re.DOTALL)
_held: dict[str, tuple[str, list[str]]] = {}


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    token = secrets.token_hex(8)
    blocks: list[str] = []

    def hold(found: re.Match[str]) -> str:
        blocks.append(found.group(0))
        return f"\n\nskillsite{token}x{len(blocks) - 1}x\n\n"

    markdown = MARKED.sub(hold, markdown)
    if blocks:
        _held[page.file.src_uri] = (token, blocks)
    return markdown


def on_page_content(html: str, page: Any, **kwargs: Any) -> str:
    held = _held.pop(page.file.src_uri, None)
    if held is None:
        return html
    token, blocks = held
    return re.sub(rf"<p>skillsite{token}x(\d+)x</p>", lambda m: blocks[int(m.group(1))], html)
