"""The catalog site in a real headless Chromium (Debian's, driven by Playwright)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MARKER = "document.documentElement.dataset.pwned"


def _open(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_load_state("networkidle")


def test_home_loads_without_console_errors(page: Any, base_url: str, artifacts: Path) -> None:
    _open(page, base_url)
    assert page.title() == "Skills catalog"
    assert page.locator("h1").first.inner_text().rstrip("¶") == "Skills catalog"
    assert page.locator("#skillsite-search input").count() == 1   # Pagefind's UI loaded
    assert page.locator("a[href='catalog.json']").count() == 1
    shot = artifacts / "home.png"
    page.screenshot(path=str(shot), full_page=True)
    print(f"screenshot: {shot}")
    assert page.console_errors == []


def test_search_finds_a_skill_and_leads_to_its_page(page: Any, base_url: str) -> None:
    _open(page, base_url)
    page.fill("#skillsite-search input", "release guide")
    result = page.locator(".pagefind-ui__result-link", has_text="alpha-guide")
    result.first.wait_for(timeout=10_000)
    result.first.click()
    page.wait_for_url("**/skills/alpha-guide/")
    assert page.locator("h1").first.inner_text().startswith("Alpha guide")
    assert page.console_errors == []


def test_search_reaches_every_bundle(page: Any, base_url: str, site: Path) -> None:
    """The index is in several bundles merged by the UI: each skill is found by its name,
    whichever bundle holds it, and the result links to its page."""
    from skillsite.site.data import slug_of
    from skillsite.site.search import bundle_of

    names = [s["id"] for s in json.loads((site / "catalog.json").read_text())["skills"]]
    assert len({bundle_of(slug_of(name)) for name in names}) > 2
    _open(page, base_url)
    for name in names:
        page.fill("#skillsite-search input", name)
        hit = page.locator(".pagefind-ui__result-link", has_text=name)
        hit.first.wait_for(timeout=10_000)
        assert hit.first.get_attribute("href") == f"/skills/{slug_of(name)}/"
    assert page.console_errors == []


def test_skill_page_shows_metadata_and_working_links(page: Any, base_url: str,
                                                     artifacts: Path) -> None:
    _open(page, base_url + "skills/alpha-guide/")
    metadata = page.locator(".skillsite-meta table").inner_text()
    assert "license" in metadata and "MIT" in metadata and "site-tests" in metadata
    badges = page.locator(".skillsite-badges").inner_text()
    assert "format: skill-md" in badges and "dialect: agent-skills" in badges
    assert page.locator(".md-sidebar--secondary a", has_text="Steps").count() == 1  # TOC
    assert page.locator(".highlight code .k, .highlight code .kd").count() > 0     # Pygments
    shot = artifacts / "skill-page.png"
    page.screenshot(path=str(shot), full_page=True)
    print(f"screenshot: {shot}")
    page.locator(".skillsite-body a", has_text="the reference").click()
    page.wait_for_load_state()
    assert "Tag, build, upload." in page.content()
    _open(page, base_url + "skills/alpha-guide/")
    page.locator(".skillsite-relations a", has_text="beta-check").first.click()
    page.wait_for_url("**/skills/beta-check/")
    assert page.locator("h1").first.inner_text().startswith("Beta check")
    assert page.console_errors == []


def test_dependency_links_and_graph(page: Any, base_url: str) -> None:
    _open(page, base_url + "skills/gamma-deploy/")
    page.wait_for_function("document.body.dataset.graphs === 'rendered'", timeout=15_000)
    assert page.locator(".skillsite-graph-box svg").count() == 1      # Mermaid drew it
    depends = page.locator(".skillsite-rel", has_text="Depends on")
    depends.locator("a", has_text="delta-notes").click()
    page.wait_for_url("**/skills/delta-notes/")
    needed = page.locator(".skillsite-rel", has_text="Needed by")
    assert needed.locator("a", has_text="gamma-deploy").count() == 1
    assert page.console_errors == []


def test_az_listing_holds_every_skill(page: Any, base_url: str, site: Path) -> None:
    catalog = json.loads((site / "catalog.json").read_text())["skills"]
    _open(page, base_url + "skills/")
    listed = page.locator(".skillsite-listing tbody tr td:first-child a").all_inner_texts()
    assert sorted(listed) == sorted(s["id"] for s in catalog)
    assert len(catalog) == 8


def test_filters_are_kept_in_the_url(page: Any, base_url: str) -> None:
    _open(page, base_url + "skills/?hide=flagged")
    rows = page.locator(".skillsite-listing tbody tr")
    visible = [r.locator("td").first.inner_text() for r in rows.all() if r.is_visible()]
    assert "hostile-skill" not in visible and "alpha-guide" in visible
    page.select_option("select[name=format]", "virtual")
    assert "format=virtual" in page.url and "hide=flagged" in page.url
    visible = [r.locator("td").first.inner_text() for r in rows.all() if r.is_visible()]
    assert set(visible) == {"delta-notes", "gamma-deploy", "hostile-page"}


def test_search_finds_an_edited_description_after_an_incremental_build(
        page: Any, tmp_path: Path, make_build: Any, serve_folder: Any) -> None:
    make_build(tmp_path)
    wiki = tmp_path / "corpus" / "wiki" / "gamma-deploy.md"
    wiki.write_text(wiki.read_text().replace("description: Deploy", "description: Quokka. Deploy"))
    result = make_build(tmp_path)
    assert result.site.incremental and result.site.rendered == 1
    url = serve_folder(result.dist / "site")
    _open(page, url + "skills/")
    row = page.locator("tr", has_text="gamma-deploy")
    assert "Quokka. Deploy" in row.first.inner_text()        # the A-Z listing
    _open(page, url)
    page.fill("#skillsite-search input", "quokka")
    hit = page.locator(".pagefind-ui__result-link", has_text="gamma-deploy")
    hit.first.wait_for(timeout=10_000)
    assert page.locator(".pagefind-ui__result-link").count() == 1
    hit.first.click()
    page.wait_for_url("**/skills/gamma-deploy/")
    assert "Quokka. Deploy" in page.locator(".skillsite-description").inner_text()
    assert page.console_errors == []
