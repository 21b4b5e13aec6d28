"""The pages that make every skill findable: home, the A-Z listing, tag pages, format
pages and the problems page. Each is a Markdown page with HTML blocks."""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from skillsite.models import FORMATS, Problem
from skillsite.site.data import SiteSkill, slug_of
from skillsite.site.markup import block, front_matter, heading, href, link, table
from skillsite.site.sanitize import attr, text
from skillsite.site.search import bundles_of

MAX_DESCRIPTION = 240
TOP_TAGS = 20
RECENT = 10


@dataclass(frozen=True)
class Listed:
    """A skill as listings show it."""

    skill: SiteSkill
    flagged: bool


def listing_pages(listed: list[Listed], problems: list[Problem]) -> dict[str, str]:
    """Every listing page, by its path in the docs tree."""
    pages = {"index.md": _home(listed, problems),
             "skills/index.md": _all_skills(listed),
             "tags/index.md": _tags_index(listed),
             "formats/index.md": _formats_index(listed),
             "problems/index.md": _problems_page(listed, problems)}
    for tag, members in _by_tag(listed).items():
        pages[f"tags/{slug_of(tag)}/index.md"] = _listing_page(
            f"Tag: {tag}", f"tags/{slug_of(tag)}", members)
    for kind in FORMATS:
        members = [item for item in listed if item.skill.format == kind]
        pages[f"formats/{kind}/index.md"] = _listing_page(f"Format: {kind}",
                                                          f"formats/{kind}", members)
    return pages


def _home(listed: list[Listed], problems: list[Problem]) -> str:
    formats = Counter(item.skill.format for item in listed)
    dialects = Counter(item.skill.dialect for item in listed)
    counts = table(("format", "skills"),
                   [[link(href("", f"formats/{k}"), k), str(formats[k])] for k in FORMATS])
    dialect_rows = table(("dialect", "skills"), [[text(k), str(v)]
                                                 for k, v in sorted(dialects.items())])
    tags = Counter(tag for item in listed for tag in item.skill.tags)
    top = ", ".join(f"{link(href('', f'tags/{slug_of(t)}'), t)} ({n})"
                    for t, n in sorted(tags.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_TAGS])
    recent = sorted(listed, key=lambda i: (-i.skill.changed, i.skill.name))[:RECENT]
    errors = sum(p.severity == "error" for p in problems)
    bundles = " ".join(bundles_of([item.skill.slug for item in listed]))
    summary = (f"<p>{len(listed)} skills published. Lint: {errors} errors, "
               f"{len(problems) - errors} warnings (see {link('problems/', 'the problems page')})."
               f" Trust: {sum(i.skill.level == 'high' for i in listed)} high, "
               f"{sum(i.skill.level == 'review' for i in listed)} to review. Machine-readable: "
               f"{link('catalog.json', 'catalog.json')}, "
               f"{link('.well-known/agent-skills/index.json', 'agent skills index')}.</p>")
    return "\n".join([
        heading(1, "Skills catalog"),
        block(f'<div id="skillsite-search" data-bundles="{attr(bundles)}"></div>',
              "skillsite-search-box"),
        block(summary + f"<p>{link('skills/', 'Browse every skill, A-Z')}</p>"),
        heading(2, "Formats"), block(counts), heading(2, "Dialects"), block(dialect_rows),
        heading(2, "Top tags"), block(f"<p>{top or 'No tags yet.'}</p>"),
        heading(2, "Recently changed"), block(_table("", recent), "skillsite-recent"),
    ])


def _all_skills(listed: list[Listed]) -> str:
    return _listing_page("Every skill, A-Z", "skills", listed, filters=True)


def _listing_page(title: str, here: str, members: list[Listed], *,
                  filters: bool = True) -> str:
    intro = f"<p>{len(members)} skills.</p>"
    return "\n".join([front_matter(title), heading(1, title),
                      block(intro + (_filters(members) if filters else ""), "skillsite-intro"),
                      block(_table(here, members), "skillsite-listing skillsite-sortable")])


def _filters(members: list[Listed]) -> str:
    formats = sorted({m.skill.format for m in members})
    options = "".join(f'<option value="{attr(f)}">{text(f)}</option>' for f in formats)
    return ('<form class="skillsite-filters" role="search">'
            '<input type="search" name="q" placeholder="Filter by name, tag or description">'
            f'<select name="format"><option value="">all formats</option>{options}</select>'
            '<select name="sort"><option value="name">A-Z</option>'
            '<option value="changed">recently changed</option></select>'
            '<label><input type="checkbox" name="hide" value="flagged"> '
            'hide skills to review (level review or high)</label></form>')


def _table(here: str, members: list[Listed]) -> str:
    rows, data = [], []
    for item in members:
        skill = item.skill
        description = skill.description
        if len(description) > MAX_DESCRIPTION:
            description = description[:MAX_DESCRIPTION - 1] + "…"
        rows.append([link(href(here, f"skills/{skill.slug}"), skill.name), text(description),
                     text(skill.format), text(", ".join(skill.tags)),
                     item.skill.level if item.flagged else ""])
        data.append({"name": skill.name, "format": skill.format,
                     "tags": " ".join(skill.tags).lower(), "changed": str(skill.changed),
                     "flagged": "1" if item.flagged else "0"})
    return table(("name", "description", "format", "tags", "trust"), rows, row_data=data)


def _by_tag(listed: list[Listed]) -> dict[str, list[Listed]]:
    tagged: dict[str, list[Listed]] = defaultdict(list)
    for item in listed:
        for tag in dict.fromkeys(item.skill.tags):
            tagged[tag].append(item)
    return dict(sorted(tagged.items()))


def _tags_index(listed: list[Listed]) -> str:
    rows = [[link(href("tags", f"tags/{slug_of(tag)}"), tag), str(len(members))]
            for tag, members in _by_tag(listed).items()]
    return "\n".join([front_matter("Tags"), heading(1, "Tags"),
                      block(table(("tag", "skills"), rows), "skillsite-sortable")])


def _formats_index(listed: list[Listed]) -> str:
    formats = Counter(item.skill.format for item in listed)
    rows = [[link(href("formats", f"formats/{k}"), k), str(formats[k])] for k in FORMATS]
    return "\n".join([front_matter("Formats"), heading(1, "Formats"),
                      block(table(("format", "skills"), rows))])


def _problems_page(listed: list[Listed], problems: list[Problem]) -> str:
    pages = {item.skill.path: item.skill.slug for item in listed}
    rows = []
    for p in problems:
        where = f"{text(p.path)}:{p.line}:{p.column}"
        if p.path in pages:
            where = link(href("problems", f"skills/{pages[p.path]}"), f"{p.path}:{p.line}")
        rows.append([where, text(p.severity), f"<code>{text(p.rule)}</code>",
                     text(p.message)])
    intro = (f"<p>{len(problems)} problems. Skills with errors are left out of the "
             "catalog; click a column to sort.</p>")
    return "\n".join([front_matter("Problems"), heading(1, "Problems"),
                      block(intro + table(("where", "severity", "rule", "message"), rows),
                            "skillsite-sortable skillsite-problems")])
