"""One skill's page, as Markdown with HTML blocks: its id as the title and the body's title
under it, the badges that say something, the description, where it comes from, how to
install it, its trust, its problems, the rendered body, its files, the skills around it
(with the reason each is there and a graph drawn at build time) and its details."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from skillsite.site.data import SiteSkill, slug_of
from skillsite.site.graph import graph_svg
from skillsite.site.install import Where, install_html
from skillsite.site.markup import (
    badge,
    block,
    fields_table,
    front_matter,
    heading,
    href,
    link,
    table,
    value_html,
)
from skillsite.site.render import Part
from skillsite.site.sanitize import attr, text
from skillsite.site.trust import Flag

#: Front-matter keys the page shows elsewhere than in its details table.
_SHOWN_ELSEWHERE = ("name", "description", "tags")
#: How the trust badge words each level.
TRUST_WORDS = {"none": "no risk found", "review": "review", "high": "high risk"}
#: Characters of the description in the page's meta description.
META_DESCRIPTION = 300


@dataclass(frozen=True)
class PageContext:
    """What a skill page needs besides the skill: other slugs, published files, the
    discovery artifact and where the corpus came from."""

    slugs: dict[str, str]          # skill name -> slug
    files: dict[str, str]          # corpus-relative supporting file -> URL from the page
    artifact: str                  # the discovery artifact's URL, relative to the site
    repository: str = ""
    commit: str = ""
    repo: str = ""                 # OWNER/REPO or a git URL, for install commands
    marketplace: str = ""          # the marketplace listing the skill's plugin
    plugin_page: str = ""          # the plugin's (or collection's) page, from the site root
    #: A skill shown as related by shared tags -> the tags it shares with this one.
    shared_tags: dict[str, list[str]] = field(default_factory=dict)


def skill_page(skill: SiteSkill, parts: list[Part], flags: list[Flag],
               context: PageContext) -> str:
    here = f"skills/{skill.slug}"
    subtitle = skill.title if skill.title not in ("", skill.name, skill.short_name) else ""
    pieces = [front_matter(skill.name, description=meta_description(skill)),
              heading(1, skill.name),
              block(_header(skill, subtitle, context, here), "skillsite-header"),
              heading(2, "Install"), block(_install(skill, context), "skillsite-use")]
    if skill.trust or flags:
        pieces += [heading(2, "Trust"), block(_trust(skill, flags), "skillsite-flags")]
    if skill.problems:
        pieces += [heading(2, "Problems"), block(_problems(skill), "skillsite-problems")]
    pieces += _body(parts, subtitle)
    pieces += _files(skill, context)
    pieces += _relations(skill, context, here)
    pieces += [heading(2, "Details"), block(_details(skill, context), "skillsite-source")]
    return "\n".join(pieces)


def _body(parts: list[Part], subtitle: str) -> list[str]:
    """The rendered body. Its first heading, when it is the page's subtitle, is not
    repeated; text that then has no heading above it goes under "Instructions"."""
    pieces: list[str] = []
    first = next((part for part in parts if part.heading), None)
    for part in parts:
        title = part.heading
        if part is first and title == subtitle:
            title = ""
        if title:
            pieces.append(heading(min(6, max(2, part.level)), title))
        if part.html.strip():
            if not pieces:
                pieces.append(heading(2, "Instructions"))
            pieces.append(block(part.html, "skillsite-body"))
    return pieces


def meta_description(skill: SiteSkill) -> str:
    """The page's description for search engines and link previews."""
    words = " ".join(skill.description.split())
    if len(words) > META_DESCRIPTION:
        words = words[:META_DESCRIPTION - 1].rsplit(" ", 1)[0] + "…"
    return words or f"The agent skill {skill.name}."


