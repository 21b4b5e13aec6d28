"""Skill pages stamped into a shell page instead of run one by one through mkdocs.

mkdocs renders every page through the theme's Jinja templates and keeps every page in
memory: at 100k skill pages, most of a build's time and 6 GB a process. Yet skill pages
differ only in a few places: their title, description, canonical URL, table of contents
and content (they are not in the nav, and their content is HTML already). So real mkdocs
renders one *shell*, a placeholder skill page (:data:`SHELL_PAGE`, at the depth of every
skill page), and each skill page is that shell with its own parts put in:

* its content and table of contents, made by the same code mkdocs runs (Python-Markdown
  with the configuration's extensions, skillsite's hook, Material's ``toc.html``);
* its sharing metadata, from :mod:`~skillsite.site.head`'s own function;
* its title, description, slug and first anchor wherever the shell shows the
  placeholder's.

The shell is cut where the placeholder's parts are; a form of a placeholder value that
the cutting does not know (a plugin printing the title URL-encoded, say) fails the cut,
and a build then checks real skill pages rendered by mkdocs against their stamped copies
(:func:`verify`): any difference, and the build renders every page with mkdocs instead.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast
from urllib.parse import urljoin

from skillsite.site import head, hook
from skillsite.site.markup import block, front_matter, heading
from skillsite.site.mkdocs_run import HEAD, HOOK

#: The placeholder's slug: no skill's (slug_of writes ``-_`` only before hex digits or h).
SHELL_SLUG = "skillsite-_shell_"
SHELL_PAGE = f"skills/{SHELL_SLUG}/index.md"
_TITLE, _DESCRIPTION = "SkillsiteShellTitle", "SkillsiteShellDescription"
_ANCHOR = "skillsiteshelltitle"        # the id Markdown gives the placeholder's title
_SLOTS = re.compile(f"({_TITLE}|{_DESCRIPTION}|{re.escape(SHELL_SLUG)}|{_ANCHOR})")


#: How many headings a stamper keeps converted.
_HEADINGS = 50_000


class ShellError(Exception):
    """The shell (or a page) cannot be stamped: mkdocs renders the pages instead."""


def shell_markdown() -> str:
    """The placeholder page: a title, a description and a heading around HTML blocks."""
    return "\n".join([front_matter(_TITLE, description=_DESCRIPTION), heading(1, _TITLE),
                      block("<p>Shell</p>", "skillsite-header"), heading(2, "Shell part"),
                      block("<p>Shell body</p>", "skillsite-body")])


def supported(config: Any) -> bool:
    """Whether pages of this configuration can be stamped: no plugin or hook but
    skillsite's own, which could change a page in ways the shell does not show."""
    return set(config.plugins.keys()) <= {str(HOOK), str(HEAD)}


@dataclass
class _Page:
    """What the hooks and Material's table of contents read of a page."""

    file: Any
    meta: dict[str, Any]
    title: str
    canonical_url: str | None
    toc: Any = None
    is_homepage: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class _File:
    src_uri: str


@dataclass
class Parts:
    meta: dict[str, Any]
    content: str
    toc: str
    head: str
    anchor: str


