"""The build's check phase: lint the files that changed, reuse the cached results of the
rest, and settle the problems and the skills that go into ``dist/``.
"""
from __future__ import annotations

import marshal
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import lru_cache, partial
from itertools import compress, starmap
from operator import and_, attrgetter, is_, itemgetter, not_
from pathlib import Path
from typing import Any

from skillsite.builder.cache import BuildCache, gone
from skillsite.builder.extract import Built, Extracted, Payload, extract, finish
from skillsite.builder.records import Cached, dependencies_unchanged, revalidated
from skillsite.builder.stores import BuildStores
from skillsite.linter.checker import check_files, corpus_problems, display_path
from skillsite.linter.discover import Flagged, _below, kind_of
from skillsite.linter.lint import make_problem
from skillsite.linter.listings import Listing, Listings, folder_chain, removed
from skillsite.linter.rules.context import Context
from skillsite.linter.rules.corpus import SkillRecord
from skillsite.models import ERROR, WITHHOLDING_RULES, Document, Problem, Source

Progress = Callable[[int, int], None]
_NAME, _PROBLEMS = attrgetter("name"), attrgetter("problems")
_FINGERPRINT, _RULE = attrgetter("fingerprint"), itemgetter(2)
_CATALOG_JSON, _IS_NONE = attrgetter("catalog_json"), partial(is_, None)


def check_changed(found: Iterable[tuple[str, str]], old: BuildCache, ctx: Context,
                  root: Path, jobs: int | None, progress: Progress, stores: BuildStores,
                  listings: Listings, relisted: list[tuple[str, str]] | None
                  ) -> tuple[BuildCache, Sources, int]:
    """Lint what changed and reuse the rest, while discovery is still walking; fresh
    skills without errors go straight into ``stores``. Returns the new cache, every
    source by key, and how many skill files were checked (not counting Markdown pages
    that turned out not to be skills).

    Where ``old.changes`` found the tree unchanged, ``found`` is not used: the files are
    the previous build's, and only those whose stat moved are looked at again. Where
    only a few folders changed, ``relisted`` holds their files (see
    :func:`~skillsite.linter.discover.rewalk`) and the other files are the previous build's.
    """
    check = _ChangeCheck(old, root, listings)
    done = checked = 0
    progress(0, 0)
    for built in check_files(check.changed(found, relisted), ctx, root, jobs,
                             extract=_extractor(ctx), finish=stores.finisher()):
        check.cache.files[built.key] = built.cached
        check.cache.changed.add(built.key)
        if built.payload and not (ctx.config.exclude_invalid
                                  and any(row[3] == ERROR for row in built.cached.problems)):
            stores.offer(built.payload)
        done += 1
        checked += built.cached.found
        if done % 100 == 0:
            progress(done, check.stale)
    progress(done, done)
    return check.cache, check.sources, checked


