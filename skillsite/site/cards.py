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
                attributes: str = "", known: dict[str, tuple[str, str]] | None = None) -> str:
    """A list of cards, one a skill: its id (a link to its page, from the page at
    ``here``), trust level, description and a line of what else is known; the data-*
    attributes are what the listing filters read; ``attributes`` go on the list.
    ``known``: see :func:`card_items`."""
    cards = "".join(card_items(here, skills, categories, known))
    return f'<ol class="skillsite-cards"{attributes}>{cards}</ol>'


def card_items(here: str, skills: list[SiteSkill], categories: dict[str, str] | None = None,
               known: dict[str, tuple[str, str]] | None = None) -> list[str]:
    """The cards of :func:`skill_cards`, each an ``<li>``. ``known`` keeps what a card
    holds before and after its link, by skill, for the same ``categories`` (a skill is on
    the A-Z page and on the page of each of its tags; only the link differs)."""
    categories = categories or {}
    cards = []
    for skill in skills:
        kept = known.get(skill.name) if known is not None else None
        if kept is not None:
            cards.append(f"{kept[0]}{link(href(here, f'skills/{skill.slug}'), skill.name)}"
                         f"{kept[1]}")
            continue
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
        head = f'<li class="skillsite-card"{extra}>'
        tail = (f'{level}<p class="skillsite-card__description">'
                f"{text(short(skill.description))}</p>"
                f'<p class="skillsite-card__meta">{_meta(skill, categories)}</p></li>')
        if known is not None:
            known[skill.name] = (head, tail)
        cards.append(f'{head}{link(href(here, f"skills/{skill.slug}"), skill.name)}{tail}')
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