class Stamper:
    """Stamps skill pages into one shell (the HTML mkdocs wrote for :data:`SHELL_PAGE`,
    with its security policy) under one mkdocs configuration."""

    def __init__(self, config: Any, shell: str) -> None:
        import markdown

        self.config = config
        self.markdown = markdown.Markdown(extensions=config["markdown_extensions"],
                                          extension_configs=config["mdx_configs"] or {})
        env = config.theme.get_env()
        self.toc_template = env.from_string(
            '{% import "partials/language.html" as lang with context %}'
            '{% include "partials/toc.html" %}')
        #: A heading's Markdown line -> its HTML and table of contents tokens.
        self._headings: dict[str, tuple[str, list[dict[str, Any]]]] = {}
        self.pieces = self._cut(shell)

    def parts(self, text: str, slug: str) -> Parts:
        """A page's parts, as mkdocs and the hooks make them."""
        from mkdocs.structure.toc import get_toc
        from mkdocs.utils.meta import get_data

        body, meta = get_data(text)
        title = meta.get("title")
        if not isinstance(title, str) or not isinstance(meta.get("description"), str):
            raise ShellError(f"skills/{slug}: no title or description of its own")
        url = f"skills/{slug}/"
        base = self.config["site_url"]
        canonical = urljoin(base if base.endswith("/") else base + "/", url) if base else None
        page = _Page(_File(f"{url}index.md"), meta, title, canonical)
        body = hook.on_page_markdown(body, page=page)
        content, tokens = self._split(body, page) or self._convert(body)
        page.toc = get_toc(cast(Any, tokens))
        content = head.on_page_content(hook.on_page_content(content, page=page), page=page)
        first = next(iter(page.toc), None)
        if "<h1" not in content or first is None:
            raise ShellError(f"skills/{slug}: no title heading")
        toc = self.toc_template.render(page=page, config=self.config)
        meta_html = head.on_post_page("</head>", page=page, config=self.config)
        return Parts(meta, content, toc, meta_html[:-len("</head>")], first.id)

    def _convert(self, text: str) -> tuple[str, list[dict[str, Any]]]:
        self.markdown.reset()
        html = self.markdown.convert(text)
        return html, getattr(self.markdown, "toc_tokens", [])

    def _split(self, body: str, page: _Page) -> tuple[str, list[dict[str, Any]]] | None:
        """The HTML and table of contents tokens of a page that the hook gave Markdown as
        headings alone: each heading converted on its own (once: many pages share their
        sections' headings). Markdown gives the same for the whole page when no two
        headings have the same anchor (else: None), since an anchor changes only to
        differ from one before it."""
        from markdown.extensions.toc import nest_toc_tokens

        if hook.held_token(page.file.src_uri) != "":
            return None
        html, tokens, ids = [], [], set()
        for line in body.split("\n\n"):
            line = line.strip("\n")
            converted = self._headings.get(line)
            if converted is None:
                converted = self._convert(line + "\n")
                if len(converted[1]) != 1 or converted[1][0]["children"]:
                    return None
                if len(self._headings) >= _HEADINGS:
                    self._headings.clear()
                self._headings[line] = converted
            token = converted[1][0]
            if token["id"] in ids:
                return None
            ids.add(token["id"])
            html.append(converted[0])
            tokens.append(dict(token))
        return "\n".join(html), nest_toc_tokens(tokens)

    def stamp(self, text: str, slug: str) -> bytes:
        """The page mkdocs would write for the skill page ``text`` at ``skills/slug/``."""
        parts = self.parts(text, slug)
        values = {"content": parts.content, "toc": parts.toc, "head": parts.head,
                  _TITLE: parts.meta["title"], _DESCRIPTION: parts.meta["description"],
                  SHELL_SLUG: slug, _ANCHOR: parts.anchor}
        out = "".join(values[p] if slot else p for p, slot in self.pieces)
        return out.encode("utf-8", errors="xmlcharrefreplace")

    def _cut(self, shell: str) -> list[tuple[str, bool]]:
        """The shell as literal pieces and slots (``(name, True)``)."""
        placeholder = self.parts(shell_markdown(), SHELL_SLUG)
        found = []
        for name, value in (("content", placeholder.content), ("toc", placeholder.toc),
                            ("head", placeholder.head)):
            if shell.count(value) != 1:
                raise ShellError(f"the shell shows the placeholder's {name} "
                                 f"{shell.count(value)} times")
            found.append((shell.index(value), len(value), name))
        pieces: list[tuple[str, bool]] = []
        last = 0
        for start, length, name in sorted(found):
            if start < last:
                raise ShellError("the placeholder's parts overlap in the shell")
            pieces += self._literal(shell[last:start]) + [(name, True)]
            last = start + length
        return pieces + self._literal(shell[last:])

    @staticmethod
    def _literal(text: str) -> list[tuple[str, bool]]:
        pieces = []
        for number, piece in enumerate(_SLOTS.split(text)):
            if number % 2:
                pieces.append((piece, True))
            elif piece:
                if "skillsiteshell" in piece.lower():
                    raise ShellError("the shell shows a placeholder value in a form that "
                                     "stamping does not know")
                pieces.append((piece, False))
        return pieces


def load_stamper(docs: Path, config_file: Path | None, shell: str) -> Stamper:
    """A stamper for the configuration as mkdocs ran it over ``docs``."""
    from skillsite.site.mkdocs_run import site_config

    return Stamper(site_config(docs, docs.parent / "unused-site", config_file), shell)


def verify(stamper: Stamper, samples: dict[str, tuple[str, bytes]]) -> list[str]:
    """The slugs of ``samples`` (slug -> (Markdown, what mkdocs wrote)) whose stamped
    page differs from mkdocs' (or cannot be stamped)."""
    differ = []
    for slug, (text, rendered) in samples.items():
        try:
            if stamper.stamp(text, slug) != rendered:
                differ.append(slug)
        except ShellError:
            differ.append(slug)
    return differ


def allowed(config_file: Path) -> bool:
    """Whether the configuration file names no plugin or hook of its own (see
    :func:`supported`, which the loaded configuration must pass too)."""
    from skillsite.site.mkdocs_run import SiteError, _raw

    try:
        raw = _raw(config_file)
    except SiteError:
        return False
    return not raw.get("plugins") and not raw.get("hooks")