class _ChangeCheck:
    """Sorts the corpus's files into those the previous build's results still hold for
    (kept in ``cache``) and those to check again (``changed``, counted in ``stale``)."""

    def __init__(self, old: BuildCache, root: Path, listings: Listings) -> None:
        self.old, self.root, self.listings = old, root, listings
        self.cache = BuildCache()
        self.sources = Sources(root)
        self.stale = 0
        self.mtimes: Mapping[str, int] = listings.mtimes
        self.prefix = os.path.join(str(root), "")
        self.below = _below(root)
        # Below an absolute, normalized root, a file's folder is what precedes its name
        # (as discovery tells the check: ``Source.folder``).
        top = str(root)
        self.cut = top != os.sep and os.path.isabs(top) and os.path.normpath(top) == top

    def changed(self, found: Iterable[tuple[str, str]],
                relisted: list[tuple[str, str]] | None) -> Iterator[Source]:
        """The files to check again, while the others are kept in ``cache``."""
        for key, path, kind in self._candidates(found, relisted):
            cached = self.old.files.get(key)
            reused = revalidated(cached, path, self.mtimes) if cached is not None else None
            if reused is not None:
                self.cache.files[key] = reused
                if reused is not cached:
                    self.cache.changed.add(key)
            else:
                self.stale += 1
                folder = (path[:path.rfind(os.sep)]
                          if self.cut and path.startswith(self.prefix) else None)
                yield _Found(self.below(path), self.root, kind, None, folder)

    def _candidates(self, found: Iterable[tuple[str, str]],
                    relisted: list[tuple[str, str]] | None) -> Iterator[tuple[str, str, str]]:
        """(key, path, kind) of every file that may have changed."""
        changes = self.old.changes
        if changes and changes.tree_unchanged:
            yield from self._moved_files()
            return
        if relisted is not None and changes:
            yield from self._outside_relisted_folders()
            found_now: Iterable[tuple[str, str]] = relisted
        else:
            # Validating needs the mtimes of folders that the walk may not have reached
            # yet; with nothing to validate, the workers start while the walk goes on.
            found_now = list(found) if self.old.files else found
        for path, kind in found_now:
            key = (path[len(self.prefix):] if path.startswith(self.prefix)
                   else display_path(Path(path), self.root))
            self.sources[key] = (path, kind)
            yield key, path, kind

    def _moved_files(self) -> Iterator[tuple[str, str, str]]:
        """The tree is the previous build's: only the files whose stat moved."""
        assert self.old.changes is not None
        files = self.cache.files
        files.update(self.old.files)  # one copy in C, less the few that moved
        for key in sorted(self.old.changes.changed.intersection(files)):
            del files[key]
            yield key, *self.sources.locate(key)

    def _outside_relisted_folders(self) -> Iterator[tuple[str, str, str]]:
        """The previous build's files outside the folders listed again (or gone), where
        they or what they depend on moved."""
        changes, index = self.old.changes, self.old.stat_index
        assert changes is not None
        current, previous = self.listings.whole(), self.listings.previous
        self.mtimes = _ListedMtimes(current)
        moved = {*(changes.changed_folders or ()), *removed(previous, current)}
        if index is None:
            yield from self._every_file_outside(moved)
            return
        # The scan compared every folder of the walk and every dependency outside it
        # (a supporting file's change puts its skill in ``changes.changed``), so only a
        # file in a folder that moved or above one, or one that depends on a folder
        # outside its own (``index.foreign``), can depend on what moved: the other
        # records are kept as they are, in one copy, and those few are compared
        # dependency by dependency. The files of the folders that moved are listed
        # again (or gone): every file of a complete walk is in its folder's listing.
        files = self.cache.files
        files.update(self.old.files)
        for folder in moved:
            listing = previous.get(folder)
            for key in self._listed_keys(listing[3] if listing else (), folder):
                files.pop(key, None)
        above = {a for folder in moved for a in folder_chain(folder, str(self.root)) or ()}
        near = {key for folder in above - moved
                for key in self._listed_keys(current[folder][3] if folder in current
                                             else (), folder)}
        untouched = frozenset(moved).isdisjoint
        folder_of = itemgetter(0)
        for key in sorted(near.union(changes.changed, index.foreign)):
            cached = files.get(key)
            if cached is None:
                continue  # in a folder listed again, or gone
            if key in changes.changed or not (untouched(map(folder_of, deps := cached.deps))
                                              or dependencies_unchanged(deps, self.mtimes)):
                del files[key]
                yield key, *self.sources.locate(key)

    def _listed_keys(self, names: Iterable[tuple[str, str]], folder: str) -> Iterator[str]:
        """The keys of ``names`` in ``folder`` (a path under the root)."""
        relative = folder[len(self.prefix):].replace(os.sep, "/")
        prefix = relative + "/" if folder != str(self.root) else ""
        return (prefix + name for name, _ in names)

    def _every_file_outside(self, moved: set[str]) -> Iterator[tuple[str, str, str]]:
        """:meth:`_outside_relisted_folders` without the previous stat index: every
        record is compared."""
        changes = self.old.changes
        assert changes is not None
        # Folders relative to the root, as keys hold them ("" for the root itself).
        skip = {folder[len(self.prefix):] for folder in moved}
        # (The loop runs for every file: its test is kept to a few calls into C.)
        untouched = frozenset(moved).isdisjoint
        changed, files, folder_of = changes.changed, self.cache.files, itemgetter(0)
        loads = marshal.loads  # (Cached.deps, less its Python call per record)
        for key, cached in self.old.files.items():
            if key.rpartition("/")[0] in skip:
                continue  # relisted below, or gone
            if key not in changed:
                deps = loads(cached.deps_blob)
                if untouched(map(folder_of, deps)) or dependencies_unchanged(deps, self.mtimes):
                    files[key] = cached
                    continue
            yield key, *self.sources.locate(key)


class _Found(Source):
    """A file to check, sent to a worker as its path's text: a pickled ``Path`` is its
    parts, which the worker joins and parses again (about 1 us a file more)."""

    def __reduce__(self) -> tuple[Callable[..., Source], tuple[Any, ...]]:
        return _received, (str(self.path), str(self.root), self.kind, self.folder)


def _received(path: str, root: str, kind: str, folder: str | None) -> Source:
    """The :class:`Source` of a :class:`_Found`, in the worker."""
    top, below = _below_root(root)
    return Source(below(path), top, kind, None, folder)


@lru_cache(maxsize=8)
def _below_root(root: str) -> tuple[Path, Callable[[str], Path]]:
    top = Path(root)
    return top, _below(top)


class _ListedMtimes(Mapping[str, int]):
    """The mtime of each folder of ``listings``, read from its listing when asked: a dict
    of every folder's (183k at 100k skills) cost more than the few look-ups made."""

    def __init__(self, listings: Mapping[str, Listing]) -> None:
        self.listings = listings

    def __getitem__(self, folder: str) -> int:
        return self.listings[folder][0]

    def __len__(self) -> int:
        return len(self.listings)

    def __iter__(self) -> Iterator[str]:
        return iter(self.listings)


