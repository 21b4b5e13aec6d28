"""A mkdocs hook that gives every page its own sharing metadata in ``<head>``.

Material writes the ``<title>``, the meta description (the page's ``description`` front
matter, or the site's) and the canonical URL (when ``site_url`` is set). This hook adds
the OpenGraph title, description, type, site name and URL, and, for a page whose front
matter has no description (listings, the user's own pages), a description of its own:
the first paragraph of its content. Every value is escaped here.
"""
from __future__ import annotations

import html
import re
from typing import Any

MAX_DESCRIPTION = 300
_PARAGRAPH = re.compile(r"<p[ >](.*?)</p>", re.DOTALL)
_TAG = re.compile(r"<[^>]*>")
_MATERIAL_DESCRIPTION = re.compile(r'<meta name="description" content="[^"]*">')


def on_page_content(content: str, page: Any, **kwargs: Any) -> str:
    """Note the first paragraph, for a page without a description of its own."""
    if not _own_description(page):
        found = _PARAGRAPH.search(content)
        page.skillsite_summary = _plain(found.group(1)) if found else ""
    return content


def on_post_page(output: str, page: Any, config: Any, **kwargs: Any) -> str:
    head = output.find("</head>")
    if head < 0:
        return output
    title = _plain(str(page.meta.get("title") or page.title or config.get("site_name", "")))
    description = (_plain(_own_description(page))
                   or getattr(page, "skillsite_summary", "")
                   or _plain(str(config.get("site_description") or "")))
    if len(description) < 40 and title:        # "3 skills." says little on its own
        description = f"{title}: {description}" if description else title
    description = _shortened(description)
    tags = [("og:type", "website"), ("og:title", title), ("og:description", description),
            ("og:site_name", _plain(str(config.get("site_name") or "")))]
    if page.canonical_url:
        tags.append(("og:url", str(page.canonical_url)))
    meta = "".join(f'<meta property="{name}" content="{_attr(value)}">'
                   for name, value in tags if value)
    meta += '<meta name="twitter:card" content="summary">'
    if description and not _own_description(page):
        ours = f'<meta name="description" content="{_attr(description)}">'
        output, replaced = _MATERIAL_DESCRIPTION.subn(lambda _: ours, output, count=1)
        head = output.find("</head>")
        if not replaced:
            meta = ours + meta
    return output[:head] + meta + output[head:]


def _own_description(page: Any) -> str:
    found = page.meta.get("description") if isinstance(page.meta, dict) else None
    return found if isinstance(found, str) else ""


def _plain(value: str) -> str:
    """Text without tags, entities decoded, on one line (escaped again when written)."""
    return " ".join(html.unescape(_TAG.sub("", value)).split())


def _shortened(value: str) -> str:
    if len(value) <= MAX_DESCRIPTION:
        return value
    return value[:MAX_DESCRIPTION - 1].rsplit(" ", 1)[0] + "…"


def _attr(value: str) -> str:
    return html.escape(value, quote=True)
