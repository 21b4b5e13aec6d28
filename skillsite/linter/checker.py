"""``skillsite check``: discover, parse and lint a corpus, in parallel when asked.

Per-file work (reading, schema, document rules) runs in worker processes; the corpus
rules (duplicate names, dependencies) run afterwards over small per-skill records.
"""
from __future__ import annotations

import gc
import os
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache, partial
from itertools import chain, islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from skillsite.config import Config
from skillsite.linter.discover import Flagged, discover
from skillsite.linter.namespaces import MARKETPLACE_FILE, PLUGIN_FILE
from skillsite.linter.rules.context import Context
from skillsite.models import CheckResult, Document, Problem, Source

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

    from skillsite.linter.rules.corpus import SkillRecord

# The parsers, the rules and the process pool are imported where they are first needed,
# so that a check that meets no file (an empty folder, a pre-commit run on no skill)
# starts as fast as the interpreter allows (bench/bench_startup.py).

#: Below this many files one process is faster than starting workers. Two forked workers
#: cost about 0.04 CPU-s to start and 0.04 ms a file to send back (pickled results), and a
#: file takes 0.3-0.8 ms to check: on two idle cores they pay back from 120-190 files on.
PARALLEL_THRESHOLD = 300
#: Looks at the runnable tasks (:func:`runnable`) while the walk finds the first
#: PARALLEL_THRESHOLD files: one every this many files.
_LOOK_EVERY = 75
#: Files per task sent to a worker: small enough that two workers finish within a few
#: files of each other on a corpus of some hundred skills (with 200, 864 files made five
#: tasks, three for one worker and two for the other); each task costs the pool about a
#: tenth of a millisecond. Sharing (:func:`_shared`), the last chunks are cut smaller, so
#: that this process and its workers end together (16 a chunk took 3-5 % more CPU than
#: 50 on Composio and on 10k generated skills).
_CHUNK = 50


@dataclass(frozen=True, init=False)
class FileResult:
    path: str
    problems: list[Problem]
    record: SkillRecord | None
    is_skill: bool
    #: What ``extract`` made of the document (the build's SkillEntry), if asked.
    extracted: Any = None
    #: The skill's trust assessment (:func:`skillsite.linter.trust.assess`).
    trust: dict[str, Any] | None = None
    #: Whether the check read files outside the document's folder besides the manifests
    #: (its sibling skills and instruction files, a ``skill.json``'s entry script): a
    #: cached result then depends on the whole corpus (see ``checkcache``).
    wide: bool = False
    #: Paths outside the corpus root whose existence the check looked at (links that
    #: leave it): a cached result holds while each still exists or not as it did.
    outside: tuple[str, ...] = ()

    def __init__(self, path: str, problems: list[Problem], record: SkillRecord | None,
                 is_skill: bool, extracted: Any = None, trust: dict[str, Any] | None = None,
                 wide: bool = False, outside: tuple[str, ...] = ()) -> None:
        # One per file: the fields go straight into the instance's dict (the frozen
        # dataclass's own __init__ sets each through object.__setattr__, 4x the time).
        fields = self.__dict__
        fields["path"], fields["problems"], fields["record"] = path, problems, record
        fields["is_skill"], fields["extracted"], fields["trust"] = is_skill, extracted, trust
        fields["wide"], fields["outside"] = wide, outside

    def __reduce__(self) -> tuple[type[FileResult], tuple[Any, ...]]:
        # Sent back from a worker: the fields as a tuple, as Problem does.
        return FileResult, (self.path, self.problems, self.record, self.is_skill,
                            self.extracted, self.trust, self.wide, self.outside)


Extract = Callable[[Document], Any]
#: Applied in the worker to each file's result before it is sent back, so that only
#: what the caller keeps crosses the process boundary.
Finish = Callable[[Source, "FileResult | None"], Any]


def display_path(path: Path, base: Path) -> str:
    """``path`` relative to ``base`` when under it, with ``/`` separators."""
    text = os.fspath(path)
    global _BASE
    last = _BASE
    if base is not last[0]:  # the same base object for every file of a check
        last = _BASE = (base, _inside(base))
    prefix = last[1]
    if _POSIX and text[:1] == "/" and text.startswith(prefix):  # absolute, below the base
        return text[len(prefix):]
    absolute = text if os.path.isabs(text) else os.path.abspath(text)
    if absolute.startswith(prefix):
        absolute = absolute[len(prefix):]
    return absolute.replace(os.sep, "/")


