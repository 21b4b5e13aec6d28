"""The catalog site in a real headless Chromium (Debian's, driven by Playwright)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MARKER = "document.documentElement.dataset.pwned"


def _open(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_load_state("networkidle")


def search(page: Any, query: str, box: str = "#skillsite-find-header") -> Any:
    """Type ``query`` into a search box; the result links, once the results show."""
    page.fill(box, query)
    form = page.locator(f"form[data-searched={json.dumps(query)}]:has({box})")
    form.wait_for(timeout=15_000)
    return form.locator(".skillsite-hits__list a")


def test_home_names_the_corpus_and_counts_what_matters(page: Any, base_url: str,
                                                       artifacts: Path) -> None:
    _open(page, base_url)
    # The marketplace's name and description (the fixture has no configuration of its own).
    assert page.title() == "release-kit"
    assert page.locator("h1").first.inner_text().rstrip("¶") == "release-kit"
    assert "from a release candidate to a deploy" in page.locator(".skillsite-lead").inner_text()
    assert page.locator("#skillsite-find-home").count() == 1
    stats = page.locator(".skillsite-stats").inner_text()
    assert "8 skills" in stats and "1 plugin" in stats and "1 category" in stats
    plugins = page.locator(".skillsite-groups .skillsite-card")
    assert plugins.count() == 1 and "2 skills · development" in plugins.inner_text()
    assert page.locator(".skillsite-chips a", has_text="development").count() == 1
    body = page.locator(".md-content").inner_text()
    assert "Dialects" not in body and "No tags yet" not in body and "skill-toml" not in body
    assert page.locator("a[href='catalog.json']").count() == 1
    shot = artifacts / "home.png"
    page.screenshot(path=str(shot), full_page=True)
    print(f"screenshot: {shot}")
    assert page.console_errors == []


def test_search_from_a_skill_page_shows_names_and_descriptions(page: Any,
                                                              base_url: str) -> None:
    _open(page, base_url + "skills/beta-check/")
    hits = search(page, "python package")
    first = hits.first
    assert first.locator(".skillsite-hit__name").inner_text() == "alpha-guide"
    assert first.locator(".skillsite-hit__description").inner_text().startswith(
        "Write a release guide for a Python package.")
    first.click()
    page.wait_for_url("**/skills/alpha-guide/")
    assert page.locator("h1").first.inner_text().startswith("alpha-guide")
    assert page.console_errors == []


def test_search_ranks_a_name_above_a_body_heading(page: Any, base_url: str) -> None:
    """A query that is a skill's name finds that skill first, though other skills say
    its words in their descriptions and headings."""
    _open(page, base_url)
    assert search(page, "beta check", "#skillsite-find-home").first.locator(
        ".skillsite-hit__name").inner_text() == "beta-check"
    assert search(page, "zip", "#skillsite-find-home").first.locator(
        ".skillsite-hit__name").inner_text() == "toolbox:zip-tool"


def test_home_search_reads_the_query_from_the_url(page: Any, base_url: str) -> None:
    _open(page, base_url + "?search=deploy")
    form = page.locator("form.skillsite-find--home[data-searched=deploy]")
    form.wait_for(timeout=15_000)
    assert "gamma-deploy" in form.locator(".skillsite-hits__list").inner_text()


def test_search_reaches_every_bundle(page: Any, base_url: str, site: Path) -> None:
    """The index is in several bundles merged by the UI: each skill is found by its name,
    whichever bundle holds it, and the result links to its page."""
    from skillsite.site.data import slug_of
    from skillsite.site.search import bundle_of

    names = [s["id"] for s in json.loads((site / "catalog.json").read_text())["skills"]]
    assert len({bundle_of(slug_of(name)) for name in names}) > 2
    _open(page, base_url)
    for name in names:
        hit = search(page, name).filter(has_text=name).first
        assert hit.get_attribute("href") == f"/skills/{slug_of(name)}/"
    assert page.console_errors == []


def test_skill_page_shows_metadata_and_working_links(page: Any, base_url: str,
                                                     artifacts: Path) -> None:
    _open(page, base_url + "skills/alpha-guide/")
    metadata = page.locator(".skillsite-source table").inner_text()
    assert "license" in metadata and "MIT" in metadata and "site-tests" in metadata
    assert page.locator("h1").first.inner_text().rstrip("¶") == "alpha-guide"   # the id
    assert page.locator(".skillsite-subtitle").inner_text() == "Alpha guide"      # its title
    badges = page.locator(".skillsite-badges").inner_text()
    assert "trust: no risk found" in badges
    for noise in ("format: skill-md", "dialect: agent-skills", "risk: unrated", "class: n/a"):
        assert noise not in badges
    description = "Write a release guide for a Python package."
    assert page.locator("main").inner_text().count(description) == 1
    assert page.locator(".skillsite-source table thead").count() == 0   # no empty header
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
    assert page.locator(".skillsite-subtitle").inner_text() == "Beta check"
    assert page.console_errors == []


def test_dependency_links_and_graph(page: Any, base_url: str) -> None:
    _open(page, base_url + "skills/gamma-deploy/")
    assert page.locator(".skillsite-graph-box svg").count() == 1      # drawn at build time
    page.locator(".skillsite-graph-box a", has_text="delta-notes").click()   # its nodes link
    page.wait_for_url("**/skills/delta-notes/")
    _open(page, base_url + "skills/gamma-deploy/")
    depends = page.locator(".skillsite-rel", has_text="Depends on")
    depends.locator("a", has_text="delta-notes").click()
    page.wait_for_url("**/skills/delta-notes/")
    needed = page.locator(".skillsite-rel", has_text="Needed by")
    assert needed.locator("a", has_text="gamma-deploy").count() == 1
    assert page.console_errors == []


def _shown(page: Any) -> list[str]:
    cards = page.locator(".skillsite-cards > li")
    return [c.locator("a").first.inner_text() for c in cards.all() if c.is_visible()]


def test_az_listing_holds_every_skill(page: Any, base_url: str, site: Path) -> None:
    catalog = json.loads((site / "catalog.json").read_text())["skills"]
    _open(page, base_url + "skills/")
    assert sorted(_shown(page)) == sorted(s["id"] for s in catalog)
    assert len(catalog) == 8
    assert page.locator(".skillsite-count").inner_text() == "8 skills"


def test_filters_are_kept_in_the_url_and_the_count_follows(page: Any, base_url: str) -> None:
    _open(page, base_url + "skills/?trust=none")
    assert "hostile-skill" not in _shown(page) and "alpha-guide" in _shown(page)
    assert page.locator(".skillsite-count").inner_text() == "7 of 8 skills"
    page.select_option("select[name=format]", "virtual")
    assert "format=virtual" in page.url and "trust=none" in page.url
    assert set(_shown(page)) == {"delta-notes", "gamma-deploy", "hostile-page"}
    assert page.locator(".skillsite-count").inner_text() == "3 of 8 skills"
    page.select_option("select[name=format]", "")
    page.select_option("select[name=trust]", "")
    page.select_option("select[name=plugin]", "toolbox")
    assert page.url.endswith("skills/?plugin=toolbox")
    assert _shown(page) == ["toolbox:echo-tool", "toolbox:zip-tool"]
    page.check("input[name=problems]")
    assert "problems=1" in page.url and _shown(page) == ["toolbox:zip-tool"]
    assert page.locator(".skillsite-count").inner_text() == "1 of 8 skills"
    page.reload()                                           # the URL alone says it all
    page.wait_for_load_state("networkidle")
    assert _shown(page) == ["toolbox:zip-tool"]
    assert page.locator("select[name=plugin]").input_value() == "toolbox"


def test_listing_sorts_by_last_change(page: Any, base_url: str, site: Path) -> None:
    _open(page, base_url + "skills/?sort=changed")
    cards = page.locator(".skillsite-cards > li")
    times = [int(c.get_attribute("data-changed")) for c in cards.all()]
    assert times == sorted(times, reverse=True)
    assert page.locator("select[name=sort]").input_value() == "changed"


def test_category_page_lists_its_plugins_skills(page: Any, base_url: str) -> None:
    _open(page, base_url + "categories/development/")
    assert sorted(_shown(page)) == ["toolbox:echo-tool", "toolbox:zip-tool"]


def test_no_sideways_scroll_on_a_phone(browser: Any, base_url: str, artifacts: Path) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    tab = context.new_page()
    for path in ("", "skills/", "categories/development/", "tags/release/", "problems/",
                 "plugins/toolbox/", "plugins/"):
        tab.goto(base_url + path)
        tab.wait_for_load_state("networkidle")
        wide = tab.evaluate("""() => {
            const out = [document.documentElement.scrollWidth];
            for (const el of document.querySelectorAll('.md-content *'))
              if (el.clientWidth > 1 && el.scrollWidth > el.clientWidth + 1 &&
                  getComputedStyle(el).overflowX !== 'visible') out.push(el.className);
            return out;}""")
        assert wide == [390], f"{path or 'home'} scrolls sideways: {wide}"
    tab.screenshot(path=str(artifacts / "problems-390.png"), full_page=True)
    context.close()


def test_search_finds_an_edited_description_after_an_incremental_build(
        page: Any, tmp_path: Path, make_build: Any, serve_folder: Any) -> None:
    make_build(tmp_path)
    wiki = tmp_path / "corpus" / "wiki" / "gamma-deploy.md"
    wiki.write_text(wiki.read_text().replace("description: Deploy", "description: Quokka. Deploy"))
    result = make_build(tmp_path)
    assert result.site.incremental and result.site.rendered == 1
    url = serve_folder(result.dist / "site")
    _open(page, url + "skills/")
    card = page.locator(".skillsite-cards > li", has_text="gamma-deploy")
    assert "Quokka. Deploy" in card.first.inner_text()        # the A-Z listing
    _open(page, url)
    hits = search(page, "quokka")
    assert hits.count() == 1
    hits.first.click()
    page.wait_for_url("**/skills/gamma-deploy/")
    assert "Quokka. Deploy" in page.locator(".skillsite-description").inner_text()
    assert page.console_errors == []


def test_problems_page_links_every_row_and_shows_whole_messages(page: Any, base_url: str,
                                                                site: Path) -> None:
    catalog = json.loads((site / "catalog.json").read_text())["skills"]
    folders = tuple(s["path"].rsplit("/", 1)[0] + "/" for s in catalog if "/" in s["path"])
    _open(page, base_url + "problems/")
    rows = page.locator(".skillsite-problems tbody tr")
    assert rows.count() > 5
    for row in rows.all():
        where = row.locator("td").first
        path = where.inner_text().rsplit(":", 1)[0]
        if path in {s["path"] for s in catalog} or path.startswith(folders):
            assert where.locator("a").count() == 1, path      # a published skill's file
        message = row.locator("td").nth(3)
        assert message.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), path
    assert page.evaluate("document.documentElement.scrollWidth") == 1280
    table = page.locator(".skillsite-problems table")            # nothing cut off at 1280
    assert table.evaluate("e => e.getBoundingClientRect().right <= "
                          "document.querySelector('.md-content').getBoundingClientRect().right")