def _header(skill: SiteSkill, subtitle: str, context: PageContext, here: str) -> str:
    html = f'<p class="skillsite-subtitle">{text(subtitle)}</p>\n' if subtitle else ""
    html += f'<p class="skillsite-badges">{_badges(skill, context, here)}</p>\n'
    html += f'<p class="skillsite-description">{text(skill.description)}</p>\n'
    facts = _facts(skill, context, here)
    if facts:
        html += f'<p class="skillsite-facts">{" · ".join(facts)}</p>'
    return html


def _badges(skill: SiteSkill, context: PageContext, here: str) -> str:
    """Only badges that tell something: a declared value, never a default."""
    data = skill.metadata
    badges = [badge("trust", TRUST_WORDS.get(skill.level, skill.level))] if skill.trust else []
    if skill.version:
        badges.append(badge("version", skill.version))
    if skill.format != "skill-md":
        badges.append(badge("format", skill.format))
    if skill.dialect not in ("agent-skills", skill.format):
        badges.append(badge("dialect", skill.dialect))
    for key in ("risk", "class"):
        if isinstance(data.get(key), (str, int, float)) and str(data[key]).strip():
            badges.append(badge(key, data[key]))
    badges += [_tag(tag, here) for tag in skill.tags]
    return " ".join(badges)


def _tag(tag: str, here: str) -> str:
    return (f'<a class="skillsite-badge skillsite-badge--tag" '
            f'href="{attr(href(here, f"tags/{slug_of(tag)}"))}">{text(tag)}</a>')


def _facts(skill: SiteSkill, context: PageContext, here: str) -> list[str]:
    facts = []
    if skill.plugin:
        label = f"plugin {skill.plugin}"
        facts.append(link(href(here, context.plugin_page), label) if context.plugin_page
                     else text(label))
    elif skill.collection:
        facts.append(link(href(here, context.plugin_page), f"collection {skill.collection}")
                     if context.plugin_page else text(f"collection {skill.collection}"))
    if skill.changed:
        day = time.strftime("%Y-%m-%d", time.gmtime(skill.changed))
        facts.append(f'last changed <time datetime="{day}">{day}</time>')
    if skill.source_url and skill.source_url.startswith("https://"):
        at = f" at {context.commit[:10]}" if context.commit else ""
        facts.append(link(skill.source_url, f"source{at}"))
    return facts


def _install(skill: SiteSkill, context: PageContext) -> str:
    return install_html(Where(skill.name, skill.short_name or skill.name, context.artifact,
                              skill.plugin, context.marketplace, context.repo))


def _trust(skill: SiteSkill, flags: list[Flag]) -> str:
    """The level with its sentence and evidence (and the site's own security flags, such
    as a name a shell interprets), then the capabilities (information, never flags)."""
    trust = skill.trust
    html = ""
    if trust:
        html = (f"<p><strong>{text(TRUST_WORDS.get(skill.level, skill.level))}</strong>: "
                f"{text(str(trust.get('summary', '')))}</p>")
    reasons = list(trust.get("reasons", ()))
    known = {(r.get("rule"), r.get("path"), r.get("line")) for r in reasons}
    reasons += [{"rule": f.rule, "path": f.path, "line": f.line, "message": f.detail}
                for f in flags if f.kind == "security" and (f.rule, f.path, f.line) not in known]
    rows = [[f"<code>{text(str(r.get('rule')))}</code>",
             f"<code>{text(str(r.get('path')))}:{text(str(r.get('line')))}</code>",
             text(str(r.get("message", "")))] for r in reasons]
    if rows:
        html += table(("reason", "where", "evidence"), rows)
    if not trust:
        return html
    caps = trust.get("capabilities") or {}
    scripts = caps.get("scripts") or {}
    items = [f"scripts: {scripts.get('count', 0)} ({', '.join(scripts.get('languages', ()))})"
             if scripts.get("count") else "scripts: none",
             "network at run time: " + (", ".join(caps.get("network", ())) or "none"),
             "writes files: " + ("yes" if caps.get("writes_files") else "no"),
             "credentials: " + (", ".join(caps.get("credentials", ())) or "none"),
             "allowed-tools: " + (" ".join(caps.get("allowed_tools", ())) or "not declared")]
    return html + "<p>Capabilities (what it can do: information, not a warning):</p><ul>" + "".join(
        f"<li>{text(item)}</li>" for item in items) + "</ul>"