#: The base :func:`display_path` was last given and what a path inside it starts with.
_BASE: tuple[object, str] = (object(), "")
#: Paths are spelled with ``/`` already.
_POSIX = os.sep == "/"


@lru_cache(maxsize=64)
def _inside(folder: str | Path) -> str:
    """``os.path.join(str(folder), "")``: what a path inside ``folder`` starts with (the
    same one or two folders for every file of a check)."""
    return os.path.join(str(folder), "")


def check_file(source: Source, ctx: Context, base: Path,
               extract: Extract | None = None) -> FileResult | None:
    """Read and lint one file; None when a Markdown page is not a skill.

    ``extract``, when given, is applied to every document that parsed into a mapping and
    its result is kept on the :class:`FileResult`.
    """
    read, lint_document, make_problem, record_of, assess = _CHECKING or _checking()
    path = display_path(source.path, base)
    try:
        doc = read(source, max_size=ctx.config.max_file_size)
        if doc is None:
            return None
        problems = lint_document(doc, ctx, path)
        record = (record_of(doc, path, ctx.namespace_of(doc)) if doc.data is not None
                  else None)
        extracted = extract(doc) if extract and doc.data is not None else None
        trust = assess(doc, problems, ctx, path) if doc.data is not None else None
        wide = "surroundings" in doc.derived or doc.source.kind == "skill-json"
        return FileResult(path, problems, record, doc.data is not None, extracted, trust, wide,
                          _outside_links(doc))
    except Exception as exc:  # one bad file never stops the corpus
        problem = make_problem(ctx, "internal-error", path, (1, 1),
                               f"skillsite failed on this file: {type(exc).__name__}: {exc}; "
                               "please report this")
        return FileResult(path, [problem] if problem else [], None, False)


#: What :func:`check_file` calls, imported on its first file (see :func:`_checking`).
_CHECKING: tuple[Any, ...] = ()


def _checking() -> tuple[Any, ...]:
    """The parser, the linter, the corpus record and the trust assessment, imported once
    (an import statement in :func:`check_file` costs a lookup of each module per file)."""
    from skillsite.linter.lint import lint_document, make_problem
    from skillsite.linter.parse import read
    from skillsite.linter.rules.corpus import record_of
    from skillsite.linter.trust import assess

    global _CHECKING
    _CHECKING = (read, lint_document, make_problem, record_of, assess)
    return _CHECKING


def _outside_links(doc: Document) -> tuple[str, ...]:
    """The targets of the document's links (and its bundled Markdown's) that lie outside
    the corpus root, as far as the check worked them out."""
    links = doc.derived.get("local-links")
    references = doc.derived.get("references")
    if not links and (references is None or not references.links):
        return ()  # no link at all (the check of most skills without references)
    root = _absolute_inside(os.fspath(doc.source.root))
    found = {path for _, _, path in links or () if path is not None
             and not path.startswith(root)}
    for more in (references.links.values() if references is not None else ()):
        found.update(path for _, _, path in more if path is not None
                     and not path.startswith(root))
    return tuple(sorted(found)) if found else ()


def _absolute_inside(folder: str) -> str:
    """``_inside(os.path.abspath(folder))``, kept for an absolute ``folder`` (a relative
    one depends on the working folder)."""
    return _absolute(folder) if os.path.isabs(folder) else _inside(os.path.abspath(folder))


@lru_cache(maxsize=64)
def _absolute(folder: str) -> str:
    return _inside(os.path.abspath(folder))


_worker_state: tuple[Context, Path, Extract | None, Finish | None] | None = None


def _init_worker(parent: int, ctx: Context, base: Path, extract: Extract | None,
                 finish: Finish | None) -> None:
    from skillsite.linter.children import die_with_parent

    global _worker_state
    die_with_parent(parent)
    _worker_state = (ctx, base, extract, finish)
    # A forked worker inherits its parent's objects and garbage-collector switch (a build
    # turns it off): collect again, but never walk the inherited objects.
    gc.freeze()
    gc.enable()


