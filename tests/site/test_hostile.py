"""A hostile skill (tests/fixtures/site/corpus/skills/hostile-skill and
wiki/hostile-page.md) whose every script would set ``data-pwned`` on <html>: it must
never be set, on its page or on any listing that shows it."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skillsite.site.data import slug_of

MARKER = "document.documentElement.dataset.pwned || window.__pwned || null"
#: Every element that could run script: handlers, script URLs, and elements that have no
#: business in a page's content (skillsite's own filter form and graph aside).
ACTIVE = """() => {
  const found = [];
  for (const el of document.querySelectorAll('*')) {
    if (el.closest('.skillsite-find')) continue;   // the search's own results
    for (const a of el.attributes) {
      if (a.name.startsWith('on')) found.push(el.tagName + '[' + a.name + ']');
      if (/^\\s*(javascript|data|vbscript):/i.test(a.value) &&
          ['href', 'src', 'action', 'formaction', 'data', 'xlink:href'].includes(a.name))
        found.push(el.tagName + '[' + a.name + '=' + a.value.slice(0, 30) + ']');
    }
  }
  const content = '.md-content iframe, .md-content object, .md-content embed, ' +
    '.md-content script, .md-content style, .md-content math, .md-content base, ' +
    '.md-content meta, .md-content form:not(.skillsite-filters):not(.skillsite-find), ' +
    '.md-content svg';
  for (const el of document.querySelectorAll(content))
    if (!el.closest('.skillsite-graph-box')) found.push(el.tagName);   // skillsite's graph
  for (const el of document.querySelectorAll('head base')) found.push('BASE');
  return found;
}"""
HOSTILE_TAG = '<script>document.documentElement.dataset.pwned="tag"</script>'
PAGES = ["skills/hostile-skill/", "skills/hostile-page/", "skills/", "", "problems/",
         "tags/release/", f"tags/{slug_of(HOSTILE_TAG)}/", "skills/?format=virtual",
         "formats/", "tags/", "categories/development/"]


def _visit(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(300)


@pytest.mark.parametrize("path", PAGES)
def test_no_hostile_script_runs(page: Any, base_url: str, path: str) -> None:
    _visit(page, base_url + path)
    for element in page.locator("main a, main p, main td, main img, main details").all()[:400]:
        if element.is_visible():
            element.hover(timeout=2000)
    assert page.evaluate(MARKER) is None
    assert page.evaluate(ACTIVE) == [], f"active content on {path or 'home'}"


def test_clicking_hostile_links_runs_nothing(page: Any, base_url: str) -> None:
    _visit(page, base_url + "skills/hostile-skill/")
    for text in ("raw link", "entity link"):
        link = page.locator(".skillsite-body a", has_text=text)
        assert link.count() == 1 and link.get_attribute("href") is None
        link.click()
    # markdown-it does not make a link of a javascript: target at all
    for text in ("markdown link", "data link"):
        assert page.locator(".skillsite-body a", has_text=text).count() == 0
    page.locator("#hover-me").count() == 0 or page.locator("#hover-me").hover()
    assert page.evaluate(MARKER) is None


def test_search_results_stay_inert(page: Any, base_url: str) -> None:
    _visit(page, base_url)
    page.fill("#skillsite-find-home", "hostile")
    page.locator(".skillsite-hits__list a").first.wait_for(timeout=10_000)
    page.wait_for_timeout(500)
    assert page.evaluate(MARKER) is None
    hits = page.locator("form.skillsite-find--home")
    assert "<img src=x" not in hits.inner_html() and "<img src=x" in hits.inner_text()


def test_front_matter_values_are_text(page: Any, base_url: str) -> None:
    _visit(page, base_url + "skills/hostile-skill/")
    description = page.locator(".skillsite-description").inner_text()
    assert '"><img src=x onerror=' in description          # shown as text, not markup
    metadata = page.locator(".skillsite-source").inner_text()
    assert "<script>" in metadata
    _visit(page, base_url + "skills/hostile-page/")
    assert "<script>" in page.locator(".skillsite-badges").inner_text()   # the hostile tag
    assert page.evaluate(MARKER) is None


def test_published_active_files_are_served_as_text(page: Any, base_url: str,
                                                    site: Path) -> None:
    folder = site / "skills" / "hostile-skill" / "assets"
    assert sorted(p.name for p in folder.iterdir()) == ["logo.svg.txt", "page.html.txt"]
    _visit(page, base_url + "skills/hostile-skill/assets/page.html.txt")
    assert page.evaluate(MARKER) is None
    response = page.goto(base_url + "skills/hostile-skill/assets/page.html")
    assert response is not None and response.status == 404


def test_inline_script_is_refused_by_the_policy(page: Any, base_url: str) -> None:
    """Even a script that got past the sanitizer would not run: the CSP meta forbids
    inline script other than Material's own."""
    _visit(page, base_url + "skills/alpha-guide/")
    ran = page.evaluate("""() => new Promise(done => {
        const s = document.createElement('script');
        s.textContent = 'window.__inline = 1';
        document.body.appendChild(s);
        setTimeout(() => done(window.__inline || null), 100);
    })""")
    assert ran is None
    assert page.evaluate("typeof __md_get") == "function"     # Material's own inline script ran


def test_flags_carry_evidence(page: Any, base_url: str) -> None:
    _visit(page, base_url + "skills/hostile-skill/")
    flags = page.locator(".skillsite-flags").inner_text()
    # the level, its sentence and the risk rules' own evidence
    assert flags.startswith("high risk: High risk:")
    assert "pipe-to-shell" in flags and "SKILL.md:53" in flags
    # capabilities are listed as information, not flags
    assert "scripts: 1 (shell)" in flags and "collector.evil.test" in flags
    assert "allowed-tools: Bash Read" in flags
    assert "trust: high risk" in page.locator(".skillsite-badges").inner_text()
