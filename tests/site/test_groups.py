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
