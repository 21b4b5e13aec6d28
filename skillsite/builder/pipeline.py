"""``skillsite build``: turn a corpus into a self-contained, queryable ``dist/``.

The pipeline, in a temporary folder that is swapped in at the end:

1. Load the previous build's cache; meanwhile a helper process compares the corpus with
   its stats (:mod:`skillsite.builder.changes`). If no folder changed, the walk is skipped.
2. Walk the corpus (:mod:`skillsite.linter.discover`) and lint, in worker processes, every file
   whose cached result no longer holds. Workers also make each skill's content-store row
   and index terms, which are written as they arrive: the build never holds every skill.
3. Run the corpus-wide rules, leave out the skills with errors, and settle the stores to
   hold exactly the included skills.
4. Write the catalog, the graph (kept when unchanged) and the cache.
5. With ``site=True`` (the CLI's default), build the catalog site (:mod:`skillsite.site`)
   from those artifacts; a site failure fails the build and leaves ``dist/`` as it was.
6. Write the manifest, with the checksum of every file, the site's too.
"""
from __future__ import annotations

import gc
import os
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from itertools import compress, filterfalse
from operator import attrgetter, ne, not_
from pathlib import Path
from typing import Any, NamedTuple

from skillsite.builder.cache import (
    CACHE_DIR,
    BuildCache,
    EarlyScan,
    load_cache,
    save_cache,
)
from skillsite.builder.cache_child import CacheChild, cache_child
from skillsite.builder.checking import (
    all_problems,
    check_changed,
    fingerprints,
    included_skills,
    payloads,
    problem_order,
)
from skillsite.builder.dist import (
    BuildInterrupted,
    BuildLock,
    copy_previous,
    drop_journal,
    journal_folder,
    put_back_previous_site,
    remove_work,
    stopped_cleanly_by_signals,
    swap_in,
    temp_dir,
)
from skillsite.builder.early import Early, early_scan
from skillsite.builder.failures import io_failure
from skillsite.builder.graph import write_graph
from skillsite.builder.groups import Groups, groups_of, with_extras
from skillsite.builder.provenance import origins
from skillsite.builder.records import Cached, fingerprint_config
from skillsite.builder.stores import BuildStores
from skillsite.builder.vectors import (
    VECTORS_DIR,
    SemanticSetup,
    VectorCollector,
    previous_vectors,
    semantic_model,
)
from skillsite.builder.writer import BackgroundWriter
from skillsite.config import Config
from skillsite.errors import SkillsiteError
from skillsite.index import BACKENDS, DEFAULT_BACKEND
from skillsite.linter.discover import Flagged, kind_of, rewalk, walk_files
from skillsite.linter.listings import Listings, as_dict
from skillsite.linter.rules.context import Context
from skillsite.models import ERROR, PhaseClock, Problem
from skillsite.store.catalog import write_catalog
from skillsite.store.groups import GROUPS, write_groups
from skillsite.store.hits import DELTA_FILE
from skillsite.store.manifest import (
    ARTIFACT_VERSION,
    checksums_in_background,
    file_sha256,
    intact,
    read_manifest,
    recorded,
    write_manifest,
)
from skillsite.version import __version__

Progress = Callable[[int, int], None]
_UNREADABLE_RULES = frozenset(("unreadable-file", "symlink-broken", "symlink-escape",
                               "symlink-loop"))
SKILL_KINDS = ("skill-md", "skill-toml", "skill-json")
# Fields of the 100k records read in loops that stay in C (map, compress, filter).
_FOUND, _IS_SKILL, _NAME, _FORMAT, _CATALOG_JSON, _SEVERITY, _PATH, _RULE = (
    attrgetter(name) for name in ("found", "is_skill", "name", "format", "catalog_json",
                                  "severity", "path", "rule"))


class BuildFailed(SkillsiteError):
    """``--strict`` found errors; ``dist/`` was left as it was."""

    exit_code = 1

    def __init__(self, message: str, problems: list[Problem]) -> None:
        super().__init__(message)
        self.problems = problems