def _check_one(source: Source, ctx: Context, base: Path, extract: Extract | None,
               finish: Finish | None) -> Any:
    result = check_file(source, ctx, base, extract)
    return finish(source, result) if finish else result


def spare_cores(looks: list[int | None] | None = None) -> int:
    """The cores this process may use that other processes leave idle: at least one. A
    worker on a busy core only adds its start-up and the results' pickling to the run (on
    two cores under a load of 4, ``--jobs 2`` took 9 % more CPU than ``--jobs 1`` and no
    less time). Busy means running now (Linux's count of runnable tasks, the fewest of a
    few looks: ``looks`` when given, see :func:`runnable`), not the one-minute load
    average, which still holds the last runs of this same check and would keep an idle
    machine at one process."""
    cores = (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
             else os.cpu_count() or 1)
    others = running_elsewhere() if not looks else _elsewhere(looks)
    return max(1, min(cores, cores - others))


def running_elsewhere(looks: int = 5) -> int:
    """How many other tasks are running, the fewest of ``looks`` looks 1 ms apart at
    ``/proc/loadavg`` (0 where there is none)."""
    seen: list[int | None] = []
    for look in range(looks):
        seen.append(runnable())
        if seen[-1] is None:
            break
        if look + 1 < looks:
            time.sleep(0.001)
    return _elsewhere(seen)


def runnable() -> int | None:
    """Linux's count of runnable tasks now (``/proc/loadavg``), this process included;
    None where there is none."""
    try:
        with open("/proc/loadavg", "rb") as handle:
            return int(handle.read().split()[3].split(b"/")[0])
    except (OSError, ValueError, IndexError):
        return None


def _elsewhere(looks: list[int | None]) -> int:
    """The other tasks running at the quietest of ``looks`` (0 when one failed)."""
    if None in looks:
        return 0
    return max(min(cast(list[int], looks), default=1) - 1, 0)  # this process is one of them


def _load_checker() -> None:
    """Import what :func:`check_file` runs (every rule module included): once here, not
    once in each worker. Not PyYAML: the fast reader takes the front matter of most
    corpora (all 864 of Composio's), and a process that meets other front matter imports
    it then (some 7 ms)."""
    from skillsite.linter import lint, parse, trust  # noqa: F401
    from skillsite.linter.rules import corpus, registered  # noqa: F401

    registered()


def _check_chunk(sources: list[Source]) -> list[Any]:
    assert _worker_state is not None
    return [_check_one(source, *_worker_state) for source in sources]


def _chunks(items: Iterable[Source]) -> Iterator[list[Source]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, _CHUNK)):
        yield chunk


