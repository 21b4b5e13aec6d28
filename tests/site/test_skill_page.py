"""Issue #22 items 3, 4, 6 and 7: a skill page (title, install commands, {baseDir} links),
plugin pages, page weight and sharing metadata, in headless Chromium.

The corpus is the site fixture (a hostile skill, problems, a dependency graph) with a
Claude Code marketplace beside it (tests/fixtures/site/market), in a real git repository
whose origin is on GitHub, so that plugin install commands and source links appear."""
from __future__ import annotations

import html.parser
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from skillsite.builder.pipeline import build
from skillsite.site.data import slug_of
from skillsite.site.mkdocs_run import PACKAGED_CONFIG

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "site"
PLUGIN_SKILL = f"skills/{slug_of('docs-kit:lint-docs')}/"
GRAPH_PAGE = "skills/gamma-deploy/"
SITE_URL = "https://skills.example.org/catalog/"
#: A graph page may weigh this much (issue #22 item 6).
MAX_GRAPH_PAGE = 600 * 1024


def _corpus(root: Path) -> Path:
    corpus = root / "corpus"
    shutil.copytree(FIXTURES / "corpus", corpus)
    shutil.copytree(FIXTURES / "market", corpus / "market")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org",
           "-c", "commit.gpgsign=false"]
    for command in (["init", "-q"], ["remote", "add", "origin", "https://github.com/acme/skills.git"],
                    ["add", "-A"], ["commit", "-qm", "fixture"]):
        subprocess.run([*git, *command], cwd=corpus, check=True, capture_output=True)
    return corpus


@pytest.fixture(scope="module")
def market_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("market")
    result = build(_corpus(root), root / "dist", site=True)
    assert result.site is not None
    return root / "dist" / "site"


@pytest.fixture()
def market_url(market_site: Path, serve_folder: Any) -> str:
    return serve_folder(market_site)


