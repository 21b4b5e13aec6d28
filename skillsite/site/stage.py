"""The site stage of ``skillsite build``: the dist/ being built -> ``dist/site/``.

1. Read the skills from the new dist/ (catalog, graph, content store) with their problems
   and trust flags; the search bundles whose stubs changed start Pagefind at once.
2. Write the docs tree (Markdown with HTML blocks) in ``site-cache/docs/``. A skill page is
   rendered again only when its key (the skill's bytes, its files and everything else the
   page shows) changed, and written as the worker processes return it; the tree of the
   previous build is reused through hard links and known by the sha256 of each page.
3. mkdocs builds the tree into ``site/``. After an incremental build whose set of pages
   is the previous build's, only a view of the pages that changed and of the pages that
   are not skill pages is built, and moved over a hard-linked copy of the previous site
   (:mod:`~skillsite.site.view`); when pages were added or removed, the whole tree is
   built over that copy with ``--dirty``.
4. The security policy, supporting files, discovery index, search bundle and catalog.

With stamped skill pages (the default), an incremental build run by the pipeline does not
link the previous site: once the previous site is checked against its manifest and the
search thread has looked at its bundles, the site is *moved* into the new dist/ (one
rename) once the shell's mkdocs run is checked, before the first change to the site (see
:func:`~skillsite.site.stamped_site.build_stamped`), and every change goes through an undo
journal (:mod:`~skillsite.site.journal`), so that a failed build puts it back exactly;
the search bundles that stay are left where they are, and those made again replace their
folder. The previous dist/ has no ``site/`` from that move to the swap (see
docs/building.md, "Atomic").

What waits on the kernel or on other processes runs beside the rest, in three more
threads: hard-linking the previous docs tree (and site, when it is not moved in), the
search bundles (Pagefind from the moment the skills are read, on the bundles whose stubs
changed) and, while a clean build's mkdocs runs in its own processes, the discovery
artifacts. Pagefind and the discovery artifacts are written to staging folders inside the
new dist/ and moved into ``site/`` after mkdocs.
"""
from __future__ import annotations

import hashlib
import json
import marshal
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillsite.models import PhaseClock, Problem
from skillsite.site import discovery, pages, publish, stamp
from skillsite.site.about import about_corpus
from skillsite.site.csp import CANARY, apply_policy, policy_meta, theme_hashes
from skillsite.site.data import load_site
from skillsite.site.index_pages import Corpus
from skillsite.site.journal import Journal, restore
from skillsite.site.mkdocs_run import SiteError, default_config, run_mkdocs, site_names
from skillsite.site.parallel import run_mkdocs_sharded
from skillsite.site.search import build_bundles, changed_bundles, place, stub
from skillsite.site.source import repository_of
from skillsite.site.stamped_site import NotStampable, build_stamped
from skillsite.site.stopping import Stop
from skillsite.site.view import build_view, view_paths
from skillsite.site.writing import link_tree, move_into, remove, write_if_changed, write_new
from skillsite.store.manifest import intact, read_manifest

__all__ = ["SiteError", "SiteResult", "build_site"]
CACHE = "site-cache"
#: A clean build of at least this many skills runs mkdocs on several processes.
SHARD_FROM = 1000
MAX_MKDOCS_WORKERS = 4
#: Skill pages are stamped into a shell (see stamp.py) where the configuration allows it.
STAMP = True
#: Where parts of the site are written while mkdocs builds ``site/`` (inside the new dist).
STAGED_SITE, STAGED_SEARCH = ".site-staged", ".site-pagefind"
STAGED_VIEW = ".site-view"
#: The keys of every page (see :mod:`~skillsite.site.pages`) and docs file, in the site
#: cache: marshal, not JSON (100k skills' keys: 0.03 s to write against 0.24 s, and more
#: beside the build's other threads).
KEYS = "keys.bin"
#: The search stubs of every skill, ``bundle/slug`` -> HTML, in the site cache.
STUBS = "stubs.json"
#: Where the stubs of the bundles to index are written as pages for Pagefind.
STAGED_STUBS = ".site-stubs"


