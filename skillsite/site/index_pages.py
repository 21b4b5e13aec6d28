"""The pages that make every skill findable: home, the A-Z listing, category, tag and
format listings and the problems page. Each is a Markdown page with HTML blocks.

A listing is a list of cards (name, description, and a line of what else is known),
which fits a phone's width, with filters that the site's script keeps in the URL. A long
listing holds its first :data:`FIRST_CARDS` cards; the others are in JSON files beside it
(``cards-N.json``, lists of cards) that the script loads as the reader scrolls, or all at
once for a filter or a sort."""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from skillsite.models import Problem
from skillsite.site.about import About
from skillsite.site.cards import LEVELS, card_items, skill_cards
from skillsite.site.data import SiteSkill, slug_of
from skillsite.site.groups import collection_path, plugin_cards
from skillsite.site.markup import block, front_matter, heading, href, link, table
from skillsite.site.sanitize import attr, text

#: A listing with more cards shows these first and loads the others as needed.
FIRST_CARDS = 500
#: Cards in each JSON file of the others.
MORE_CARDS = 2000
TOP_TAGS = 24
TOP_PLUGINS = 12
RECENT = 10


@dataclass(frozen=True)
class Listed:
    """A skill as listings show it."""

    skill: SiteSkill
    flagged: bool


@dataclass(frozen=True)
class Corpus:
    """What the listings know beyond the skills: the corpus's name and description, and
    the plugins and collections of ``catalog.json``."""

    about: About = field(default_factory=lambda: About("Skills catalog"))
    plugins: list[dict[str, Any]] = field(default_factory=list)
    collections: list[dict[str, Any]] = field(default_factory=list)

    def category_of(self, skill: SiteSkill) -> str:
        for plugin in self.plugins:
            if plugin.get("name") == skill.plugin and \
                    str(plugin.get("collection") or "") == skill.collection:
                category = plugin.get("category")
                return category if isinstance(category, str) else ""
        return ""


def listing_pages(listed: list[Listed], problems: list[Problem],
                  corpus: Corpus | None = None) -> dict[str, str]:
    """Every listing page, by its path in the docs tree."""
    corpus = corpus or Corpus()
    categories = {item.skill.name: corpus.category_of(item.skill) for item in listed
                  if item.skill.plugin}
    lister = _Lister(categories)
    pages = {"index.md": _home(listed, problems, corpus, categories),
             "problems/index.md": _problems_page(listed, problems)}
    lister.pages = pages
    pages["skills/index.md"] = lister.page("Every skill, A-Z", "skills", listed)
    tagged = _grouped(listed, lambda item: item.skill.tags)
    if tagged:
        pages["tags/index.md"] = _index_page("Tags", "tags", "tag", tagged)
    for tag, members in tagged.items():
        pages[f"tags/{slug_of(tag)}/index.md"] = lister.page(
            f"Tag: {tag}", f"tags/{slug_of(tag)}", members)
    grouped = _grouped(listed, lambda item: [categories.get(item.skill.name) or ""])
    grouped.pop("", None)
    if grouped:
        pages["categories/index.md"] = _index_page("Categories", "categories", "category",
                                                   grouped)
    for category, members in grouped.items():
        pages[f"categories/{slug_of(category)}/index.md"] = lister.page(
            f"Category: {category}", f"categories/{slug_of(category)}", members)
    # A format's skills are the A-Z page filtered (a page of their own would repeat most
    # of it: 5 MB at 10k skills, rendered again on every incremental build).
    formats = _grouped(listed, lambda item: [item.skill.format])
    pages["formats/index.md"] = _index_page("Formats", "formats", "format", formats)
    return pages


def _grouped(listed: list[Listed], keys: Any) -> dict[str, list[Listed]]:
    found: dict[str, list[Listed]] = defaultdict(list)
    for item in listed:
        for key in dict.fromkeys(keys(item)):
            found[key].append(item)
    return dict(sorted(found.items()))