def _open(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_load_state("networkidle")


def test_the_id_is_the_title_and_the_body_title_the_subtitle(page: Any,
                                                              market_url: str) -> None:
    _open(page, market_url + PLUGIN_SKILL)
    assert page.locator("h1").first.inner_text().rstrip("¶") == "docs-kit:lint-docs"
    assert page.locator(".skillsite-subtitle").inner_text() == "Documentation linter"
    headings = page.locator("main h2").all_inner_texts()
    assert "Documentation linter¶" not in headings and "Steps¶" in headings
    facts = page.locator(".skillsite-facts")
    assert facts.locator("a", has_text="plugin docs-kit").get_attribute("href") == \
        "../../plugins/docs-kit/"
    source = facts.locator("a", has_text="source at").get_attribute("href")
    assert source.startswith("https://github.com/acme/skills/blob/")
    assert source.endswith("/market/plugins/docs-kit/skills/lint-docs/SKILL.md")
    assert "last changed" in facts.inner_text()
    assert page.console_errors == []


def test_base_dir_links_lead_to_the_published_files(page: Any, market_url: str) -> None:
    _open(page, market_url + PLUGIN_SKILL)
    body = page.locator(".skillsite-body")
    assert body.locator("a:not([href])").count() == 0
    assert body.locator("a", has_text="the rules").get_attribute("href") == \
        "references/rules.md"
    assert body.locator("a", has_text="the checker").get_attribute("href") == \
        "scripts/check.py"
    assert body.locator("a", has_text="its scripts").get_attribute("href") == \
        "#supporting-files"                              # a folder: the list of its files
    assert page.locator("#supporting-files").count() == 1
    body.locator("a", has_text="the rules").click()
    page.wait_for_load_state()
    assert "Every link resolves." in page.content()
    assert page.console_errors == []


def _commands(page: Any) -> list[str]:
    return page.eval_on_selector_all(".skillsite-use pre code",
                                     "els => els.map(e => e.textContent)")


def test_install_commands_follow_what_the_skill_is(page: Any, market_url: str) -> None:
    _open(page, market_url + PLUGIN_SKILL)
    commands = _commands(page)
    assert commands[:2] == ["/plugin marketplace add acme/skills",
                            "/plugin install docs-kit@acme-tools"]
    assert "invoke it as /docs-kit:lint-docs" in page.locator(".skillsite-use").inner_text()
    archive = f"{market_url}.well-known/agent-skills/lint-docs.tar.gz"    # its own name
    assert f"mkdir -p ~/.claude/skills/lint-docs && curl -fsSL {archive} " \
           "| tar -xz -C ~/.claude/skills/lint-docs" in commands
    _open(page, market_url + "skills/alpha-guide/")    # not a plugin's: no plugin commands
    commands = _commands(page)
    assert not any(c.startswith("/plugin") for c in commands)
    archive = f"{market_url}.well-known/agent-skills/alpha-guide.tar.gz"
    assert commands[0] == (f"mkdir -p ~/.claude/skills/alpha-guide && curl -fsSL {archive} "
                           "| tar -xz -C ~/.claude/skills/alpha-guide")
    assert f"mkdir -p .agents/skills/alpha-guide && curl -fsSL {archive} " \
           "| tar -xz -C .agents/skills/alpha-guide" in commands
    assert "npx skills add acme/skills --skill alpha-guide" in commands
    assert "skillsite read alpha-guide" in commands
    assert page.console_errors == []


#: For each install command: does its text stay inside its box, and is any of its text
#: under the copy button? (Chromium's own layout: the text's line boxes, the button's box.)
LAYOUT = """() => Array.from(document.querySelectorAll('.skillsite-use pre')).map(pre => {
  const code = pre.querySelector('code');
  const range = document.createRange(); range.selectNodeContents(code);
  const lines = Array.from(range.getClientRects());
  const box = pre.getBoundingClientRect();
  const button = pre.querySelector('.md-code__button, .md-clipboard');
  const b = button ? button.getBoundingClientRect() : null;
  const covered = b ? lines.some(r => r.left < b.right && r.right > b.left &&
                                      r.top < b.bottom && r.bottom > b.top) : false;
  return {text: code.textContent.slice(0, 40), button: !!button, covered: covered,
          inside: lines.every(r => r.right <= box.right + 0.5 && r.left >= box.left - 0.5),
          scrolls: code.scrollWidth > code.clientWidth + 1};
})"""


@pytest.mark.parametrize("width", [1280, 390])
def test_install_commands_fit_their_box_and_the_copy_button_covers_none(
        browser: Any, market_url: str, width: int, artifacts: Path) -> None:
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        for path in (PLUGIN_SKILL, "skills/alpha-guide/"):
            _open(page, market_url + path)
            page.locator(".skillsite-more summary").click()     # open the other commands
            boxes = page.evaluate(LAYOUT)
            assert len(boxes) >= 8
            for box in boxes:
                assert box["button"], f"no copy button on {box['text']!r}"
                assert box["inside"] and not box["scrolls"], f"{box} at {width} px"
                assert not box["covered"], f"the copy button covers {box} at {width} px"
            assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(artifacts / f"install-{width}.png"), full_page=True)
    finally:
        context.close()


def _weigh(page: Any, url: str) -> tuple[int, list[str]]:
    """Bytes of every response the page loaded, and their URLs."""
    sizes: dict[str, int] = {}

    def record(response: Any) -> None:
        try:
            sizes[response.url] = len(response.body())
        except Exception:        # a redirect has no body
            sizes[response.url] = 0
    page.on("response", record)
    _open(page, url)
    page.remove_listener("response", record)
    return sum(sizes.values()), sorted(sizes)


def test_a_page_without_a_graph_loads_no_graph_library(page: Any, market_url: str,
                                                       market_site: Path) -> None:
    assert not list((market_site / "assets").rglob("*mermaid*"))
    weight, urls = _weigh(page, market_url + PLUGIN_SKILL)
    assert page.locator(".skillsite-graph").count() == 0
    scripts = [u for u in urls if u.endswith(".js")]
    assert all("mermaid" not in u and "graph" not in u for u in urls), urls
    assert len(scripts) == 2, scripts            # Material's bundle and skillsite.js
    assert weight < MAX_GRAPH_PAGE