@dataclass
class SiteResult:
    pages: int                        # skill pages
    rendered: int                     # skill pages rendered this time
    incremental: bool
    seconds: float
    warnings: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    #: The files of ``site/`` (``site/...`` -> size, mtime, inode), when the build moved
    #: the previous site in and knows them from its check and its journal; else None.
    files: dict[str, tuple[int, int, int]] | None = None


def build_site(dist: Path, root: Path, problems: list[Problem], *,
               previous: Path | None = None, mkdocs_config: Path | None = None,
               jobs: int | None = None, journal: Path | None = None) -> SiteResult:
    """Build ``dist/site`` from the artifacts already in ``dist``. ``previous`` is the
    previous dist/ (for incremental rendering). With ``journal`` (a folder beside
    ``previous``, see :mod:`~skillsite.site.journal`), an incremental build with stamped
    pages moves the previous site into ``dist`` instead of linking it; the caller undoes
    the journal if the build then fails (:func:`~skillsite.site.journal.restore`), and
    deletes it once ``dist`` has replaced ``previous``. Raises :class:`SiteError`."""
    try:
        return _build_either(dist, root, problems, previous, mkdocs_config, jobs, journal)
    except _PreviousChanged:
        _remove_partial(dist)
        return _build_either(dist, root, problems, None, mkdocs_config, jobs, None)


class _PreviousChanged(Exception):
    """The previous site changed since it was built (see :func:`intact`): the build
    starts again without it."""


def _remove_partial(dist: Path) -> None:
    if not restore(dist):  # the previous site moved in goes back first
        raise SiteError(f"the previous site could not be put back from {dist}; the next "
                        "build puts it back")
    for left in ("site", CACHE, STAGED_SITE, STAGED_SEARCH, STAGED_STUBS):
        shutil.rmtree(dist / left, ignore_errors=True)


def _build_either(dist: Path, root: Path, problems: list[Problem], previous: Path | None,
                  mkdocs_config: Path | None, jobs: int | None,
                  journal: Path | None = None) -> SiteResult:
    """The site with stamped skill pages where the configuration allows, else (or when
    the stamped pages would differ) with every page rendered by mkdocs."""
    config = mkdocs_config or default_config()
    if STAMP and stamp.allowed(config):
        try:
            return _build_site(dist, root, problems, previous, mkdocs_config, jobs, True,
                               journal)
        except NotStampable as error:
            _remove_partial(dist)
            result = _build_site(dist, root, problems, None, mkdocs_config, jobs, False)
            result.warnings.append(f"skill pages rendered by mkdocs one by one: {error}")
            return result
    return _build_site(dist, root, problems, previous, mkdocs_config, jobs, False)


