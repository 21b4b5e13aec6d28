"""The one gate between skill text and the site's HTML: nh3 (Ammonia) with an explicit
allow-list, and the escaping used for every value skillsite writes itself.

Skill text is untrusted. Everything rendered from a body goes through :func:`clean`;
everything else (names, descriptions, tags, metadata values, messages) goes through
:func:`text` or :func:`attr`. Nothing a skill writes reaches a page any other way.
"""
from __future__ import annotations

import html
import re
from collections.abc import Callable

import nh3
from pygments.token import STANDARD_TYPES

#: Elements a rendered body may keep. No script, style, iframe, object, embed, form, input,
#: svg, math, video, audio, link, meta or base: their content is dropped or unwrapped.
TAGS = frozenset({
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "details", "div", "dl", "dt",
    "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "kbd", "li", "ol", "p",
    "pre", "q", "s", "samp", "span", "strong", "sub", "summary", "sup", "table", "tbody",
    "td", "tfoot", "th", "thead", "tr", "ul", "var",
})
#: Attributes per element; no event handler, style, id, name or form attribute anywhere.
ATTRIBUTES = {
    "a": {"href", "title"}, "img": {"src", "alt", "title", "width", "height"},
    "abbr": {"title"}, "td": {"align", "colspan", "rowspan"},
    "th": {"align", "colspan", "rowspan"}, "ol": {"start"},
}
#: Classes survive only where Pygments put them (code highlighting).
CLASSES = {"span": frozenset(c for c in STANDARD_TYPES.values() if c),
           "div": frozenset({"highlight"})}
#: Elements removed together with everything inside them.
DROPPED_WITH_CONTENT = frozenset({"script", "style", "iframe", "object", "embed", "svg",
                                  "math", "template", "noscript", "textarea", "select",
                                  "form", "title"})
URL_SCHEMES = frozenset({"http", "https", "mailto"})
# C0 controls other than tab and newline: Python-Markdown uses STX/ETX as placeholders.
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

#: An <img> as nh3 writes it (attribute values quoted, any ">" in them escaped) with no alt.
_IMG_WITHOUT_ALT = re.compile(r"<img(?![^>]*\salt=)")

AttributeFilter = Callable[[str, str, str], "str | None"]


def clean(fragment: str, attribute_filter: AttributeFilter | None = None) -> str:
    """``fragment`` with only the allow-listed elements, attributes and URL schemes."""
    cleaned = nh3.clean(_CONTROLS.sub("", fragment), tags=set(TAGS),
                        clean_content_tags=set(DROPPED_WITH_CONTENT),
                        attributes={k: set(v) for k, v in ATTRIBUTES.items()},
                        attribute_filter=attribute_filter, url_schemes=set(URL_SCHEMES),
                        allowed_classes={k: set(v) for k, v in CLASSES.items()},
                        link_rel="noopener noreferrer nofollow", strip_comments=True)
    # An image without alt text is read out by its file name: mark it as decorative.
    return _CONTROLS.sub("", _IMG_WITHOUT_ALT.sub('<img alt=""', cleaned))


def text(value: object) -> str:
    """Any value as HTML text: escaped, control characters removed."""
    return html.escape(_CONTROLS.sub("", str(value)), quote=True)


attr = text  # the same escaping is safe inside a double-quoted attribute

# Python-Markdown's escapable characters, plus the table pipe and the strike-through tilde.
_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]()#+\-.!|~])")


def markdown_text(value: object) -> str:
    """Text for a line of Markdown (a heading) that Markdown and HTML both read as
    plain text: HTML-escaped, then every character Markdown or attr_list could act on
    backslash-escaped, on one line."""
    one_line = " ".join(_CONTROLS.sub("", str(value)).split())
    escaped = html.escape(one_line, quote=False)
    # Escape before the entities exist would break them: escape around them instead.
    parts = re.split(r"(&(?:amp|lt|gt);)", escaped)
    return "".join(p if i % 2 else _MARKDOWN_SPECIALS.sub(r"\\\1", p)
                   for i, p in enumerate(parts))
