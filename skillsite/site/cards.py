"""A skill as a card: how every listing (A-Z, category, tag, format, plugin and
collection pages) shows it. Cards fit a phone's width, where a table's columns would not."""
from __future__ import annotations

import time

from skillsite.site.data import SiteSkill
from skillsite.site.markup import href, link
from skillsite.site.sanitize import attr, text

MAX_DESCRIPTION = 240
#: A skill's trust level, as a listing says it.
LEVELS = {"none": "no concerns", "review": "to review", "high": "high risk"}


def skill_cards(here: str, skills: list[SiteSkill], categories: dict[str, str] | None = None,
                attributes: str = "") -> str:
    """A list of cards, one a skill: its id (a link to its page, from the page at
    ``here``), trust level, description and a line of what else is known; the data-*
    attributes are what the listing filters read; ``attributes`` go on the list."""
    cards = "".join(card_items(here, skills, categories))
    return f'<ol class="skillsite-cards"{attributes}>{cards}</ol>'


def card_items(here: str, skills: list[SiteSkill], categories: dict[str, str] | None = None
               ) -> list[str]:
    """The cards of :func:`skill_cards`, each an ``<li>``."""
    categories = categories or {}
    cards = []
    for skill in skills:
        # Only what is not the default ("" for plugin, collection and category, "none"
        # for trust, no problems): 10k cards are every listing's weight.
        data = {"format": skill.format, "plugin": skill.plugin,
                "collection": skill.collection, "category": categories.get(skill.name, ""),
                "trust": "" if skill.level == "none" else skill.level,
                "problems": str(len(skill.problems)) if skill.problems else "",
                "changed": str(skill.changed)}
        extra = "".join(f' data-{k}="{attr(v)}"' for k, v in data.items() if v)
        level = "" if skill.level == "none" else (
            f' <span class="skillsite-level skillsite-level--{attr(skill.level)}">'
            f"{text(LEVELS.get(skill.level, skill.level))}</span>")
        cards.append(f'<li class="skillsite-card"{extra}>'
                     f'{link(href(here, f"skills/{skill.slug}"), skill.name)}{level}'
                     f'<p class="skillsite-card__description">'
                     f"{text(short(skill.description))}</p>"
                     f'<p class="skillsite-card__meta">{_meta(skill, categories)}</p></li>')
    return cards


def _meta(skill: SiteSkill, categories: dict[str, str]) -> str:
    said = []
    if skill.plugin:
        said.append(f"plugin {text(skill.plugin)}")
    if skill.collection:
        said.append(f"collection {text(skill.collection)}")
    if categories.get(skill.name):
        said.append(text(categories[skill.name]))
    if skill.tags:
        said.append("tags: " + text(", ".join(dict.fromkeys(skill.tags))))
    if skill.format != "skill-md":
        said.append(text(skill.format))
    if skill.problems:
        said.append(f"{len(skill.problems)} problem{'s' if len(skill.problems) > 1 else ''}")
    if skill.changed:
        day = time.strftime("%Y-%m-%d", time.gmtime(skill.changed))
        said.append(f'changed <time datetime="{day}">{day}</time>')
    return " · ".join(said)


def short(value: str, limit: int = MAX_DESCRIPTION) -> str:
    """``value`` on one line, cut at a word to at most ``limit`` characters (with "…")."""
    words = " ".join(value.split())
    if len(words) <= limit:
        return words
    cut = words[:limit - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip() + "…"