def _build_site(dist: Path, root: Path, problems: list[Problem], previous: Path | None,
                mkdocs_config: Path | None, jobs: int | None, stamping: bool,
                journal: Path | None = None) -> SiteResult:
    started, clock = time.monotonic(), PhaseClock()
    config = mkdocs_config or default_config()
    fingerprint = _fingerprint(config, stamping)
    old = _old_keys(previous, fingerprint)
    docs, site = dist / CACHE / "docs", dist / "site"
    # Beside this thread, four more do what waits on the kernel or on other processes:
    # checking and linking the previous docs tree and site, Pagefind, and (while mkdocs
    # runs in its own processes) the discovery artifacts. Their outputs are staged and
    # moved in after mkdocs.
    with _side_threads() as (side, stop):
        # The previous site is checked (every file against its manifest) while it is
        # linked and the skills are read, the pages planned and the listings written;
        # if it changed since it was built, the build starts again without it, before
        # anything is built over it (see _PreviousChanged). The search bundle (10k files)
        # is linked only if it stays (see _search).
        # With stamped pages, the previous site is moved in (see journal.py), once it is
        # checked and the search has looked at its bundles; else it is linked.
        adopt = journal is not None and stamping and bool(old) and previous is not None
        seen: dict[str, tuple[int, int, int]] = {}  # what the check found, by path
        moved: list[Journal] = []
        check = side.submit(intact, previous, ("site", CACHE), seen) \
            if old and previous else None
        linked = side.submit(link_tree, previous / "site", site, ("pagefind",)) \
            if old and previous and not adopt else None
        linked_docs = side.submit(link_tree, previous / CACHE / "docs", docs) \
            if old and previous else None
        skills, catalog = load_site(dist, root, problems,
                                    previous if check is not None else None)
        clock.lap("load skills")
        reuse = bool(old) and previous is not None
        stubs = place({s.slug: stub(s, s.headings) for s in skills})
        search, looked, bundles = _start_search(side, stubs, dist,
                                                previous if reuse else None, link=not adopt,
                                                stop=stop)
        writer = publish.DocsWriter(docs, old.get("docs", {}),
                                    linked_docs.result if linked_docs else lambda: None)
        plan = pages.plan(skills, root, old.get("skills", {}), dist, jobs, catalog)
        clock.lap("plan pages")
        if not stamping:
            pages.render(plan, jobs, writer)
            clock.lap("render and write pages")
        if linked_docs is not None:
            linked_docs.result()
        clock.lap("copy previous docs (waited for)")
        write_if_changed(docs.parent / STUBS, json.dumps(stubs, sort_keys=True, ensure_ascii=False))
        publish.write_docs(writer, plan, problems, _corpus(root, config, plan),
                           skill_pages=not stamping)
        written, hashes = writer.written, writer.hashes
        clock.lap("write listings")
        if linked is not None:
            linked.result()
        clock.lap("copy previous site (waited for)")
        if check is not None and not check.result():
            raise _PreviousChanged
        clock.lap("check previous site (waited for)")
        workers = min(jobs or os.cpu_count() or 1, MAX_MKDOCS_WORKERS)
        sharded = not reuse and workers > 1 and len(skills) >= SHARD_FROM
        # Stamping forks its workers first: the discovery thread uses SQLite (see
        # pages._Workers); mkdocs' shards fork too, but the discovery is worth running beside.
        entries: list[Future[None]] = []
        discover = (lambda: entries.append(side.submit(
            _discovery, dist / STAGED_SITE, plan, dist, False, stop=stop))) \
            if sharded or (stamping and not reuse) else None
        shell = ""
        if stamping:
            warnings, shell = build_stamped(
                docs, site, dist, plan, hashes, mkdocs_config, jobs, old.get("shell"), clock,
                discover, (lambda: moved.append(_adopt(previous, site, journal, looked, clock)))
                if adopt else None)
        else:
            warnings = _mkdocs_site(docs, site, dist, plan, (hashes, written),
                                    old.get("docs", {}), mkdocs_config,
                                    workers if sharded else 1, reuse=reuse, clock=clock,
                                    started=discover)
        _move_in_side_work(site, dist, plan, reuse, entries[0] if entries else None, search,
                           clock, files=not stamping,
                           kept=_kept_files(previous) if reuse and previous else None,
                           bundles=bundles if adopt else None)
    write_if_changed(site / "catalog.json", (dist / "catalog.json").read_bytes())
    _root_favicon(site)
    keys = {"fingerprint": fingerprint, "skills": plan.keys, "docs": hashes, "shell": shell}
    write_if_changed(docs.parent / KEYS, marshal.dumps(keys))
    return SiteResult(pages=len(skills), rendered=plan.rendered, incremental=reuse,
                      seconds=time.monotonic() - started, warnings=warnings,
                      timings=clock.timings,
                      files=moved[0].files(seen, "site") if moved else None)


@contextmanager
def _side_threads() -> Iterator[tuple[ThreadPoolExecutor, Stop]]:
    """The site's four side threads, and what stops their work. When the block fails (or
    SIGTERM or Ctrl-C stops the build), the stop is set and the tasks not started are
    dropped: the build unwinds without waiting for Pagefind and the discovery artifacts
    to finish (see :mod:`~skillsite.site.stopping`)."""
    stop = Stop()
    with ThreadPoolExecutor(max_workers=4) as side:
        try:
            yield side, stop
        except BaseException:
            stop.set()
            side.shutdown(wait=False, cancel_futures=True)
            raise


def _start_search(side: ThreadPoolExecutor, stubs: dict[str, str], dist: Path,
                  previous: Path | None, *, link: bool, stop: Stop
                  ) -> tuple[Future[None], threading.Event, list[str]]:
    """The search bundles, on a side thread (see :func:`_search`); the event set once it
    has looked at the previous site's bundles; every bundle of this build."""
    bundles = sorted({key.split("/", 1)[0] for key in stubs}, key=int)
    looked = threading.Event()
    search = side.submit(_search, stubs, bundles, dist / STAGED_STUBS, previous,
                         dist / STAGED_SEARCH, link=link, decided=looked.set, stop=stop)
    return search, looked, bundles


