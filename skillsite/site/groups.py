"""Plugin and collection pages: what the marketplace says of each (author, version,
category, keywords, homepage...), how to install it, and its skills. Read from the
``plugins`` and ``collections`` of ``catalog.json`` and the repositories of
``groups.json``, never from the corpus."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillsite.site.cards import short, skill_cards
from skillsite.site.data import CatalogGroups, SiteSkill, catalog_groups, slug_of
from skillsite.site.install import plugin_commands
from skillsite.site.markup import block, fields_table, front_matter, heading, href, link, table
from skillsite.site.sanitize import text
from skillsite.site.source import repo_ref

MAX_DESCRIPTION = 240


@dataclass
class SiteGroups:
    """The plugins and collections of a build, and where each collection comes from."""

    plugins: list[dict[str, Any]] = field(default_factory=list)
    collections: list[dict[str, Any]] = field(default_factory=list)
    #: A collection's folder ("" for the corpus root) -> OWNER/REPO or a git URL.
    repos: dict[str, str] = field(default_factory=dict)

    def plugin(self, skill: SiteSkill) -> dict[str, Any] | None:
        for plugin in self.plugins:
            if plugin.get("name") == skill.plugin and \
                    plugin.get("collection", "") == skill.collection:
                return plugin
        return None

    def repo(self, collection: str) -> str:
        return self.repos.get(collection) or self.repos.get("", "")


def load_groups(dist: Path, catalog: CatalogGroups | None = None) -> SiteGroups:
    """The plugins and collections of the dist/ being built (nothing when absent);
    ``catalog``: those of its catalog, already read."""
    catalog = catalog or catalog_groups(dist)
    found = SiteGroups(list(catalog.plugins), list(catalog.collections))
    try:
        groups = json.loads((dist / "groups.json").read_text(encoding="utf-8"))
        repositories = groups.get("repositories", ())
    except (OSError, ValueError, AttributeError):
        repositories = ()
    for repository in repositories:
        if isinstance(repository, dict):
            ref = repo_ref(str(repository.get("web_url") or "")) or \
                repo_ref(str(repository.get("remote") or ""))
            if ref:
                found.repos[str(repository.get("folder") or "")] = ref
    return found


def plugin_path(name: str, collection: str = "") -> str:
    """A plugin's page, relative to the site root (without the trailing slash)."""
    return f"plugins/{slug_of(f'{collection}/{name}' if collection else name)}"


def collection_path(name: str) -> str:
    return f"collections/{slug_of(name)}"


def group_path(skill: SiteSkill) -> str:
    """The page of the skill's plugin, else of its collection, else ""."""
    if skill.plugin:
        return plugin_path(skill.plugin, skill.collection)
    return collection_path(skill.collection) if skill.collection else ""


def group_pages(groups: SiteGroups, skills: list[SiteSkill]) -> dict[str, str]:
    """Every plugin and collection page, and their index pages, by docs path."""
    members: dict[str, list[SiteSkill]] = {}
    for skill in skills:
        if skill.plugin:
            members.setdefault(plugin_path(skill.plugin, skill.collection), []).append(skill)
        if skill.collection:
            members.setdefault(collection_path(skill.collection), []).append(skill)
    pages: dict[str, str] = {}
    for plugin in groups.plugins:
        path = plugin_path(plugin["name"], str(plugin.get("collection") or ""))
        pages[f"{path}/index.md"] = _plugin_page(plugin, path, members.get(path, []), groups)
    for collection in groups.collections:
        path = collection_path(collection["name"])
        pages[f"{path}/index.md"] = _collection_page(collection, path, members.get(path, []),
                                                     groups)
    if groups.plugins:
        pages["plugins/index.md"] = _plugins_index(groups.plugins)
    if groups.collections:
        pages["collections/index.md"] = _collections_index(groups.collections)
    return pages


def _plugin_page(plugin: dict[str, Any], path: str, skills: list[SiteSkill],
                 groups: SiteGroups) -> str:
    name = plugin["name"]
    title = str(plugin.get("display_name") or name)
    description = str(plugin.get("description") or "")
    collection = str(plugin.get("collection") or "")
    count = len(skills)
    pieces = [front_matter(f"Plugin {title}", description=short(description) or
                           f"The Claude Code plugin {name}: {count} skills."),
              heading(1, title)]
    intro = f'<p class="skillsite-subtitle">Claude Code plugin <code>{text(name)}</code></p>'
    if description:
        intro += f'\n<p class="skillsite-description">{text(description)}</p>'
    pieces.append(block(intro, "skillsite-header"))
    rows = _plugin_fields(plugin, path)
    if collection:
        rows.append(("collection", link(href(path, collection_path(collection)), collection)))
    if rows:
        pieces += [heading(2, "About"), block(fields_table(rows), "skillsite-source")]
    commands = plugin_commands(name, str(plugin.get("marketplace") or ""),
                               groups.repo(collection))
    if commands:
        pieces += [heading(2, "Install"), block(commands, "skillsite-use")]
    pieces += [heading(2, f"Skills ({count})"), block(_skills(skills, path),
                                                     "skillsite-listing")]
    return "\n".join(pieces)


