"""Which pages this build renders, and what goes on them.

Each skill has an *input key* (the sha256 of its file and of each supporting file the
build kept) and a *page key* (the input key and everything else its page shows: neighbours,
problems, flags, the corpus's commit...). A page whose key is the previous build's is not
rendered again; its Markdown is the hard-linked file of the previous docs tree.
"""
from __future__ import annotations

import hashlib
import marshal
import os
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from skillsite.entries import SECTION_SEPARATOR
from skillsite.linter.children import die_with_parent
from skillsite.site.data import CatalogGroups, SiteSkill
from skillsite.site.discovery import artifact_url, served_names
from skillsite.site.groups import SiteGroups, group_path, load_groups
from skillsite.site.index_pages import Listed
from skillsite.site.links import Links
from skillsite.site.published_files import (
    copy_files,
    file_urls,
    published_files,
    stored_bytes,
)
from skillsite.site.render import render_body
from skillsite.site.skill_page import PageContext, skill_page
from skillsite.site.source import repository_of
from skillsite.site.trust import (
    Flag,
    file_flags,
    name_flags,
    problem_flags,
    security_rules,
)

#: Bump when the pages skillsite writes change, so the next build renders them all.
PAGE_VERSION = "site-4"
ASSETS = Path(__file__).with_name("assets")
#: Below this many pages, rendering in worker processes costs more than it saves.
PARALLEL_FROM = 300


Item = tuple[SiteSkill, str, dict[str, str], list[Flag], PageContext]


@dataclass
class Plan:
    skills: list[SiteSkill]
    listed: list[Listed]
    changed: set[str] = field(default_factory=set)   # names whose input key changed
    keys: dict[str, dict[str, Any]] = field(default_factory=dict)
    rendered: int = 0
    #: The skills whose pages are not rendered again (:meth:`item` makes their items).
    kept: list[SiteSkill] = field(default_factory=list)
    groups: SiteGroups = field(default_factory=SiteGroups)
    served: dict[str, str] = field(default_factory=dict)  # id -> name in the index
    #: The pages to render: (skill, its folder, file URLs, flags, context without slugs).
    todo: list[Item] = field(default_factory=list)
    #: Set up of the render workers: (content store, corpus root, locations, slugs).
    setup: tuple[Any, ...] = ()
    #: What :meth:`item` needs: each skill's flags from its files (the fields of each,
    #: as the keys keep them), the security rules,
    #: every skill's tags, and the corpus's repository and commit.
    file_flags: dict[str, list[list[Any]]] = field(default_factory=dict)
    security: frozenset[str] = frozenset()
    tags: dict[str, list[str]] = field(default_factory=dict)
    source: tuple[str, str] = ("", "")

    def item(self, skill: SiteSkill) -> Item:
        """What rendering ``skill``'s page takes: (skill, its folder, file URLs, flags,
        context without slugs)."""
        published = published_files(skill)
        urls = file_urls(published) if published else {}
        flags = [Flag(*f) for f in self.file_flags[skill.name]] \
            + problem_flags(skill, self.security) + name_flags(skill)
        context = _context(skill, self.groups, self.tags, urls,
                           artifact_url(skill, self.served.get(skill.name, "")), self.source)
        return skill, skill.folder, urls, flags, context


def plan(skills: list[SiteSkill], root: Path, old: dict[str, dict[str, Any]], dist: Path,
         jobs: int | None, catalog: CatalogGroups | None = None) -> Plan:
    """Decide which skill pages to render (``Plan.todo``: those whose page key changed)
    and what goes on each; the trust flags of changed skills are found in worker
    processes. Nothing is rendered yet: see :func:`render`. ``catalog``: the plugins and
    collections of the catalog, when already read."""
    security = security_rules()
    source = repository_of(root)
    slugs = {s.name: s.slug for s in skills}
    tags = {s.name: s.tags for s in skills}
    result = Plan(skills, [], groups=load_groups(dist, catalog), served=served_names(skills),
                  security=security, tags=tags, source=source)
    inputs = {s.name: _input_key(s) for s in skills}
    # Flags stay as the keys keep them (lists of their fields); Plan.item makes Flags.
    known = {name: before["flags"] for name, before in old.items()
             if before.get("input") == inputs.get(name) and isinstance(before.get("flags"), list)}
    fresh = [s for s in skills if s.name not in known]
    result.changed = {s.name for s in fresh}
    result.setup = (str(dist / "content"), str(root), _locations(skills), slugs)
    with _Workers(result.setup, jobs, len(fresh)) as workers:
        flags = list(workers.map(_flags_one, fresh))
    known.update(zip((s.name for s in fresh),
                     ([[f.kind, f.rule, f.path, f.line, f.detail] for f in found]
                      for found in flags), strict=True))
    result.file_flags = known
    shared = [PAGE_VERSION, sorted(security), *source]
    for skill in skills:
        before, key, flags = old.get(skill.name, {}), inputs[skill.name], known[skill.name]
        page_key = _page_key(skill, key, flags, shared, result)
        result.keys[skill.name] = {
            "input": key, "page": page_key, "flags": flags,
            "digest": before.get("digest") if before.get("input") == key else None}
        result.listed.append(Listed(skill, skill.level != "none"))
        if before.get("page") != page_key:
            result.todo.append(result.item(skill))
        else:
            result.kept.append(skill)
    return result