def _home(listed: list[Listed], problems: list[Problem], corpus: Corpus,
          categories: dict[str, str]) -> str:
    about = corpus.about
    lead = f'<p class="skillsite-lead">{text(about.description)}</p>' if about.description \
        else ""
    search = ('<form class="skillsite-find skillsite-find--home" role="search" action="./">'
              '<label for="skillsite-find-home" class="skillsite-hidden">Search skills'
              '</label><input type="search" id="skillsite-find-home" name="search" '
              f'placeholder="Search {len(listed)} skills by name, description or tag" '
              'autocomplete="off"></form>')
    parts = [heading(1, about.name),
             block(lead + search + _stats(listed, problems, corpus, categories),
                   "skillsite-home")]
    plugins = [p for p in corpus.plugins if int(p.get("skills") or 0) > 0]
    if plugins:
        more = f'<p>{link("plugins/", f"All {len(plugins)} plugins")}</p>' \
            if len(plugins) > TOP_PLUGINS else ""
        largest = sorted(plugins, key=lambda p: (-int(p.get("skills") or 0), p["name"]))
        parts += [heading(2, "Plugins"),
                  block(plugin_cards(largest[:TOP_PLUGINS], "") + more, "skillsite-groups")]
    if corpus.collections:
        chips = [(link(href("", collection_path(c["name"])), c["name"]),
                  int(c.get("skills") or 0)) for c in corpus.collections]
        parts += [heading(2, "Collections"), block(_chips(chips), "skillsite-groups")]
    counted = Counter(c for c in categories.values() if c)
    if counted:
        chips = [(link(href("", f"categories/{slug_of(c)}"), c), n)
                 for c, n in sorted(counted.items())]
        parts += [heading(2, "Categories"), block(_chips(chips), "skillsite-groups")]
    tags = Counter(tag for item in listed for tag in dict.fromkeys(item.skill.tags))
    if tags:
        top = sorted(tags.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_TAGS]
        chips = [(link(href("", f"tags/{slug_of(t)}"), t), n) for t, n in top]
        more = f'<p>{link("tags/", f"All {len(tags)} tags")}</p>' if len(tags) > TOP_TAGS \
            else ""
        parts += [heading(2, "Popular tags"), block(_chips(chips) + more, "skillsite-groups")]
    recent = _recent(listed)
    if recent:
        parts += [heading(2, "Recently changed"),
                  block(skill_cards("", [i.skill for i in recent]) + "<p>"
                        + link("skills/?sort=changed", "Every skill, by last change")
                        + "</p>", "skillsite-recent")]
    parts.append(block(
        f"<p>{link('skills/', f'Browse all {len(listed)} skills, A-Z')}. For agents and "
        f"tools: {link('catalog.json', 'catalog.json')} and the "
        f"{link('.well-known/agent-skills/index.json', 'agent skills index')}.</p>",
        "skillsite-more"))
    return "\n".join(parts)


def _stats(listed: list[Listed], problems: list[Problem], corpus: Corpus,
           categories: dict[str, str]) -> str:
    counts = [f"<li><strong>{len(listed)}</strong> "
              f"{link('skills/', _plural(len(listed), 'skill'))}</li>"]
    plugins = sum(1 for p in corpus.plugins if int(p.get("skills") or 0) > 0)
    if plugins:
        counts.append(f"<li><strong>{plugins}</strong> {_plural(plugins, 'plugin')}</li>")
    if corpus.collections:
        many = len(corpus.collections)
        counts.append(f"<li><strong>{many}</strong> {_plural(many, 'collection')}</li>")
    kinds = len({c for c in categories.values() if c})
    if kinds:
        counts.append(f"<li><strong>{kinds}</strong> "
                      f"{link('categories/', _plural(kinds, 'category', 'categories'))}</li>")
    # One pass, and the trust level as SiteSkill.level reads it, without the property.
    levels = Counter(item.skill.trust.get("level") for item in listed)
    for level in ("high", "review"):
        found = levels[level]
        if found:
            counts.append(f"<li><strong>{found}</strong> "
                          f"{link(f'skills/?trust={level}', LEVELS[level])}</li>")
    errors = sum(p.severity == "error" for p in problems)
    if problems:
        of_them = f" ({errors} {_plural(errors, 'error')})" if errors else ""
        counts.append(f"<li><strong>{len(problems)}</strong> "
                      f"{link('problems/', _plural(len(problems), 'problem'))}{of_them}</li>")
    return f'<ul class="skillsite-stats">{"".join(counts)}</ul>'


def _chips(items: list[tuple[str, int]]) -> str:
    return ('<ul class="skillsite-chips">' + "".join(
        f'<li>{label} <span class="skillsite-chips__count">{count}</span></li>'
        for label, count in items) + "</ul>")


def _recent(listed: list[Listed]) -> list[Listed]:
    """The last changed skills, when the times say something: from git, or file times
    that are not all within a day of each other (as in a fresh clone)."""
    dated = [i for i in listed if i.skill.changed_in_git] or \
        [i for i in listed if i.skill.changed]
    times = [i.skill.changed for i in dated]
    if not times or (not any(i.skill.changed_in_git for i in dated)
                     and max(times) - min(times) < 86400):
        return []
    return sorted(dated, key=lambda i: (-i.skill.changed, i.skill.name))[:RECENT]