@dataclass
class BuildResult:
    dist: Path
    problems: list[Problem]          # paths relative to the corpus root
    files: int
    skills: int
    included: int
    excluded: list[str]              # paths of skills left out (withheld, shadowed or,
    #                                  with exclude-invalid, with errors)
    rechecked: int                   # files read and linted this time (the rest came cached)
    incremental: bool
    backend: str
    seconds: float
    formats: dict[str, int] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)   # seconds per phase
    site: Any = None                 # skillsite.site.SiteResult, unless --no-site
    #: Files named as skills that could not be read as skills at all.
    unreadable: list[str] = field(default_factory=list)
    #: Skills embedded for semantic search this time (the rest kept their vectors), and
    #: why there are no vectors when the semantic extra is missing.
    embedded: int = 0
    semantic_note: str = ""


def build(corpus: Path = Path("corpus"), out: Path = Path("dist"), *,
          config: Config | None = None, jobs: int | None = None,
          backend: str = DEFAULT_BACKEND, strict: bool = False, incremental: bool = True,
          progress: Progress = lambda done, total: None, site: bool = False,
          mkdocs_config: Path | None = None, early: Early | None = None) -> BuildResult:
    """Build ``out`` from ``corpus``; see the module docstring. ``site=True`` also builds
    the catalog site (the ``skillsite build`` command does unless ``--no-site``).
    ``early``: the lock and the scan for changes, when the caller took them before
    importing this module (see :mod:`skillsite.builder.early`); the build then leaves the
    previous and the new cache in ``early.kept`` instead of freeing them as it returns, for
    a caller whose process ends next (freeing 100k records costs about 0.15 s)."""
    started = time.monotonic()
    if not corpus.is_dir():
        raise SkillsiteError(f"corpus folder {corpus} does not exist; pass the folder that "
                             "holds your skills, e.g. `skillsite build skills/`")
    if backend not in BACKENDS:
        raise SkillsiteError(f"unknown index backend {backend!r}; choose one of "
                             f"{', '.join(sorted(BACKENDS))}")
    ctx = Context(config or Config())
    root = Path(os.path.abspath(corpus))
    # Resolved, so that a symlinked -o is built into its target (never replaced by a
    # folder) and builds through the link and through the target share one lock.
    out = Path(os.path.realpath(out))
    _refuse_foreign_folder(out)
    clock = PhaseClock()
    # The build holds a record per file (about 20 objects each, none cyclic): the cyclic
    # garbage collector would walk all of them again and again, which costs more than a
    # quarter of the corpus-wide phases at 100k skills.
    collecting = gc.isenabled()
    gc.disable()
    try:
        with stopped_cleanly_by_signals(out):
            return _build(corpus, root, out, ctx, jobs, backend, strict, incremental,
                          progress, clock, started, (site, mkdocs_config), early)
    except (OSError, ValueError, sqlite3.Error) as exc:
        failure = io_failure(exc, out)
        if failure is None:
            raise
        raise failure from exc
    finally:
        if early is not None and early.kept:
            # Left for the process's end: the collector this re-enables would otherwise
            # walk them all (every container the build made is in its youngest
            # generation), which costs what freeing them did.
            gc.freeze()
        if collecting:
            gc.enable()