def _adopt(previous: Path | None, site: Path, journal: Path | None, looked: threading.Event,
           clock: PhaseClock) -> Journal:
    """Move the previous site (checked already) into the new dist, through a journal,
    once the search thread no longer reads it."""
    assert previous is not None and journal is not None
    looked.wait()
    moved = Journal.adopt(previous / "site", site, journal)
    clock.lap("move previous site in")
    return moved


def _mkdocs_site(docs: Path, site: Path, dist: Path, plan: pages.Plan,
                 docs_paths: tuple[dict[str, str], set[str]], old_docs: dict[str, str],
                 mkdocs_config: Path | None, workers: int, *, reuse: bool,
                 clock: PhaseClock, started: Callable[[], None] | None) -> list[str]:
    """The site with every skill page rendered by mkdocs (``docs_paths``: this build's
    docs paths with their hashes, and those written); returns mkdocs' warnings.
    ``started`` starts the side work that runs meanwhile."""
    hashes, written = docs_paths
    if started is not None:
        started()
    if reuse and hashes.keys() == old_docs.keys():
        warnings, _ = build_view(docs, site, dist / STAGED_VIEW,
                                 view_paths(hashes, written), mkdocs_config)
        clock.lap("mkdocs (changed pages) and security policy")
        return warnings
    if reuse:
        publish.prune_docs(docs, set(hashes))
        publish.forget_outputs(site, written, set(hashes), plan)
    return _whole_site(docs, site, mkdocs_config, workers, dirty=reuse, clock=clock)


def _whole_site(docs: Path, site: Path, mkdocs_config: Path | None, workers: int, *,
                dirty: bool, clock: PhaseClock) -> list[str]:
    """mkdocs over the whole docs tree (on ``workers`` processes when more than one), then
    the security policy on every page; returns mkdocs's warnings."""
    if workers > 1:
        warnings = run_mkdocs_sharded(docs, site, mkdocs_config, workers)
    else:
        warnings = run_mkdocs(docs, site, mkdocs_config, dirty=dirty)
    clock.lap("mkdocs")
    canary = site / CANARY.replace("index.md", "index.html")
    apply_policy(site, policy_meta(theme_hashes(canary.read_text(encoding="utf-8"))))
    clock.lap("security policy")
    return warnings

def _move_in_side_work(site: Path, dist: Path, plan: pages.Plan, reuse: bool,
                       entries: Future[None] | None, search: Future[None],
                       clock: PhaseClock, *, files: bool = True,
                       kept: dict[str, Any] | None = None,
                       bundles: list[str] | None = None) -> None:
    """Once mkdocs has built ``site``: the supporting files (unless the stamping workers
    wrote them: ``files``), the discovery artifacts (staged while mkdocs ran, or written
    now) and the search bundles Pagefind made (with ``bundles``, every bundle of this
    build: those made replace their own folder only, in the previous site moved in, and
    the folders of the bundles that are gone are removed)."""
    if files:
        publish.publish_files(site, dist, plan, reuse)
    if entries is not None:
        entries.result()
        _move_in(dist / STAGED_SITE / ".well-known", site / ".well-known")
        shutil.rmtree(dist / STAGED_SITE)
    else:
        _discovery(site, plan, dist, reuse, kept)
    clock.lap("files and discovery")
    search.result()
    if bundles is None:
        _move_in(dist / STAGED_SEARCH, site / "pagefind")
    else:
        _move_in_bundles(dist / STAGED_SEARCH, site / "pagefind", bundles)
    clock.lap("search (waited for)")

def _corpus(root: Path, config: Path, plan: pages.Plan) -> Corpus:
    """The corpus's name, description, plugins and collections, for the listings."""
    name, description = site_names(config)
    groups = plan.groups
    about = about_corpus(root, site_name=name, site_description=description,
                         remote=repository_of(root)[0])
    return Corpus(about, groups.plugins, groups.collections)