def render(plan: Plan, jobs: int | None, sink: Callable[[str, str], None]) -> None:
    """Render the pages of ``plan.todo``, handing each to ``sink(docs path, Markdown)`` as
    it comes (so they are never all held at once), in worker processes."""
    with _Workers(plan.setup, jobs, len(plan.todo)) as workers:
        for item, page in zip(plan.todo, workers.map(_page_one, plan.todo), strict=True):
            sink(f"skills/{item[0].slug}/index.md", page)
    plan.rendered = len(plan.todo)


def stamp_pages(plan: Plan, jobs: int | None, shell: tuple[str, str, str, str],
                started: Callable[[], None] | None = None) -> None:
    """Render the pages of ``plan.todo`` and stamp each into the shell (see
    :mod:`~skillsite.site.stamp`), written by the worker processes straight into the
    site with the skill's supporting files (every skill whose files changed is in
    ``todo``, since a page's key holds its files' keys). ``shell`` is (the docs tree of
    the shell's mkdocs run, the mkdocs configuration or "", the shell's HTML, the site
    folder). ``started`` is called once the worker processes are forked (see
    :class:`_Workers`)."""
    with _Workers(plan.setup, jobs, len(plan.todo), shell, started) as workers:
        for _ in workers.map(_stamp_one, plan.todo):
            pass
    plan.rendered = len(plan.todo)


def page_markdown(item: tuple[SiteSkill, str, dict[str, str], list[Flag], PageContext],
                  setup: tuple[Any, ...]) -> str:
    """One page's Markdown, in this process (for the pages checked against mkdocs)."""
    _start_worker(*setup)
    return _page_one(item)


def _context(skill: SiteSkill, groups: SiteGroups, tags: dict[str, list[str]],
             urls: dict[str, str], artifact: str, source: tuple[str, str]) -> PageContext:
    """A page's context, without the slugs (the workers have them): its files, its
    artifact, the corpus's repository and commit, and what the skill's plugin, collection
    and neighbours add."""
    plugin = groups.plugin(skill) if skill.plugin else None
    own = set(skill.tags)
    shared = {name: [t for t in tags.get(name, ()) if t in own] for name in skill.related}
    return PageContext({}, urls, artifact, source[0], source[1],
                       repo=groups.repo(skill.collection),
                       marketplace=str((plugin or {}).get("marketplace") or ""),
                       plugin_page=group_path(skill) if plugin or not skill.plugin else "",
                       shared_tags=shared)


def _locations(skills: list[SiteSkill]) -> dict[str, str]:
    """A skill's file, and the folder of a SKILL.md or skill.json -> its slug."""
    found: dict[str, str] = {}
    for skill in skills:
        found[skill.path] = skill.slug
        if skill.format in ("skill-md", "skill-json"):
            found.setdefault(skill.folder, skill.slug)
    return found


#: The fields of a skill that its parts key stands for (see data.parts_key); its title
#: is taken as it is (a catalog name can stand in for it).
_IN_PARTS = ("metadata", "headings", "files", "stored")


def _input_key(skill: SiteSkill) -> str:
    if skill.parts_key:  # its files and kept files are in the parts
        return _digest([PAGE_VERSION, skill.sha256, skill.path, skill.format,
                        skill.parts_key])
    return _digest([PAGE_VERSION, skill.sha256, skill.path, skill.format, skill.files,
                    sorted(skill.stored.items())])


def _page_key(skill: SiteSkill, key: str, flags: list[list[Any]], shared: list[Any],
              plan: Plan) -> str:
    """The key of everything the skill's page shows: the skill (every field: its
    neighbours' slugs, its files' URLs, its flags from problems and name and the plugin
    page are made from them), its input key and flags from its files, ``shared`` (what
    is the same for every page) and what comes from other skills or the groups: the
    name it is served under, its related skills' tags, its collection's repository and
    its plugin's marketplace. Each :meth:`Plan.item` takes from these alone."""
    state = dict(vars(skill))
    if skill.parts_key:
        for name in _IN_PARTS:
            del state[name]
    state["problems"] = [(p.path, p.line, p.column, p.rule, p.severity, p.message)
                         for p in skill.problems]
    plugin = plan.groups.plugin(skill) if skill.plugin else None
    return _digest([key, state, flags, shared, plan.served.get(skill.name, ""),
                    [plan.tags.get(name) for name in skill.related],
                    plan.groups.repo(skill.collection),
                    str((plugin or {}).get("marketplace") or "")])


def _digest(value: list[Any]) -> str:
    """The sha256 of ``value`` (strings, numbers, lists, tuples and dicts of them) as
    marshal's version 2 writes it: by value alone (no references, which version 3 and
    later write by reference count), in C (a ``repr`` of every skill's fields was most
    of an incremental plan: 200 MB of text at 100k skills). A value marshal refuses
    (a date in front matter, say) is keyed by its ``repr``; dicts are taken in their
    order, which is the same each build for the same skill (an order that changed would
    only render the page again)."""
    try:
        blob = b"m" + marshal.dumps(value, 2)
    except ValueError:
        blob = b"r" + repr(value).encode("utf-8", "surrogateescape")
    return hashlib.sha256(blob).hexdigest()