def _build(corpus: Path, root: Path, out: Path, ctx: Context, jobs: int | None,
           backend: str, strict: bool, incremental: bool, progress: Progress,
           clock: PhaseClock, started: float,
           site: tuple[bool, Path | None] = (False, None),
           taken: Early | None = None) -> BuildResult:
    with _locked(out, taken), _scan(out, incremental, taken) as early:
        semantic = semantic_model()
        config_key = fingerprint_config(ctx.config, backend, root, semantic.key)
        previous = _reusable(out, backend) if incremental else False
        collector, previous = _vector_collector(semantic, out, previous)
        old = _previous_cache(out, config_key, early, previous)
        reuse = previous and bool(old.included)
        clock.lap("load cache")
        work = temp_dir(out)
        try:
            if reuse:
                _start_from_previous(out, work, backend, vectors=collector is not None)
            else:
                old.included = {}
            clock.lap("copy previous")
            flagged: list[Flagged] = []
            walk = _walk(root, old, ctx, flagged)
            if collector is not None and not reuse:
                collector.previous = None  # a full build embeds every skill
            with BuildStores(work, backend, old.included, collector) as stores:
                cache, sources, fresh = check_changed(walk.found, old, ctx, root, jobs,
                                                      progress, stores, walk.listings,
                                                      walk.relisted)
                cache.listings, cache.relisted = (
                    None if walk.unchanged_tree else walk.listings.whole(),
                    walk.listings.relisted)
                cache.walk_complete = walk.listings.complete and not flagged
                clock.lap("discover, check, content and index")
                problems, included, groups = _corpus(cache, old, flagged, ctx, root)
                if strict and (errored := _errored(problems)):
                    raise BuildFailed(f"--strict: {len(errored)} file(s) have errors; "
                                      f"{out} was not changed", problems)
                cache.included = fingerprints(included)
                clock.lap("corpus rules")
                stores.settle(cache.included, lambda names: payloads(
                    [sources.source(key) for key, c in included.items()
                     if c.name in names], ctx, root, stores.finisher()))
            clock.lap("settle content and index")
            graph, child = (None, None) if reuse else _forked_cache(work, config_key, cache,
                                                                     root, included)
            with BackgroundWriter(work) as writer, child or nullcontext():
                _write_catalog_and_vectors(work, included, groups, collector, writer, clock)
                hashing = checksums_in_background(work, ("content", "index"),
                                                  out if reuse else None)
                formats = _write_listings(work, root, included, cache,
                                          old if reuse else None, config_key, groups,
                                          writer.write, graph, with_cache=child is None)
                clock.lap("catalog, graph, cache")
                site_result = _site(work, root, problems, out if reuse else None, site, jobs,
                                    clock, writer)
                # Last, so that it covers every file of the new dist/, the site's too.
                write_manifest(work, {**_manifest_fields(formats, backend, problems),
                                      "repositories": groups.repositories},
                               out if reuse else None,
                               {**hashing.result(), **writer.checksums(),
                                **(child.checksums() if child else {})},
                               _site_files(site_result))
            clock.lap("manifest")
            swap_in(work, out)
            drop_journal(work)
            clock.lap("swap in")
        except BaseException as failure:
            # The previous site goes back first, if the site moved it in (journal.py).
            if put_back_previous_site(work):
                remove_work(work, in_background=isinstance(
                    failure, (BuildInterrupted, KeyboardInterrupt)))
            raise
    _left_to_the_caller(out, taken, old, cache)
    return BuildResult(
        out, problems, files=sum(map(_FOUND, cache.files.values())) + len(flagged),
        skills=sum(map(_IS_SKILL, cache.files.values())), included=len(included),
        excluded=_excluded(cache, included),
        unreadable=_unreadable(cache, flagged, problems),
        rechecked=fresh, incremental=reuse, backend=backend,
        seconds=time.monotonic() - started, formats=dict(sorted(formats.items())),
        timings=clock.timings, site=site_result,
        embedded=collector.embedded if collector else 0, semantic_note=semantic.note)



def _forked_cache(work: Path, config_key: str, cache: BuildCache, root: Path,
                  included: dict[str, Cached]
                  ) -> tuple[list[dict[str, Any]], CacheChild | None]:
    """A clean build's graph input, and the child that writes its cache meanwhile (see
    :mod:`~skillsite.builder.cache_child`; None for a small corpus). The graph's input is
    made first, so that the child marshals the records while they are held there too, as
    the build process does when it writes them itself (marshal marks an object that more
    than one reference holds): the files are the same, byte for byte."""
    graph = [c.graph_input(key) for key, c in included.items()]
    return graph, cache_child(work, config_key, cache, root)


def _locked(out: Path, taken: Early | None) -> AbstractContextManager[object]:
    """The lock on ``out``: ``taken``'s, when it holds it, else taken now."""
    return nullcontext() if taken is not None and taken.holds(out) else BuildLock(out)