def _discovery(site: Path, plan: pages.Plan, dist: Path, reuse: bool,
               kept: dict[str, Any] | None = None, stop: Stop | None = None) -> None:
    """The discovery artifacts and index, under ``site`` (``kept`` and ``stop``: see
    :func:`~skillsite.site.publish.publish_discovery`)."""
    discovery.write_index(site, publish.publish_discovery(site, plan, dist, reuse, kept,
                                                          stop),
                          kept if reuse else None)


def _kept_files(previous: Path) -> dict[str, Any] | None:
    """The files the site linked from ``previous`` holds (those its manifest lists: the
    check compared them; the check read it, and it is kept read), or None."""
    files = (read_manifest(previous) or {}).get("files")
    return files if isinstance(files, dict) else None


def _move_in_bundles(staged: Path, pagefind: Path, bundles: list[str]) -> None:
    """The bundles Pagefind made (in ``staged``) over their folders of ``pagefind``; the
    folders of bundles that are gone removed."""
    made = sorted(os.listdir(staged))
    for name in made:
        move_into(staged / name, pagefind / name)
    for name in sorted(os.listdir(pagefind)) if pagefind.is_dir() else ():
        if name not in bundles and name not in made:
            remove(pagefind / name)
    os.rmdir(staged)


def _move_in(staged: Path, target: Path) -> None:
    """Replace ``target`` (hard links to the previous build, or nothing) with ``staged``."""
    shutil.rmtree(target, ignore_errors=True)
    os.replace(staged, target)


def _root_favicon(site: Path) -> None:
    """Browsers ask for /favicon.ico on pages that are not HTML (a published file)."""
    icon = site / "assets" / "images" / "favicon.png"
    if icon.is_file() and not (site / "favicon.ico").exists():
        write_new(site / "favicon.ico", icon.read_bytes())


def _fingerprint(config: Path, stamping: bool) -> str:
    """What makes every page different when it changes: skillsite's site code and
    assets, mkdocs, Material, the configuration and how skill pages are made."""
    from importlib.metadata import version

    parts = [pages.PAGE_VERSION, "stamped" if stamping else "mkdocs", version("mkdocs"),
             version("mkdocs-material"), _pagefind(),
             hashlib.sha256(config.read_bytes() if config.is_file() else b"").hexdigest()]
    code = Path(__file__).parent
    for source in sorted([*code.glob("*.py"), *pages.ASSETS.iterdir()]):
        parts.append(hashlib.sha256(source.read_bytes()).hexdigest())
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _search(stubs: dict[str, str], bundles: list[str], scratch: Path, previous: Path | None,
            output: Path, *, link: bool = True,
            decided: Callable[[], None] = lambda: None, stop: Stop | None = None) -> None:
    """The search bundles into ``output``: the previous build's bundles whose stubs are
    the same, linked (or, without ``link``, left where they are), and the others made by
    Pagefind (their stubs written to ``scratch``). ``decided`` is called once the previous
    site's bundles have been looked at (or the search failed before)."""
    try:
        known = _old_stubs(previous) if previous is not None else {}
        stale = changed_bundles(stubs, known) if previous is not None else set(bundles)
        build_bundles(stubs, scratch, output, bundles, stale,
                      previous / "site" / "pagefind" if previous is not None else None,
                      link=link, decided=decided, stop=stop)
    finally:
        decided()


def _old_stubs(previous: Path) -> dict[str, str]:
    """The previous build's stubs (``bundle/slug`` -> HTML), or nothing."""
    try:
        found = json.loads((previous / CACHE / STUBS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(found, dict) or not all(
            isinstance(k, str) and "/" in k and isinstance(v, str) for k, v in found.items()):
        return {}
    return found


def _pagefind() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pagefind")
    except PackageNotFoundError:
        return ""


def _old_keys(previous: Path | None, fingerprint: str) -> dict[str, Any]:
    """The previous build's keys (``skills``: name -> keys, ``docs``: docs path -> sha256),
    or nothing when they cannot be reused (:func:`intact` says whether its site can)."""
    if previous is None or not (previous / "site").is_dir():
        return {}
    try:
        keys = marshal.loads((previous / CACHE / KEYS).read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    if not isinstance(keys, dict) or keys.get("fingerprint") != fingerprint:
        return {}
    if not isinstance(keys.get("skills"), dict) or not isinstance(keys.get("docs"), dict):
        return {}
    return {"skills": keys["skills"], "docs": keys["docs"], "shell": keys.get("shell")}
