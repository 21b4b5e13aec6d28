"""A long listing holds its first cards and loads the others from JSON files beside it:
as the reader scrolls, and all at once for a filter or a sort, which keep working (and
stay in the URL) over every skill."""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from skillsite.site import index_pages


@pytest.fixture()
def long_listing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                 make_build: Callable[..., Any], serve_folder: Callable[[Path], str]
                 ) -> tuple[str, Path]:
    """The fixture corpus with listings of 3 cards, the others 2 to a file."""
    monkeypatch.setattr(index_pages, "FIRST_CARDS", 3)
    monkeypatch.setattr(index_pages, "MORE_CARDS", 2)
    site = make_build(tmp_path).dist / "site"
    return serve_folder(site), site


def _shown(page: Any) -> list[str]:
    cards = page.locator(".skillsite-cards > li")
    return [c.locator("a").first.inner_text() for c in cards.all() if c.is_visible()]


def test_the_page_holds_the_first_cards_and_names_the_others(
        long_listing: tuple[str, Path]) -> None:
    _, site = long_listing
    html = (site / "skills" / "index.html").read_text(encoding="utf-8")
    assert html.count('class="skillsite-card"') == 3
    assert 'data-more="cards-1.json cards-2.json cards-3.json"' in html
    more = [json.loads((site / "skills" / f"cards-{n}.json").read_text()) for n in (1, 2, 3)]
    assert [len(cards) for cards in more] == [2, 2, 1]
    assert all(card.startswith('<li class="skillsite-card"') for m in more for card in m)


def test_scrolling_loads_every_card(page: Any, long_listing: tuple[str, Path]) -> None:
    url, site = long_listing
    page.goto(url + "skills/")
    page.wait_for_load_state("networkidle")
    assert page.locator(".skillsite-count").inner_text() == "8 skills"
    for _ in range(6):
        page.mouse.wheel(0, 5000)
        page.wait_for_load_state("networkidle")
    catalog = json.loads((site / "catalog.json").read_text())["skills"]
    assert sorted(_shown(page)) == sorted(s["id"] for s in catalog)
    assert _shown(page) == sorted(_shown(page), key=str.lower)
    assert page.locator(".skillsite-count").inner_text() == "8 skills"
    assert page.console_errors == []


def test_filters_in_the_url_apply_to_every_card(page: Any,
                                                long_listing: tuple[str, Path]) -> None:
    url, _ = long_listing
    page.goto(url + "skills/?format=virtual")
    page.wait_for_load_state("networkidle")
    page.locator(".skillsite-count", has_text="3 of 8 skills").wait_for(timeout=10_000)
    assert set(_shown(page)) == {"delta-notes", "gamma-deploy", "hostile-page"}
    page.select_option("select[name=format]", "")
    page.select_option("select[name=plugin]", "toolbox")
    assert page.url.endswith("skills/?plugin=toolbox")
    assert _shown(page) == ["toolbox:echo-tool", "toolbox:zip-tool"]
    assert page.locator(".skillsite-count").inner_text() == "2 of 8 skills"
    assert page.console_errors == []