def check_files(sources: Iterable[Source], ctx: Context, base: Path, jobs: int | None,
                progress: Callable[[int], None] = lambda n: None,
                extract: Extract | None = None, finish: Finish | None = None,
                share: bool = False) -> Iterator[Any]:
    """:func:`check_file` over ``sources``, in order, on ``jobs`` processes; each result
    passed through ``finish(source, result)`` when given.

    ``jobs`` None or 0 means automatic: one process for a small corpus, every idle core
    (:func:`spare_cores`) for a large one. Workers start on the first chunks while
    ``sources`` (a discovery walk) is still being read, so the walk overlaps with the
    checking.

    With ``share``, this process is one of the ``jobs``: it checks files itself whenever
    its workers have enough queued (:func:`_shared`), instead of waiting on them; on
    Linux its workers are then :mod:`skillsite.linter.forked`'s, not a process pool's.
    The build, whose process has its own work between two results, leaves it off.
    """
    iterator = iter(sources)
    # The idle cores are looked for while the walk finds the first files (every
    # _LOOK_EVERY of them, and once after), not in looks 1 ms apart afterwards: the
    # check would wait 4-5 ms for them.
    head: list[Source] = []
    looks: list[int | None] = []
    for source in islice(iterator, PARALLEL_THRESHOLD):
        if not jobs and not len(head) % _LOOK_EVERY:
            looks.append(runnable())
        head.append(source)
    small = len(head) < PARALLEL_THRESHOLD
    workers = max(jobs or (1 if small else spare_cores([*looks, runnable()])), 1)
    if workers == 1 or small:
        for source in chain(head, iterator):
            yield _check_one(source, ctx, base, extract, finish)
            progress(1)
        return
    # Checked here, the first file imports the parsers and the rules and compiles their
    # patterns once: forked workers inherit them instead of each paying for them again.
    _load_checker()
    yield _check_one(head[0], ctx, base, extract, finish)
    progress(1)
    del head[0]
    if share and sys.platform.startswith("linux"):
        yield from _shared_forked(workers - 1, chain(head, iterator),
                                  (ctx, base, extract, finish), progress)
        return
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    pool = ProcessPoolExecutor(workers - share, mp_context=get_context(),
                               initializer=_init_worker,
                               initargs=(os.getpid(), ctx, base, extract, finish))
    # What _stop must look at: the futures not collected yet and the one being collected.
    # Not every future submitted: each keeps its chunk's results, and keeping them all
    # kept the whole build's (a clean build's process peaked at 2.3 GB at 100k skills).
    pending: deque[Future[list[Any]]] = deque()
    collecting: list[Future[list[Any]]] = []
    try:
        if share:
            # The pool's threads in this process hand chunks and results over; while
            # this thread checks files, each would wait up to the 5 ms switch interval
            # for the interpreter lock.
            interval = sys.getswitchinterval()
            sys.setswitchinterval(0.002)
            try:
                yield from _shared(lambda chunk: pool.submit(_check_chunk, chunk),
                                   workers - 1,
                                   chain(head, iterator), cast(deque[_Pending], pending),
                                   cast(list[_Pending], collecting),
                                   (ctx, base, extract, finish), progress)
            finally:
                sys.setswitchinterval(interval)
        else:
            for chunk in _chunks(chain(head, iterator)):
                pending.append(pool.submit(_check_chunk, chunk))
                while pending and (pending[0].done() or len(pending) > 4 * workers):
                    collecting[:] = [pending.popleft()]
                    yield from _collect(collecting[0], progress)
        while pending:
            collecting[:] = [pending.popleft()]
            yield from _collect(collecting[0], progress)
    except BaseException:  # interrupted, or the caller stopped reading: stop at once
        _stop(pool, [*collecting, *pending])
        raise
    pool.shutdown()


def _shared_forked(count: int, sources: Iterator[Source],
                   state: tuple[Context, Path, Extract | None, Finish | None],
                   progress: Callable[[int], None]) -> Iterator[Any]:
    """:func:`_shared` with ``count`` workers of :mod:`skillsite.linter.forked` rather
    than a process pool: no pool to import, and no thread in this process."""
    from skillsite.linter.forked import Workers

    workers = Workers(count, partial(_init_worker, os.getpid(), *state), _check_chunk)
    try:
        yield from _shared(workers.submit, count, sources, deque(), [], state, progress)
    except BaseException:  # interrupted, or the caller stopped reading: stop at once
        workers.stop()
        raise
    workers.shutdown()


class _Pending(Protocol):
    """A worker's chunk on its way: a ``Future`` or a :class:`forked.Task`."""

    def done(self) -> bool: ...

    def result(self) -> list[Any]: ...


#: Chunks each worker has queued while this process checks files too: one running and
#: two waiting in its pipe (with a pool: one in the pipe and one with the pool's thread,
#: which hands it over as soon as a result comes back); a worker then never waits for
#: this process to cut the next.
_QUEUED = 3