class Sources(dict[str, tuple[str, str]]):
    """Files found by the walk, by key: (path, kind), made into a Source only when
    needed. A key the walk did not report (it was skipped) is a plain file under the
    root: the walk is skipped only when it found no symlinks the last time."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root

    def locate(self, key: str) -> tuple[str, str]:
        found = self.get(key)
        if found is None:
            found = (os.path.join(self.root, key), kind_of(key.rpartition("/")[2]) or "")
        return found

    def source(self, key: str) -> Source:
        path, kind = self.locate(key)
        return Source(Path(path), self.root, kind)


def all_problems(cache: BuildCache, old: BuildCache, flagged: list[Flagged], ctx: Context,
                  root: Path) -> list[Problem]:
    """Every file's problems, the walk's and the corpus-wide rules' (kept in ``cache``)."""
    with_problems = compress(cache.files.items(), map(_PROBLEMS, cache.files.values()))
    # (Rows as records.problem_rows stores them, made in one comprehension: a call and a
    # list for each of the 30k files with problems cost a third more.) Sorted as tuples
    # of the fields in problem_order's order, then made Problems: sorting the objects
    # by that key costs more.
    rows = [(key, *row) if len(row) == 5 else (row[5], *row[:5])
            for key, c in with_problems for row in c.problems]
    for flag in flagged:
        problem = make_problem(ctx, flag.issue.rule, display_path(flag.path, root),
                               (flag.issue.line, flag.issue.column), flag.issue.message)
        rows += [problem_order(problem)] if problem else []
    if old.corpus_problems is not None and same_records(cache, old):
        cache.corpus_problems = old.corpus_problems
    else:
        records = [SkillRecord._make(c.record) for c in cache.files.values() if c.record]
        cache.corpus_problems = [[p.path, p.line, p.column, p.rule, p.severity, p.message]
                                 for p in corpus_problems(records, ctx)]
    rows += map(tuple, cache.corpus_problems)
    rows.sort()
    return list(starmap(Problem, rows))


#: The order of :class:`~skillsite.models.Problem` (its fields in turn) as a key: sorting
#: 100k problems by their dataclass comparison calls Python for every comparison.
problem_order = attrgetter("path", "line", "column", "rule", "severity", "message")


def same_records(cache: BuildCache, old: BuildCache) -> bool:
    """Whether the corpus-wide rules see what they saw in the previous build."""
    if any(old.files[key].record for key in gone(cache, old)):
        return False
    return all(key in old.files and old.files[key].record == cache.files[key].record
               for key in cache.changed)


def included_skills(cache: BuildCache, errored: set[str]) -> dict[str, Cached]:
    """The skills ``dist/`` publishes, by path: every skill but those withheld (see
    :data:`~skillsite.models.WITHHOLDING_RULES`) and those in ``errored`` (the files with
    errors, when the build excludes them). Two skills with one id (a ``duplicate-name``
    in one namespace): the first path wins, and the other is reported as shadowed."""
    files = cache.files
    values = files.values()
    # A withheld skill's record is the only named one without a catalog record (see
    # extract.finish): found in C, where a look at the problems of every skill that has
    # any (a third of them at 100k) cost a Python call each. (Every loop here stays in
    # C and goes through the records in the order they were made: 100k records, looked
    # up in path order, cost twice as much.)
    left_out = set(errored)
    left_out.update(compress(files, map(_IS_NONE, map(_CATALOG_JSON, values))))
    keep: list[Any] = list(map(_NAME, values))  # those with a name
    if left_out:
        keep = list(map(and_, map(bool, keep), map(not_, map(left_out.__contains__, files))))
    chosen = dict(sorted(compress(files.items(), keep)))  # (the keys differ: by path)
    if len(set(compress(map(_NAME, values), keep))) == len(chosen):
        return chosen  # no id twice
    names = list(map(_NAME, chosen.values()))
    # Each id's first path, from the paths in reverse (the first one is set last).
    winners = dict(zip(reversed(names), reversed(chosen), strict=True))
    first = set(winners.values())
    return dict(compress(chosen.items(), map(first.__contains__, chosen)))


def withheld(cached: Cached) -> bool:
    """Whether a rule keeps this skill out whatever the configuration (for a named
    record: it has no catalog record, see :func:`included_skills`)."""
    return not WITHHOLDING_RULES.isdisjoint(map(_RULE, cached.problems))


def fingerprints(included: dict[str, Cached]) -> dict[str, str]:
    """Name to content fingerprint ("" for none) of the skills ``included`` (each has a
    name, and no two the same: see :func:`included_skills`)."""
    found = dict(zip(map(_NAME, included.values()), map(_FINGERPRINT, included.values()),
                     strict=True))
    if None in found.values():
        found = {name: fingerprint or "" for name, fingerprint in found.items()}
    return found


def payloads(sources: list[Source], ctx: Context, root: Path,
             finish: Callable[[Source, Any], Built] = finish) -> Iterator[Payload]:
    """Read these skills again, for :meth:`BuildStores.settle` (``finish``: its
    :meth:`~BuildStores.finisher`)."""
    for built in check_files(sources, ctx, root, 1, extract=_extractor(ctx), finish=finish):
        if built.payload:
            yield built.payload


def _extractor(ctx: Context) -> Callable[[Document], Extracted]:
    return partial(extract, max_file_size=ctx.config.max_file_size, ctx=ctx)
