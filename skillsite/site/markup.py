"""Small HTML pieces for the pages skillsite writes. Every value is escaped here."""
from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence

from skillsite.site.sanitize import attr, markdown_text, text


def href(from_dir: str, to_dir: str) -> str:
    """A relative URL from the page at ``from_dir/`` to the page at ``to_dir/`` (both
    relative to the site root, as skillsite writes them: no ``.`` or ``..`` parts; "" is
    the home page). Pure string work: posixpath.relpath asks the OS for the current
    folder on every call, and listings make 50k links."""
    here = from_dir.split("/") if from_dir else []
    there = to_dir.split("/") if to_dir else []
    common = 0
    while common < min(len(here), len(there)) and here[common] == there[common]:
        common += 1
    parts = [".."] * (len(here) - common) + there[common:]
    return "/".join(parts) + "/" if parts else "./"


def link(url: str, label: object) -> str:
    return f'<a href="{attr(url)}">{text(label)}</a>'


def badge(kind: str, value: object) -> str:
    return (f'<span class="skillsite-badge skillsite-badge--{attr(kind)}" '
            f'title="{attr(kind)}">{text(kind)}: {text(value)}</span>')


def table(headers: Sequence[str], rows: Iterable[Sequence[str]], *,
          row_data: Iterable[dict[str, str]] | None = None) -> str:
    """A table whose cells are already HTML; ``row_data`` adds data-* attributes. It has
    no class, so Material styles it; the block around it carries skillsite's classes."""
    head = "".join(f"<th>{text(h)}</th>" for h in headers)
    data = list(row_data) if row_data is not None else None
    lines = ["<table>",
             f"<thead><tr>{head}</tr></thead>", "<tbody>"]
    for number, row in enumerate(rows):
        extra = "".join(f' data-{k}="{attr(v)}"' for k, v in data[number].items()) \
            if data is not None else ""
        lines.append(f"<tr{extra}>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>")
    lines += ["</tbody>", "</table>"]
    return "\n".join(lines)


def fields_table(rows: Iterable[tuple[str, str]]) -> str:
    """A table of named fields, one a row, the name in a row header (no empty header row
    above it). The names are escaped; the values are already HTML."""
    lines = ["<table>", "<tbody>"]
    lines += [f'<tr><th scope="row">{text(name)}</th><td>{value}</td></tr>'
              for name, value in rows]
    lines += ["</tbody>", "</table>"]
    return "\n".join(lines)


def block(inner: str, css: str = "") -> str:
    """An HTML block for a Markdown page: blank lines around, so Markdown leaves it be,
    and the markers :mod:`skillsite.site.hook` recognizes."""
    opening = f'<div class="{attr(css)}">' if css else "<div>"
    return f"\n{opening}<!--skillsite-html-->\n{inner}\n<!--/skillsite-html--></div>\n"


def heading(level: int, title: object) -> str:
    return f"\n{'#' * level} {markdown_text(title)}\n"


#: What YAML may not hold as it is (it would refuse the page's front matter, and mkdocs
#: fall back to a title of its own), and what it reads as line breaks: escaped, or, for
#: lone surrogates, replaced.
_NOT_YAML_PRINTABLE = re.compile("[^\x09\x0a\x0d\x20-\x7e\xa0-\u2027\u202a-\ud7ff"
                                 "\ue000-\ufffd\U00010000-\U0010ffff]")


def _yaml_escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    return "\ufffd" if 0xD800 <= code <= 0xDFFF else f"\\u{code:04x}"


def front_matter(title: str, *, description: str = "") -> str:
    """The page's front matter: a title and a description (the page's meta description
    and link preview), escaped, since themes print them unescaped. A JSON string is a
    YAML double-quoted one, but for characters outside the Basic Multilingual Plane,
    which JSON escapes as surrogate pairs that YAML refuses: those are written as they
    are."""
    lines = ["---", f"title: {_yaml_string(title)}"]
    if description:
        lines.append(f"description: {_yaml_string(description)}")
    return "\n".join([*lines, "---", ""])


def _yaml_string(value: str) -> str:
    quoted = json.dumps(text(value), ensure_ascii=False)
    return _NOT_YAML_PRINTABLE.sub(_yaml_escape, quoted)


def value_html(value: object) -> str:
    """A front-matter value for a table cell: text, or compact JSON for maps and lists."""
    if isinstance(value, str):
        return text(value)
    return f"<code>{text(json.dumps(value, ensure_ascii=False, sort_keys=True))}</code>"
