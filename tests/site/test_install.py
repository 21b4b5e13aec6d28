"""Which name each skill is served and installed under, and the install commands' quoting
(no browser: the pages' own tests are test_skill_page.py and test_hostile_names.py)."""
from __future__ import annotations

import shlex
from typing import Any

from skillsite.site.data import SiteSkill
from skillsite.site.discovery import served_names
from skillsite.site.groups import SiteGroups
from skillsite.site.install import Where, install_html
from skillsite.site.pages import Plan, _page_key


def _skill(skill_id: str, name: str) -> SiteSkill:
    return SiteSkill(name=skill_id, slug=skill_id, description="d", format="skill-md",
                     dialect="agent-skills", path=f"{name}/SKILL.md", sha256="0" * 64,
                     tags=[], version=None, title=name, metadata={}, files=[],
                     short_name=name)


def test_a_plugin_skill_is_served_under_its_own_name_unless_another_takes_it() -> None:
    skills = [_skill("toolbox:lint-docs", "lint-docs"), _skill("discord:access", "access"),
              _skill("telegram:access", "access"), _skill("configure", "configure"),
              _skill("discord:configure", "configure"), _skill("Odd Name", "Odd Name")]
    assert served_names(skills) == {"toolbox:lint-docs": "lint-docs",
                                    "configure": "configure"}


def test_commands_quote_every_value_and_install_under_the_served_name() -> None:
    html = install_html(Where("docs-kit:lint-docs", "lint-docs",
                              ".well-known/agent-skills/lint-docs.tar.gz",
                              plugin="docs-kit", marketplace="acme-tools", repo="acme/skills"))
    assert "/plugin install docs-kit@acme-tools" in html
    assert "mkdir -p ~/.claude/skills/lint-docs &amp;&amp; curl -fsSL" in html
    assert f"skillsite read {shlex.quote('docs-kit:lint-docs')}" in html
    odd = install_html(Where("a b;c", "a b;c", "", plugin="p q", marketplace="m",
                             repo="acme/skills"))
    assert "/plugin" not in odd and "mkdir" not in odd and "No install command" in odd
    assert "skillsite read &#x27;a b;c&#x27;" in odd


def test_what_the_install_box_and_relations_show_is_in_the_page_key() -> None:
    """A page is rendered again when its plugin's marketplace, the repository, the name
    it is served under, its plugin's page or the tags it shares change, even if the skill
    did not: each changes what its page is rendered from (its item) and its key."""
    skill = _skill("toolbox:lint-docs", "lint-docs")
    skill.plugin, skill.related, skill.tags = "toolbox", ["other"], ["docs"]

    def plan(**change: Any) -> Plan:
        made: dict[str, Any] = {
            "groups": SiteGroups([{"name": "toolbox", "marketplace": "acme-tools"}], [],
                                 {"": "acme/skills"}),
            "served": {skill.name: "lint-docs"}, "file_flags": {skill.name: []},
            "tags": {skill.name: ["docs"], "other": ["docs"]}}
        return Plan([skill], [], **{**made, **change})

    def key(plan: Plan) -> str:
        return _page_key(skill, "input", [], ["shared"], plan)

    base = plan()
    for change in ({"groups": SiteGroups([{"name": "toolbox", "marketplace": "acme-docs"}],
                                         [], {"": "acme/skills"})},
                   {"groups": SiteGroups([{"name": "toolbox", "marketplace": "acme-tools"}],
                                         [], {"": "acme/other"})},
                   {"served": {}}, {"tags": {skill.name: ["docs"], "other": ["x"]}}):
        assert plan(**change).item(skill) != base.item(skill), change
        assert key(plan(**change)) != key(base), change
    before, page = key(base), base.item(skill)
    skill.collection = "kit"  # its plugin's page is another
    assert base.item(skill)[4].plugin_page != page[4].plugin_page and key(base) != before


def test_a_skill_whose_name_others_share_says_why_it_has_no_download() -> None:
    html = install_html(Where("discord:access", "access", "", plugin="discord",
                              marketplace="chat", repo="acme/skills"))
    assert "/plugin install discord@chat" in html and "mkdir" not in html
    assert "other skills of this catalog are also named access" in html
    assert "Install its plugin instead" in html and "lowercase letters" not in html