def _scan(out: Path, incremental: bool, taken: Early | None) -> EarlyScan:
    """The scan for changes: ``taken``'s, when it holds the lock of ``out``, else started
    now."""
    return taken.scan if taken is not None and taken.holds(out) else early_scan(out,
                                                                                 incremental)


def _left_to_the_caller(out: Path, taken: Early | None, *kept: object) -> None:
    """Leave ``kept`` (the caches) to ``taken``'s holder, whose process ends next: see
    :func:`build`."""
    if taken is not None and taken.holds(out):
        taken.kept = kept


def _site(work: Path, root: Path, problems: list[Problem], previous: Path | None,
          site: tuple[bool, Path | None], jobs: int | None, clock: PhaseClock,
          writer: BackgroundWriter) -> Any:
    """The catalog site, with ``site[0]`` (see :func:`build`); else None. It starts once
    the writing thread has written every file handed to it, so that the site reads only
    finished files, whichever of them it reads now or later."""
    if not site[0]:
        return None
    writer.checksums()
    from skillsite.site import build_site
    result = build_site(work, root, problems, previous=previous, mkdocs_config=site[1],
                        jobs=jobs, journal=journal_folder(work))
    clock.lap("site")
    return result


def _site_files(site: Any) -> dict[str, dict[str, tuple[int, int, int]]] | None:
    """The files of ``site/`` as the site stage knows them (see SiteResult.files), for
    the manifest, which then does not walk them."""
    files = getattr(site, "files", None)
    return {"site": files} if files is not None else None


def _start_from_previous(out: Path, work: Path, backend: str, *, vectors: bool) -> None:
    """Start the new dist/ from the previous one: what a build only adds to is linked."""
    # tantivy never rewrites a segment; Whoosh may, so its index is copied.
    tantivy = backend == "tantivy"
    link = ("content", "graph.json", CACHE_DIR, *(("index",) if tantivy else ()),
            *((VECTORS_DIR,) if vectors else ()))
    copy_previous(out, work, link=link, copy=() if tantivy else ("index",))


class _Walked(NamedTuple):
    listings: Listings
    found: Iterable[tuple[str, str]]  # the walk's files (none when it is not walked)
    relisted: list[tuple[str, str]] | None  # the files of the folders listed again
    unchanged_tree: bool  # the previous build's stat scan found no folder changed


def _walk(root: Path, old: BuildCache, ctx: Context, flagged: list[Flagged]) -> _Walked:
    """The corpus's files, by the cheapest means the previous build's scan allows: none
    to walk when no folder changed, the changed folders alone, or the whole tree."""
    previous = old.listings if old.listings is not None else {}
    listings = Listings(previous=previous)
    scan = old.changes
    unchanged_tree = bool(scan and scan.tree_unchanged)
    relisted = None
    if scan and scan.changed_folders and old.listings is not None:
        relisted = rewalk(root, scan.changed_folders, exclude=ctx.config.exclude,
                          listings=listings)
    if relisted is None:  # (also when a rewalk cannot stand in for a walk)
        listings = Listings(previous=as_dict(previous))  # the walk reads every folder's
    found: Iterable[tuple[str, str]] = ()
    if not unchanged_tree and relisted is None:
        found = walk_files(root, exclude=ctx.config.exclude, flagged=flagged,
                           listings=listings)
    return _Walked(listings, found, relisted, unchanged_tree)


def _corpus(cache: BuildCache, old: BuildCache, flagged: list[Flagged], ctx: Context,
            root: Path) -> tuple[list[Problem], dict[str, Cached], Groups]:
    """Every problem (the files', the walk's, the corpus rules', the manifests' and git's),
    the skills that go into dist/, and their plugins and collections."""
    problems = all_problems(cache, old, flagged, ctx, root)
    included = included_skills(cache, _errored(problems) if ctx.config.exclude_invalid
                               else set())
    groups = groups_of(included, root, ctx)
    groups.origins, groups.repositories, git_problems = origins(included, root, ctx)
    if groups.problems or git_problems:  # (``problems`` are in order already)
        problems = sorted(problems + groups.problems + git_problems, key=problem_order)
    return problems, included, groups


