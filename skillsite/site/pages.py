"""Which pages this build renders, and what goes on them.

Each skill has an *input key* (its file's sha256 and its supporting files' sizes and
mtimes) and a *page key* (the input key and everything else its page shows: neighbours,
problems, flags, the corpus's commit...). A page whose key is the previous build's is not
rendered again; its Markdown is the hard-linked file of the previous docs tree.
"""
from __future__ import annotations

import hashlib
import json
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from skillsite.models import SECTION_SEPARATOR
from skillsite.site.data import SiteSkill
from skillsite.site.discovery import artifact_url
from skillsite.site.files import file_urls, published_files
from skillsite.site.links import Links
from skillsite.site.listings import Listed
from skillsite.site.render import Part, render_body
from skillsite.site.search import stub
from skillsite.site.skill_page import PageContext, skill_page
from skillsite.site.source import repository_of
from skillsite.site.trust import Flag, file_flags, problem_flags, security_rules

#: Bump when the pages skillsite writes change, so the next build renders them all.
PAGE_VERSION = "site-2"
ASSETS = Path(__file__).with_name("assets")
#: Below this many pages, rendering in worker processes costs more than it saves.
PARALLEL_FROM = 300


@dataclass
class Plan:
    skills: list[SiteSkill]
    listed: list[Listed]
    pages: dict[str, str] = field(default_factory=dict)        # docs path -> Markdown
    published: dict[str, dict[str, str]] = field(default_factory=dict)  # name -> files
    changed: set[str] = field(default_factory=set)   # names whose input key changed
    keys: dict[str, dict[str, Any]] = field(default_factory=dict)
    stubs: dict[str, str] = field(default_factory=dict)        # slug -> search stub
    rendered: int = 0


def plan(skills: list[SiteSkill], root: Path, old: dict[str, dict[str, Any]], dist: Path,
         jobs: int | None) -> Plan:
    """Decide, render and assemble every skill page."""
    security = security_rules()
    repository, commit = repository_of(root)
    slugs = {s.name: s.slug for s in skills}
    locations = _locations(skills)
    result = Plan(skills, [])
    todo: list[tuple[SiteSkill, Links, list[Flag], PageContext, str]] = []
    for skill in skills:
        before = old.get(skill.name, {})
        key = _input_key(skill, root)
        if before.get("input") == key and isinstance(before.get("flags"), list):
            flags = [Flag(*f) for f in before["flags"]]
        else:
            flags = file_flags(skill, root)
            result.changed.add(skill.name)
        published = published_files(skill)
        result.published[skill.name] = published
        all_flags = flags + problem_flags(skill, security)
        urls = file_urls(published)
        context = PageContext(slugs, urls, artifact_url(skill), repository, commit)
        page_key = _page_key(skill, key, all_flags, context)
        result.keys[skill.name] = {"input": key, "page": page_key,
                                   "flags": [list(asdict(f).values()) for f in flags],
                                   "digest": before.get("digest") if before.get("input") == key
                                   else None}
        result.listed.append(Listed(skill, bool(all_flags)))
        result.stubs[skill.slug] = stub(skill, skill.headings)
        if before.get("page") != page_key:
            links = Links(skill.folder, urls, locations, skill.slug)
            todo.append((skill, links, all_flags, context, page_key))
    for (skill, _, flags, context, _), parts in zip(todo, _render(todo, dist, jobs)):
        result.pages[f"skills/{skill.slug}/index.md"] = skill_page(skill, parts, flags,
                                                                   context)
    result.rendered = len(todo)
    return result


def _locations(skills: list[SiteSkill]) -> dict[str, str]:
    """A skill's file, and the folder of a SKILL.md or skill.json -> its slug."""
    found: dict[str, str] = {}
    for skill in skills:
        found[skill.path] = skill.slug
        if skill.format in ("skill-md", "skill-json"):
            found.setdefault(skill.folder, skill.slug)
    return found


def _input_key(skill: SiteSkill, root: Path) -> str:
    stats = []
    for path in skill.files:
        try:
            info = os.stat(os.path.join(root, path))
            stats.append((path, info.st_size, info.st_mtime_ns))
        except OSError:
            stats.append((path, -1, 0))
    blob = json.dumps([PAGE_VERSION, skill.sha256, skill.path, skill.format, stats])
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _page_key(skill: SiteSkill, key: str, flags: list[Flag], context: PageContext) -> str:
    neighbours = sorted({*skill.depends_on, *skill.dependents, *skill.links_to,
                         *skill.linked_from, *skill.related})
    blob = json.dumps([key, asdict(skill), [asdict(f) for f in flags], context.files,
                       context.artifact, context.repository, context.commit,
                       [context.slugs.get(n) for n in neighbours]], sort_keys=True,
                      default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _render(todo: list[tuple[SiteSkill, Links, list[Flag], PageContext, str]], dist: Path,
            jobs: int | None) -> list[list[Part]]:
    if not todo:
        return []
    locations = todo[0][1].pages   # the same map for every skill: sent once per worker
    work = [(skill.name, links.folder, links.files, links.slug) for skill, links, *_ in todo]
    workers = jobs or os.cpu_count() or 1
    store = str(dist / "content")
    if workers <= 1 or len(work) < PARALLEL_FROM:
        _start_worker(store, locations)
        return [_render_one(item) for item in work]
    with ProcessPoolExecutor(max_workers=workers, initializer=_start_worker,
                             initargs=(store, locations)) as pool:
        return list(pool.map(_render_one, work, chunksize=64))


_WORKER: dict[str, Any] = {}


def _start_worker(store: str, locations: dict[str, str]) -> None:
    _WORKER["store"], _WORKER["locations"] = store, locations


def _render_one(item: tuple[str, str, dict[str, str], str]) -> list[Part]:
    from skillsite.store.content import ContentStore

    name, folder, files, slug = item
    with ContentStore(Path(_WORKER["store"])) as store:
        body = SECTION_SEPARATOR.join(s.text for s in store.sections(name))
    return render_body(body, Links(folder, files, _WORKER["locations"], slug))
