"""Every internal link of the built site resolves to a file it publishes."""
from __future__ import annotations

import html.parser
import posixpath
from pathlib import Path
from urllib.parse import unquote, urlsplit


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value and ((name == "href" and tag in ("a", "link"))
                          or (name == "src" and tag in ("script", "img"))):
                self.found.append(value)
            if name == "id" and value:
                self.ids.add(value)


def _pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def _parse(page: Path) -> _Links:
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def test_every_internal_link_resolves(site: Path) -> None:
    broken, checked = [], 0
    for page in _pages(site):
        folder = page.parent.relative_to(site).as_posix()
        for url in _parse(page).found:
            parts = urlsplit(url)
            if parts.scheme or parts.netloc or not parts.path:
                continue
            path = unquote(parts.path)
            # 404.html links from the site root, since it is served for any missing URL
            target = posixpath.normpath(path.lstrip("/") if path.startswith("/")
                                        else posixpath.join(folder, path))
            resolved = site / target
            if resolved.is_dir():
                resolved = resolved / "index.html"
            checked += 1
            if target.startswith("..") or not resolved.is_file():
                broken.append(f"{page.relative_to(site)}: {url}")
    assert checked > 200
    assert broken == []


def test_anchors_on_skill_pages_resolve(site: Path) -> None:
    missing = []
    for page in sorted((site / "skills").glob("*/index.html")):
        parsed = _parse(page)
        for url in parsed.found:
            if url.startswith("#") and len(url) > 1 and unquote(url[1:]) not in parsed.ids:
                missing.append(f"{page.parent.name}: {url}")
    assert missing == []


def test_nav_is_small(site: Path) -> None:
    home = (site / "index.html").read_text(encoding="utf-8")
    nav = home[home.find('<nav class="md-nav md-nav--primary"'):]
    nav = nav[:nav.find("</nav>")]
    assert nav.count("md-nav__link") <= 12
    assert "hostile-skill" not in nav and "alpha-guide" not in nav