def _plugin_fields(plugin: dict[str, Any], path: str) -> list[tuple[str, str]]:
    rows = []
    for key in ("author", "version", "category", "license", "marketplace"):
        if isinstance(plugin.get(key), str) and plugin[key]:
            rows.append((key, text(plugin[key])))
    for key in ("keywords", "tags"):
        values = [v for v in plugin.get(key) or () if isinstance(v, str)]
        if values:
            rows.append((key, " ".join(f'<span class="skillsite-badge">{text(v)}</span>'
                                       for v in values)))
    for key in ("homepage", "repository"):
        url = plugin.get(key)
        if isinstance(url, str) and url.startswith("https://"):
            rows.append((key, link(url, url)))
    source = plugin.get("source")
    if isinstance(source, str) and source and source != "local":
        rows.append(("source", f"<code>{text(source)}</code> (listed, never fetched)"))
    elif isinstance(plugin.get("folder"), str):
        rows.append(("folder", f"<code>{text(plugin['folder'])}</code>"))
    return rows


def _collection_page(collection: dict[str, Any], path: str, skills: list[SiteSkill],
                     groups: SiteGroups) -> str:
    name = collection["name"]
    pieces = [front_matter(f"Collection {name}",
                           description=f"The collection {name}: {len(skills)} skills."),
              heading(1, name),
              block(f'<p class="skillsite-subtitle">Collection of {len(skills)} skills</p>',
                    "skillsite-header")]
    rows: list[tuple[str, str]] = []
    repo = groups.repos.get(name, "")
    if repo:
        rows.append(("repository", text(repo)))
    web = collection.get("web_url")
    if isinstance(web, str) and web.startswith("https://"):
        rows.append(("web", link(web, web)))
    if isinstance(collection.get("commit"), str):
        rows.append(("commit", f"<code>{text(collection['commit'])}</code>"))
    plugins = sorted({s.plugin for s in skills if s.plugin})
    if plugins:
        rows.append(("plugins", ", ".join(link(href(path, plugin_path(p, name)), p)
                                          for p in plugins)))
    if rows:
        pieces += [heading(2, "About"), block(fields_table(rows), "skillsite-source")]
    pieces += [heading(2, f"Skills ({len(skills)})"),
               block(_skills(skills, path), "skillsite-listing")]
    return "\n".join(pieces)


def _skills(skills: list[SiteSkill], here: str) -> str:
    if not skills:
        return "<p>No skill of it was published in this catalog.</p>"
    return skill_cards(here, sorted(skills, key=lambda s: s.name))


def _plugins_index(plugins: list[dict[str, Any]]) -> str:
    ranked = sorted(plugins, key=lambda p: (p["name"], str(p.get("collection") or "")))
    here = [p for p in ranked if int(p.get("skills") or 0) > 0]
    elsewhere = [p for p in ranked if int(p.get("skills") or 0) == 0]
    pieces = [front_matter("Plugins", description=f"{len(plugins)} Claude Code plugins and "
                           "their skills."),
              heading(1, "Plugins")]
    if here and elsewhere:  # a marketplace that lists plugins kept in other repositories
        pieces.append(heading(2, f"With skills in this catalog ({len(here)})"))
    if here:
        pieces.append(block(plugin_cards(here, "plugins"), "skillsite-listing"))
    if elsewhere:
        pieces += [heading(2, f"Listed, with their source elsewhere ({len(elsewhere)})"),
                   block(plugin_cards(elsewhere, "plugins"), "skillsite-listing")]
    return "\n".join(pieces)


def plugin_cards(plugins: list[dict[str, Any]], here: str) -> str:
    """A card for each plugin, in the order given, linked from the page at ``here``: its
    name, description, skill count and category (cards, not a table, so that a phone
    shows them without scrolling sideways)."""
    cards = []
    for plugin in plugins:
        name = str(plugin.get("display_name") or plugin["name"])
        url = href(here, plugin_path(plugin["name"], str(plugin.get("collection") or "")))
        category = plugin.get("category")
        extra = f" · {text(category)}" if isinstance(category, str) and category else ""
        count = int(plugin.get("skills") or 0)
        found = (f"{count} skill{'' if count == 1 else 's'}" if count
                 else "source elsewhere, not fetched")
        cards.append(f'<li class="skillsite-card">{link(url, name)}'
                     f'<p class="skillsite-card__description">'
                     f'{text(short(str(plugin.get("description") or "")))}</p>'
                     f'<p class="skillsite-card__meta">{found}{extra}</p></li>')
    return f'<ul class="skillsite-cards skillsite-cards--grid">{"".join(cards)}</ul>'


def _collections_index(collections: list[dict[str, Any]]) -> str:
    rows = [[link(href("collections", collection_path(c["name"])), c["name"]),
             str(c.get("skills", 0))] for c in sorted(collections, key=lambda c: c["name"])]
    return "\n".join([front_matter("Collections", description=f"{len(collections)} "
                                   "collections of skills."),
                      heading(1, "Collections"),
                      block(table(("collection", "skills"), rows), "skillsite-listing")])