def test_a_graph_page_weighs_at_most_600_kb(page: Any, market_url: str) -> None:
    weight, urls = _weigh(page, market_url + GRAPH_PAGE)
    graph = page.locator("svg.skillsite-graph")
    assert graph.count() == 1 and graph.is_visible()
    assert graph.locator("a").count() == 2              # delta-notes, hostile-page
    assert weight <= MAX_GRAPH_PAGE, f"{weight} bytes: {urls}"
    assert page.console_errors == []


def test_plugin_page_shows_the_marketplace_metadata_and_its_skills(page: Any,
                                                                   market_url: str) -> None:
    _open(page, market_url + "plugins/docs-kit/")
    about = page.locator(".skillsite-source").inner_text()
    for field in ("Acme Docs Team", "1.4.0", "documentation", "docs", "lint", "acme-tools",
                  "https://example.org/docs-kit"):
        assert field in about
    assert _commands(page) == ["/plugin marketplace add acme/skills",
                               "/plugin install docs-kit@acme-tools"]
    page.locator(".skillsite-listing a", has_text="docs-kit:lint-docs").click()
    page.wait_for_url("**/" + PLUGIN_SKILL)
    _open(page, market_url + "plugins/")
    assert page.locator(".skillsite-listing a", has_text="docs-kit").count() == 1
    assert page.console_errors == []


class _Head(html.parser.HTMLParser):
    """The <meta> and <link rel=canonical> of a page, as a browser reads them."""

    def __init__(self) -> None:
        super().__init__()
        self.meta: dict[str, str] = {}
        self.canonical = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if tag == "meta":
            key = values.get("property") or values.get("name")
            if key:
                self.meta[key] = values.get("content", "")
        elif tag == "link" and values.get("rel") == "canonical":
            self.canonical = values.get("href", "")


def _head(site: Path, path: str) -> _Head:
    parser = _Head()
    parser.feed((site / path / "index.html").read_text(encoding="utf-8"))
    return parser


#: One page of each kind.
KINDS = ["", "skills/", "tags/release/", "plugins/docs-kit/", "skills/alpha-guide/",
         GRAPH_PAGE, "problems/", PLUGIN_SKILL, "skills/hostile-skill/"]


@pytest.fixture(scope="module")
def shared_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same corpus built with a site_url in the mkdocs configuration."""
    root = tmp_path_factory.mktemp("shared")
    config = root / "mkdocs.yml"
    config.write_text(PACKAGED_CONFIG.read_text(encoding="utf-8")
                      + f"site_url: {SITE_URL}\n", encoding="utf-8")
    build(_corpus(root), root / "dist", site=True, mkdocs_config=config)
    return root / "dist" / "site"


def test_every_page_has_its_own_description_and_opengraph_tags(market_site: Path) -> None:
    descriptions = {}
    for path in KINDS:
        head = _head(market_site, path)
        for key in ("description", "og:title", "og:description", "og:type"):
            assert head.meta.get(key), f"{path or 'home'}: no {key}"
        assert head.canonical == "" and "og:url" not in head.meta    # no site_url
        descriptions[path] = head.meta["description"]
    assert len(set(descriptions.values())) == len(KINDS), descriptions
    head = _head(market_site, "skills/alpha-guide/")
    assert head.meta["og:title"] == "alpha-guide"
    assert head.meta["description"] == head.meta["og:description"] == (
        "Write a release guide for a Python package. Use when a user prepares a release "
        "and needs the steps in order.")
    hostile = _head(market_site, "skills/hostile-skill/")       # text, never markup
    assert hostile.meta["og:description"].startswith('Hostile "><img src=x onerror=')
    raw = (market_site / "skills/hostile-skill/index.html").read_text(encoding="utf-8")
    assert "<img" not in raw[:raw.index("</head>")]


def test_the_canonical_url_follows_site_url(shared_site: Path) -> None:
    for path in KINDS:
        head = _head(shared_site, path)
        assert head.canonical == SITE_URL + path, path
        assert head.meta["og:url"] == SITE_URL + path