def _problems(skill: SiteSkill) -> str:
    rows = [[text(p.severity), f"<code>{text(p.rule)}</code>",
             f"<code>{text(p.path)}:{p.line}:{p.column}</code>", text(p.message)]
            for p in skill.problems]
    return table(("severity", "rule", "where", "message"), rows)


def _files(skill: SiteSkill, context: PageContext) -> list[str]:
    own = [(path, context.files[path]) for path in skill.files if path in context.files]
    if not own:
        return []
    start = len(skill.folder) + 1 if skill.folder else 0
    items = "\n".join(f"<li>{link(url, path[start:])}</li>" for path, url in own)
    return [heading(2, "Supporting files"), block(f"<ul>\n{items}\n</ul>",
                                                  "skillsite-files")]


def _relations(skill: SiteSkill, context: PageContext, here: str) -> list[str]:
    """The skills around this one, each with why it is there, and their graph."""
    slugs = context.slugs
    pages = {name: href(here, f"skills/{slugs[name]}") for name in
             {*skill.depends_on, *skill.dependents, *skill.links_to, *skill.linked_from,
              *skill.related} if name in slugs}
    groups = [("Depends on", "declared in its depends_on", skill.depends_on),
              ("Needed by", "they declare it in depends_on", skill.dependents),
              ("Links to", "its text links to them", skill.links_to),
              ("Linked from", "their text links to it", skill.linked_from)]
    items = []
    for label, why, names in groups:
        shown = [link(pages[n], n) for n in names if n in pages]
        if shown:
            items.append(f'<li class="skillsite-rel"><strong>{text(label)}</strong> '
                         f'<span class="skillsite-why">({text(why)}):</span> '
                         f"{', '.join(shown)}</li>")
    shared = [f"{link(pages[n], n)} <span class=\"skillsite-why\">(shares "
              f"{text(', '.join(context.shared_tags.get(n, ())) or 'tags')})</span>"
              for n in skill.related if n in pages]
    if shared:
        items.append(f'<li class="skillsite-rel"><strong>Related</strong>: '
                     f"{'; '.join(shared)}</li>")
    if skill.unresolved:
        missing = ", ".join(f"<code>{text(ref)}</code>" for ref in skill.unresolved)
        items.append(f"<li><strong>Unresolved dependencies</strong> (named in depends_on, "
                     f"found nowhere): {missing}</li>")
    if not items:
        return []
    pieces = [heading(2, "Related skills"),
              block("<ul>\n" + "\n".join(items) + "\n</ul>", "skillsite-relations")]
    graph = graph_svg(skill, pages)
    if graph:
        pieces.append(block(graph, "skillsite-graph-box"))
    return pieces


def _details(skill: SiteSkill, context: PageContext) -> str:
    """Its other front-matter fields and where its file is, as one table of fields."""
    data = skill.metadata
    rows = [(key, value_html(data[key])) for key in sorted(data)
            if key not in _SHOWN_ELSEWHERE]
    rows += [("path", f"<code>{text(skill.path)}</code>"),
             ("sha256", f"<code>{text(skill.sha256)}</code>")]
    if skill.plugin:
        rows.append(("plugin", f"<code>{text(skill.plugin)}</code>"))
    if skill.collection:
        rows.append(("collection", f"<code>{text(skill.collection)}</code>"))
    if skill.copies:
        rows.append(("same content as", ", ".join(f"<code>{text(c)}</code>"
                                                  for c in skill.copies)))
    if context.repository:
        rows.append(("repository", text(context.repository)))
    if context.commit:
        rows.append(("commit", f"<code>{text(context.commit)}</code>"))
    return fields_table(rows)
