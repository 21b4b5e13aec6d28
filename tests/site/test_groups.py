"""Plugin and collection pages from catalog.json's plugins and collections (the browser
tests of a plugin page are in test_skill_page.py; no fixture corpus has collections)."""
from __future__ import annotations

from skillsite.site.data import SiteSkill
from skillsite.site.groups import SiteGroups, collection_path, group_pages, plugin_path


def _skill(skill_id: str, plugin: str = "", collection: str = "") -> SiteSkill:
    return SiteSkill(name=skill_id, slug=skill_id.replace(":", "-").replace("/", "-"),
                     description=f"{skill_id} does things.", format="skill-md",
                     dialect="agent-skills", path=f"{skill_id}/SKILL.md", sha256="0" * 64,
                     tags=[], version=None, title=skill_id, metadata={}, files=[],
                     plugin=plugin, collection=collection)


def test_a_collection_page_lists_its_repository_plugins_and_skills() -> None:
    groups = SiteGroups(
        plugins=[{"name": "kit", "collection": "team", "skills": 1, "source": "local",
                  "author": "<b>Ann</b>", "homepage": "javascript:alert(1)"}],
        collections=[{"name": "team", "skills": 2, "commit": "a" * 40,
                      "web_url": "https://github.com/acme/team"}],
        repos={"team": "acme/team"})
    skills = [_skill("team/kit:one", "kit", "team"), _skill("team/two", "", "team")]
    pages = group_pages(groups, skills)
    assert set(pages) == {f"{plugin_path('kit', 'team')}/index.md",
                          f"{collection_path('team')}/index.md",
                          "plugins/index.md", "collections/index.md"}
    team = pages[f"{collection_path('team')}/index.md"]
    assert "acme/team" in team and "a" * 40 in team and "https://github.com/acme/team" in team
    assert "team/kit:one" in team and "team/two" in team and "# Skills \\(2\\)" in team
    kit = pages[f"{plugin_path('kit', 'team')}/index.md"]
    assert "&lt;b&gt;Ann&lt;/b&gt;" in kit and "<b>" not in kit      # text, never markup
    assert "javascript:" not in kit                                  # only https links
    assert "/plugin install" not in kit        # no marketplace: no plugin command


def test_the_plugins_page_puts_plugins_listed_from_elsewhere_apart() -> None:
    groups = SiteGroups(
        plugins=[{"name": "kit", "collection": "", "skills": 2, "source": "local",
                  "category": "dev"},
                 {"name": "away", "collection": "", "skills": 0,
                  "source": "github:acme/away", "description": "<i>Remote</i> tools."}],
        collections=[], repos={})
    page = group_pages(groups, [_skill("kit:one", "kit")])["plugins/index.md"]
    here, elsewhere = page.split("Listed, with their source elsewhere \\(1\\)")
    assert "With skills in this catalog \\(1\\)" in here
    assert 'href="kit/"' in here and "2 skills · dev" in here and "away" not in here
    assert 'href="away/"' in elsewhere and "source elsewhere, not fetched" in elsewhere
    assert "&lt;i&gt;Remote&lt;/i&gt; tools." in elsewhere and "<i>" not in elsewhere
    assert "<table" not in page                       # cards: no sideways scroll on a phone