class _Workers:
    """A pool of processes that know the corpus, the content store and every skill's
    slug and location (sent once, not with each task); in-process when few tasks.

    ``started`` is called once the processes are forked (all of them at the first task
    with the fork method), so that a thread that uses SQLite starts only then: a fork while
    another thread holds SQLite's allocator mutex leaves the child waiting on it for ever
    (a clean build at 100k skills hung so, its discovery thread writing archives)."""

    def __init__(self, setup: tuple[Any, ...], jobs: int | None, tasks: int,
                 shell: tuple[str, str, str, str] | None = None,
                 started: Callable[[], None] | None = None) -> None:
        self.count = jobs or os.cpu_count() or 1
        self.setup = (*setup, shell)
        self.pool: ProcessPoolExecutor | None = None
        if self.count > 1 and tasks >= PARALLEL_FROM:
            self.pool = ProcessPoolExecutor(max_workers=self.count,
                                            initializer=_start_pool_worker,
                                            initargs=(os.getpid(), *self.setup))
            if started is not None:
                self.pool.submit(int).result()  # forks every worker now
        else:
            _start_worker(*self.setup)
        if started is not None:
            started()

    def map(self, function: Callable[[Any], Any], items: list[Any]) -> Iterator[Any]:
        """``function`` over ``items``, results in order as they come."""
        if self.pool is None or len(items) < PARALLEL_FROM:
            _start_worker(*self.setup)
            return (function(item) for item in items)
        return self._bounded(self.pool, function, items)

    def _bounded(self, pool: ProcessPoolExecutor, function: Callable[[Any], Any],
                 items: list[Any]) -> Iterator[Any]:
        """``pool.map`` with a few chunks in flight at a time: ``pool.map`` submits every
        chunk at once, holding all of them pickled (a gigabyte at 100k pages)."""
        pending: deque[Future[list[Any]]] = deque()
        for start in range(0, len(items), CHUNK):
            pending.append(pool.submit(_run_chunk, function, items[start:start + CHUNK]))
            if len(pending) >= IN_FLIGHT * self.count:
                yield from pending.popleft().result()
        while pending:
            yield from pending.popleft().result()

    def __enter__(self) -> _Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)


_WORKER: dict[str, Any] = {}
#: Tasks sent to a worker at once, and chunks in flight for each worker.
CHUNK, IN_FLIGHT = 32, 4


def _run_chunk(function: Callable[[Any], Any], items: list[Any]) -> list[Any]:
    return [function(item) for item in items]


def _start_worker(store: str, root: str, locations: dict[str, str],
                  slugs: dict[str, str], shell: tuple[str, str, str, str] | None = None
                  ) -> None:
    if shell is not None and _WORKER.get("shell") != shell:
        from skillsite.site.journal import attach
        from skillsite.site.stamp import load_stamper

        docs, config, html, site = shell
        _WORKER["stamper"] = load_stamper(Path(docs), Path(config) if config else None, html)
        attach(Path(site))  # the pages go through the journal of a site moved in
    _WORKER.update(store=store, root=Path(root), locations=locations, slugs=slugs,
                   shell=shell)


def _start_pool_worker(parent: int, *setup: Any) -> None:
    die_with_parent(parent)  # a killed build must not leave its render workers behind
    _start_worker(*setup)


def _flags_one(skill: SiteSkill) -> list[Flag]:
    from skillsite.store.content import ContentStore

    with ContentStore(Path(_WORKER["store"])) as store:
        return file_flags(skill, lambda path: stored_bytes(store, skill, path))


def _page_one(item: tuple[SiteSkill, str, dict[str, str], list[Flag], PageContext]) -> str:
    from skillsite.store.content import ContentStore

    skill, folder, files, flags, context = item
    with ContentStore(Path(_WORKER["store"])) as store:
        body = SECTION_SEPARATOR.join(s.text for s in store.sections(skill.name))
    parts = render_body(body, Links(folder, files, _WORKER["locations"], skill.slug))
    return skill_page(skill, parts, flags, replace(context, slugs=_WORKER["slugs"]))


def _stamp_one(item: tuple[SiteSkill, str, dict[str, str], list[Flag], PageContext]) -> None:
    """One skill's stamped page and its supporting files, written into the site."""
    from skillsite.site.publish import utf8_text
    from skillsite.site.writing import write_new
    from skillsite.store.content import ContentStore

    skill = item[0]
    folder = Path(_WORKER["shell"][3]) / "skills" / skill.slug
    write_new(folder / "index.html",
              _WORKER["stamper"].stamp(utf8_text(_page_one(item)), skill.slug))
    published = published_files(skill)
    if published:
        with ContentStore(Path(_WORKER["store"])) as store:
            copy_files(store, skill, folder, published)