class _Lister:
    """Listing pages: filters, a count that follows them, and the cards."""

    def __init__(self, categories: dict[str, str]) -> None:
        self.categories = categories
        self.pages: dict[str, str] = {}      # where the JSON files of the others go
        self.cards: dict[str, tuple[str, str]] = {}  # see card_items

    def page(self, title: str, here: str, members: list[Listed]) -> str:
        count = f"{len(members)} skill{'s' if len(members) != 1 else ''}"
        skills = [m.skill for m in members]
        attributes = ""
        if len(skills) > FIRST_CARDS:
            # In the order the script sorts them, so that more cards go below.
            skills.sort(key=lambda skill: skill.name.lower())
            rest = card_items(here, skills[FIRST_CARDS:], self.categories, self.cards)
            names = []
            for number, start in enumerate(range(0, len(rest), MORE_CARDS), 1):
                names.append(f"cards-{number}.json")
                self.pages[f"{here}/{names[-1]}"] = json.dumps(
                    rest[start:start + MORE_CARDS], ensure_ascii=False)
            attributes = (f' data-total="{len(skills)}" '
                          f'data-more="{attr(" ".join(names))}"')
            skills = skills[:FIRST_CARDS]
        return "\n".join([
            front_matter(title), heading(1, title),
            block(_filters(members, self.categories)
                  + f'<p class="skillsite-count" role="status">{count}</p>',
                  "skillsite-intro"),
            block(skill_cards(here, skills, self.categories, attributes, self.cards),
                  "skillsite-listing")])


def _filters(members: list[Listed], categories: dict[str, str]) -> str:
    def select(name: str, label: str, values: dict[str, str], everyone: bool = True) -> str:
        if len(values) + (not everyone) < 2:
            return ""
        options = "".join(f'<option value="{attr(v)}">{text(shown)}</option>'
                          for v, shown in values.items())
        return (f'<label>{label} <select name="{name}"><option value="">any</option>'
                f"{options}</select></label>")

    def values(of: Any) -> dict[str, str]:
        return {v: v for v in sorted({of(m) for m in members} - {""})}

    def everyone(of: Any) -> bool:
        return all(of(m) for m in members)

    def plugin(m: Listed) -> str:
        return m.skill.plugin

    def collection(m: Listed) -> str:
        return m.skill.collection

    def category(m: Listed) -> str:
        return categories.get(m.skill.name, "")

    levels = {m.skill.level for m in members}
    trust = select("trust", "Trust", {k: v for k, v in LEVELS.items() if k in levels}) \
        if levels - {"none"} else ""
    problems = any(m.skill.problems for m in members)
    return ('<form class="skillsite-filters" role="search" aria-label="Filter the skills">'
            '<label>Filter <input type="search" name="q" placeholder="name, words, tag">'
            "</label>"
            + select("format", "Format", values(lambda m: m.skill.format))
            + select("plugin", "Plugin", values(plugin), everyone(plugin))
            + select("collection", "Collection", values(collection), everyone(collection))
            + select("category", "Category", values(category), everyone(category))
            + trust
            + ('<label><input type="checkbox" name="problems" value="1"> has problems</label>'
               if problems else "")
            + '<label>Sort <select name="sort"><option value="name">by name</option>'
            '<option value="changed">by last change</option></select></label></form>')


def _index_page(title: str, here: str, noun: str,
                groups: dict[str, list[Listed]]) -> str:
    def target(name: str) -> str:
        if here == "formats":
            return href(here, "skills") + f"?format={name}"
        return href(here, f"{here}/{slug_of(name)}")

    rows = [[link(target(name), name), str(len(members))] for name, members in groups.items()]
    return "\n".join([front_matter(title), heading(1, title),
                      block(table((noun, "skills"), rows), "skillsite-sortable")])


def _problems_page(listed: list[Listed], problems: list[Problem]) -> str:
    """Every problem, each linked to the page of the skill whose file it is in (a
    supporting file's problem to the file, as the site publishes it)."""
    pages: dict[str, str] = {}
    for item in listed:
        skill = item.skill
        pages[skill.path] = f"skills/{skill.slug}"
        for path in skill.files:
            pages.setdefault(path, f"skills/{skill.slug}")
    rows = []
    for p in problems:
        where = f"{p.path}:{p.line}"
        cell = link(href("problems", pages[p.path]), where) if p.path in pages \
            else f'<span title="not published">{text(where)}</span>'
        rows.append([cell, text(p.severity), f"<code>{text(p.rule)}</code>", text(p.message)])
    intro = (f"<p>{len(problems)} problems. A file without a link was not published "
             "(skills with errors may be left out); click a column to sort.</p>")
    return "\n".join([front_matter("Problems"), heading(1, "Problems"),
                      block(intro + table(("where", "severity", "rule", "message"), rows),
                            "skillsite-sortable skillsite-problems")])


def _plural(count: int, one: str, many: str = "") -> str:
    return one if count == 1 else (many or one + "s")