def _shared(submit: Callable[[list[Source]], _Pending], workers: int,
            sources: Iterator[Source], pending: deque[_Pending], collecting: list[_Pending],
            state: tuple[Context, Path, Extract | None, Finish | None],
            progress: Callable[[int], None]) -> Iterator[Any]:
    """The results of ``sources`` in order, checked by ``workers`` pool processes and
    by this one: each worker is kept ``_QUEUED`` chunks ahead, and this process checks
    the next file itself meanwhile. Results are yielded as soon as all before them are
    in."""
    # The segments in order: a future (a worker's chunk) or a list (this process's files).
    segments: deque[_Pending | list[Any]] = deque()
    # A few chunks read ahead, so that the end of the walk is seen before the last chunks
    # are cut: they are then cut smaller, for the processes to end together.
    ahead: deque[Source] = deque()
    # Once the walk is done, this process checks the files left from the last one back,
    # while the workers' chunks are still cut from the front: the processes meet
    # between two files, and whatever heavy skills close the walk (Composio's last 25
    # files take a seventh of its check: Anthropic's document skills) are checked here,
    # file by file, instead of waiting in a worker's queue while this process idles.
    # Their results, last first, come after all the others.
    last: list[Any] = []
    walked = False
    while True:
        while not walked and len(ahead) < 2 * _CHUNK * (workers + 1):
            source = next(sources, None)
            walked = source is None
            ahead.extend(() if source is None else (source,))
        if not ahead:
            break
        if sum(not isinstance(s, list) and not s.done() for s in segments) < _QUEUED * workers:
            size = (min(_CHUNK, max(1, len(ahead) // (2 * (workers + 1)))) if walked
                    else _CHUNK)
            future = submit([ahead.popleft() for _ in range(min(size, len(ahead)))])
            pending.append(future)
            segments.append(future)
        elif walked:
            last.append(_check_one(ahead.pop(), *state))
        elif segments and isinstance(segments[-1], list):
            segments[-1].append(_check_one(ahead.popleft(), *state))
        else:
            segments.append([_check_one(ahead.popleft(), *state)])
        yield from _ready(segments, pending, collecting, progress, final=False)
    yield from _ready(segments, pending, collecting, progress, final=True)
    progress(len(last))
    yield from reversed(last)


def _ready(segments: deque[_Pending | list[Any]], pending: deque[_Pending],
           collecting: list[_Pending], progress: Callable[[int], None],
           final: bool) -> Iterator[Any]:
    """The results of the segments at the front that are complete: a worker's chunk once
    done (every one when ``final``), this process's files once a segment follows them
    (the last one may still grow)."""
    while segments:
        first = segments[0]
        if isinstance(first, list):
            if len(segments) == 1 and not final:
                return
            segments.popleft()
            progress(len(first))
            yield from first
        elif final or first.done():
            segments.popleft()
            collecting[:] = [pending.popleft()]
            yield from _collect(first, progress)
        else:
            return


def _stop(pool: ProcessPoolExecutor, futures: list[Future[list[Any]]]) -> None:
    """Drop the queued chunks and wait only for the few the workers are on (well under a
    second). Killing the workers instead could cut a result in half inside the pipe, and
    the pool's manager thread would then wait forever for the rest of it.

    A signal's exception (builder.dist.stopped_cleanly_by_signals) can land after a
    future's lock is taken and before the ``with`` block that would release it, in
    ``done()`` or ``result()``: the lock, a reentrant one owned by this thread, would then
    be held for ever, and the shutdown would wait for ever on the manager thread, which
    needs it to cancel that future. This thread releases any it holds first."""
    for future in futures:
        condition = future._condition
        while condition._is_owned():  # type: ignore[attr-defined]
            condition.release()
    pool.shutdown(wait=True, cancel_futures=True)


def _collect(future: _Pending, progress: Callable[[int], None]) -> list[Any]:
    results = future.result()
    progress(len(results))
    return results


def check(paths: Iterable[str | Path] = (".",), *, config: Config | None = None,
          jobs: int | None = None, only: set[Path] | None = None, base: Path | None = None,
          progress: Callable[[int], None] = lambda n: None,
          cache: Path | None = None) -> CheckResult:
    """Check every skill under ``paths``.

    ``only``, when given, limits per-file problems to those absolute paths (and skills
    whose folder holds one of them); corpus-wide rules still see every skill. ``cache``,
    a folder, keeps each file's results there and reuses those whose inputs have not
    changed (:mod:`skillsite.linter.checkcache`).
    """
    # A check keeps a result per file (none cyclic) and makes no cyclic garbage: the
    # cyclic collector would only walk them again and again (as in the build).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _check(paths, config, jobs, only, base, progress, cache)
    finally:
        if collecting:
            gc.enable()


def _check(paths: Iterable[str | Path], config: Config | None, jobs: int | None,
           only: set[Path] | None, base: Path | None, progress: Callable[[int], None],
           cache: Path | None) -> CheckResult:
    ctx = Context(config or Config())
    base = Path(os.path.abspath(base or Path.cwd()))
    flagged: list[Flagged] = []
    roots = [Path(p) for p in paths]
    sources = discover(roots, exclude=ctx.config.exclude, flagged=flagged)
    problems: list[Problem] = []
    records: list[SkillRecord] = []
    files = skills = 0
    trust: dict[str, dict[str, Any]] = {}
    listed = list(sources) if cache is not None else []
    # An empty folder costs no cache (bench/bench_startup.py).
    results = (_cached_results(listed, roots, cache, ctx, base, jobs, progress)
               if cache is not None and listed
               else check_files(listed if cache is not None else sources, ctx, base, jobs,
                                progress, share=True))
    for result in results:
        if result is None:
            continue
        files += 1
        skills += result.is_skill
        if result.trust is not None and (only is None or _selected(result.path, base, only)):
            trust[result.path] = result.trust
        if result.record:
            records.append(result.record)
        if only is None or _selected(result.path, base, only):
            problems += result.problems
    for flag in flagged:
        from skillsite.linter.problems import make_problem

        path = display_path(flag.path, base)
        if only is None or _selected(path, base, only):
            problem = make_problem(ctx, flag.issue.rule, path,
                                   (flag.issue.line, flag.issue.column), flag.issue.message)
            problems += [problem] if problem else []
            files += 1
    problems += corpus_problems(records, ctx)
    problems += manifest_problems(roots, records, ctx, base)
    return CheckResult(sorted(problems), files, skills, dict(sorted(trust.items())))


def _cached_results(sources: list[Source], paths: list[Path], directory: Path, ctx: Context,
                    base: Path, jobs: int | None,
                    progress: Callable[[int], None]) -> list[FileResult | None]:
    """Each source's result, in order: from the cache where it holds one, else checked
    (and then kept in the cache)."""
    from skillsite.linter.checkcache import CheckCache

    cache = CheckCache(directory, paths, base, ctx.config, sources)
    results: list[FileResult | None] = []
    missing: list[tuple[int, Source]] = []
    for source in sources:
        hit, result = cache.get(source)
        if not hit:
            missing.append((len(results), source))
        results.append(result)
    progress(len(sources) - len(missing))
    for (at, source), result in zip(missing, check_files(
            [source for _, source in missing], ctx, base, jobs, progress, share=True),
            strict=True):
        results[at] = result
        cache.put(source, result)
    cache.save()
    return results


def manifest_problems(roots: list[Path], records: list[SkillRecord], ctx: Context,
                      base: Path) -> list[Problem]:
    """``plugin-manifest-invalid`` for each broken ``marketplace.json`` at a root and
    ``plugin.json`` of a plugin the skills belong to."""
    found: list[Problem] = []
    for root in (r for r in roots if r.is_dir()):
        namespaces = ctx.namespaces_of(root)
        folders = {(str(root), MARKETPLACE_FILE)}
        folders |= {(os.path.join(namespaces.root, r.plugin_folder), PLUGIN_FILE)
                    for r in records if r.plugin}
        for folder, name in sorted(folders):
            manifest = namespaces.manifest(os.path.abspath(folder), name)
            if manifest is not None and manifest.issue is not None:
                from skillsite.linter.problems import make_problem

                issue = manifest.issue
                problem = make_problem(ctx, issue.rule, display_path(Path(manifest.path), base),
                                       (issue.line, issue.column), issue.message)
                found += [problem] if problem else []
    return found


def _selected(path: str, base: Path, only: set[Path]) -> bool:
    absolute = Path(os.path.abspath(base / path))
    return absolute in only or any(changed.is_relative_to(absolute.parent)
                                   for changed in only if absolute.name == "SKILL.md")


def corpus_problems(records: list[SkillRecord], ctx: Context) -> list[Problem]:
    if not records:
        return []
    # Every corpus rule is in rules.corpus (tests/unit/test_checkcache.py holds to that):
    # a check answered from the results cache imports no other rule.
    from skillsite.linter.problems import active, make_problem
    from skillsite.linter.rules import corpus  # noqa: F401
    from skillsite.linter.rules.registry import CORPUS, RULES

    found: list[Problem] = []
    for rule in RULES.values():
        if rule.scope != CORPUS or rule.check is None or not active(ctx, rule):
            continue
        for path, where, message in rule.check(records, ctx):
            problem = make_problem(ctx, rule.id, path, where, message)
            if problem:
                found.append(problem)
    return found