def _excluded(cache: BuildCache, included: dict[str, Cached]) -> list[str]:
    """The skills left out (see BuildResult.excluded): none when every named file is
    included (they are among the named files), found without 100k look-ups."""
    named = list(compress(cache.files, map(_NAME, cache.files.values())))
    if len(named) == len(included):
        return []
    return sorted(filterfalse(included.__contains__, named))


def _errored(problems: list[Problem]) -> set[str]:
    """The paths of the files with errors (only builds that leave them out or fail on
    them ask: 35k problems at 100k skills)."""
    return {p.path for p in problems if p.severity == ERROR}


def _vector_collector(semantic: SemanticSetup, out: Path,
                      previous: bool) -> tuple[VectorCollector | None, bool]:
    """What collects this build's vectors (None without the extra), and whether the
    previous build can still be reused: not when its vectors are missing or damaged."""
    if semantic.model is None:
        return None, previous
    vectors = None
    if previous and intact(out, (VECTORS_DIR,)):
        vectors = previous_vectors(out, semantic.model)
    return (VectorCollector(semantic.model, vectors, source=out),
            previous and vectors is not None)


def _unreadable(cache: BuildCache, flagged: list[Flagged],
                problems: list[Problem]) -> list[str]:
    """Files named as skills (``SKILL.md``, ``*.skill.toml``, ``skill.json``) that make no
    skill, and the paths discovery could not use: never left out silently."""
    nameless = compress(cache.files, map(not_, map(_NAME, cache.files.values())))
    paths = {key for key in nameless
             if cache.files[key].found and kind_of(key.rpartition("/")[2]) in SKILL_KINDS}
    # (The 35k problems at 100k skills looked at in C.)
    paths.update(compress(map(_PATH, problems), map(_UNREADABLE_RULES.__contains__,
                                                    map(_RULE, problems))))
    return sorted(paths)


def _write_catalog_and_vectors(work: Path, included: dict[str, Cached], groups: Groups,
                               collector: VectorCollector | None, writer: BackgroundWriter,
                               clock: PhaseClock) -> None:
    """catalog.json, on a thread of its own (see
    :meth:`~skillsite.builder.writer.BackgroundWriter.write_aside`), then the vectors
    (with the semantic extra) while it is written."""
    _write_catalog(work, included, groups, writer.write_aside)
    if collector is not None:
        collector.finish(work, writer.write)
        clock.lap("vectors")


def _write_catalog(work: Path, included: dict[str, Cached], groups: Groups,
                   write: Callable[[Path, Iterable[bytes]], None]) -> None:
    """catalog.json, through ``write``, which may make its records later: ``included``
    and ``groups`` must not change meanwhile (the build only reads them from then on)."""
    if groups.copies or groups.origins:
        records: Iterable[str] = (
            with_extras(c.catalog_json, c, groups.copies, groups.origins.get(key))
            for key, c in included.items() if c.catalog_json)
    else:  # nothing to add to any record: joined as they are
        records = filter(None, map(_CATALOG_JSON, included.values()))
    write_catalog(records, work / "catalog.json", plugins=groups.plugins,
                  collections=groups.collections, write=write)


def _write_listings(work: Path, root: Path, included: dict[str, Cached], cache: BuildCache,
                    old: BuildCache | None, config_key: str, groups: Groups,
                    write: Callable[[Path, Any], None],
                    graph: list[dict[str, Any]] | None = None, *, with_cache: bool = True
                    ) -> Counter[str]:
    """groups.json, graph.json (kept from ``old`` when no edge or node changed;
    ``graph``: its input, when made already) and the build cache (unless ``with_cache``
    is False: a child writes it), the large ones through ``write`` (see
    :class:`~skillsite.builder.writer.BackgroundWriter`); returns the included skills per
    format. (catalog.json: :func:`_write_catalog`.)"""
    write_groups(work / GROUPS, groups.plugins, groups.collections, groups.copies,
                 {name: origin for key, origin in groups.origins.items()
                  if (name := included[key].name)}, groups.repositories)
    if old is None or not _same_graph(included, cache, old):
        if graph is None:
            graph = [c.graph_input(key) for key, c in included.items()]
        write_graph(graph, work / "graph.json", write)  # (never through the hard link)
    if with_cache:
        save_cache(work, config_key, cache, old or BuildCache(), root, write)
    return Counter(filter(None, map(_FORMAT, included.values())))


