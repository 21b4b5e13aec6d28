"""Accessibility: axe-core (through axe-playwright-python) in a real headless Chromium, on
every kind of page the site has. No serious or critical violation is allowed."""
from __future__ import annotations

from typing import Any

import pytest

#: One page of each kind, in the fixture's site (plugins, problems, a hostile skill).
PAGES = {"home": "", "listing": "skills/", "filtered listing": "skills/?plugin=toolbox",
         "category": "categories/development/", "tag": "tags/release/",
         "skill": "skills/alpha-guide/", "hostile skill": "skills/hostile-skill/",
         "plugin skill": "skills/toolbox-_3a_zip-tool/", "plugin": "plugins/toolbox/",
         "graph": "skills/gamma-deploy/", "problems": "problems/",
         "search results": "?search=release"}


def _violations(page: Any) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    return [f"{v['id']} ({v['impact']}): {v['help']} at "
            f"{[n['target'] for n in v['nodes'][:3]]}"
            for v in found if v["impact"] in ("serious", "critical")]


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("kind", list(PAGES))
def test_no_serious_or_critical_violations(browser: Any, base_url: str, kind: str,
                                           width: int) -> None:
    # axe is injected through the DevTools protocol; the site's policy forbids eval.
    context = browser.new_context(viewport={"width": width, "height": 900}, bypass_csp=True)
    page = context.new_page()
    try:
        page.goto(base_url + PAGES[kind])
        page.wait_for_load_state("networkidle")
        if "search" in PAGES[kind]:
            page.locator(".skillsite-hits__list a").first.wait_for(timeout=15_000)
        assert _violations(page) == [], kind
    finally:
        context.close()