def _same_graph(included: dict[str, Cached], cache: BuildCache, old: BuildCache) -> bool:
    """Whether the graph of ``included`` equals the one ``old`` included: the same names,
    and every skill whose file changed has kept its path, format, tags, dependencies
    and links."""
    now_included = cache.included
    if len(old.included) != len(now_included):
        return False
    # (In C: the names whose fingerprint moved, then the records of those names.)
    moved = set(compress(now_included, map(ne, now_included.values(),
                                           map(old.included.get, now_included))))
    # A name ``old`` lacks is one of them (a fingerprint is never None), so as many
    # names, none of them missing, are the same names.
    if not all(map(old.included.__contains__, moved)):
        return False
    # The skills of those names: most often only records made again (``cache.changed``,
    # a few) hold them, found without a look at the 100k included records.
    keys = [key for key in cache.changed if getattr(included.get(key), "name", None) in moved]
    if len({included[key].name for key in keys}) != len(moved):
        keys = list(compress(included, map(moved.__contains__, map(_NAME, included.values()))))
    for key in keys:
        now = included[key]
        before = old.files.get(key)
        if (before is None or before.fingerprint != old.included.get(now.name or "")
                or (before.format, before.graph) != (now.format, now.graph)):
            return False
    return True


def _refuse_foreign_folder(out: Path) -> None:
    if out.exists() and (not out.is_dir() or (any(out.iterdir())
                                               and read_manifest(out) is None)):
        raise SkillsiteError(f"{out} exists and is not a skillsite dist/ (it has no "
                             "manifest.json); refusing to replace it. Choose another "
                             "folder with -o, or remove it first")


def _previous_cache(out: Path, config_key: str, early: EarlyScan, previous: bool) -> BuildCache:
    if not previous:
        early.cancel()
        return BuildCache()
    manifest = read_manifest(out) or {}
    return load_cache(out, config_key, manifest.get("files", {}), recorded(out), early)


def _reusable(out: Path, backend: str) -> bool:
    manifest = read_manifest(out)
    # The same version exactly: a build reuses the previous stores' rows as they are.
    return bool(manifest and manifest.get("artifact_version") == ARTIFACT_VERSION
                and manifest.get("index_backend") == backend
                and _hits_delta_intact(out, manifest.get("files", {})))


def _hits_delta_intact(out: Path, listed: dict[str, str]) -> bool:
    """Whether ``out`` has the hits delta its manifest lists (its sha256; at most 2 MB),
    or none if it lists none: a build adds to it or folds it into ``hits.db``, so a
    damaged one makes the build clean."""
    relative = f"content/{DELTA_FILE}"
    if relative not in listed:
        return not (out / relative).exists()
    try:
        return file_sha256(out / relative) == listed[relative]
    except OSError:
        return False


def _manifest_fields(formats: Counter[str], backend: str,
                     problems: list[Problem]) -> dict[str, Any]:
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    built = time.gmtime(int(epoch) if epoch and epoch.isdigit() else time.time())
    severities = Counter(map(_SEVERITY, problems))  # (in C: 35k problems at 100k skills)
    return {
        "skillsite_version": __version__,
        "build_time": time.strftime("%Y-%m-%dT%H:%M:%SZ", built),
        "index_backend": backend,
        "counts": {"skills": sum(formats.values()), "formats": dict(sorted(formats.items())),
                   "errors": (errors := severities[ERROR]),
                   "warnings": len(problems) - errors},
    }
