"""``Library``: the runtime reader, everything answered from ``dist/`` alone.

No corpus, no linting, no network: the content store answers ``open`` and ``read`` with
one indexed lookup, the prebuilt index proposes search candidates and skillsite's ranking
orders them. Mini-A's rules hold: the full catalog is never put into a prompt unasked,
there is never one tool per skill, search never returns a body, and related skills are
never preloaded. A Library is safe to share between threads.

Each operation is a plain function of a :class:`~skillsite.reader.session.Session`,
declared with what it spends where it is defined (``reader/querying.py``,
``reader/reading.py`` ...); each method below runs one with :meth:`Library._run`.
"""
from __future__ import annotations

import contextlib
import copy
import os
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from skillsite.reader.budget import Budget
from skillsite.reader.client_budgets import DEFAULT_MAX_CLIENTS, Clients
from skillsite.reader.errors import ReaderError
from skillsite.reader.mounts import ALL, Call, Mounts
from skillsite.reader.retrieval import Retrieval
from skillsite.reader.safe import SafeLedger, SafePolicy
from skillsite.reader.session import BUDGET, SAFE_COUNTS, Operation, Session
from skillsite.reader.shared import MemoryStore, SharedStore

if TYPE_CHECKING:
    from skillsite.reader import results

P = ParamSpec("P")
R = TypeVar("R")
NO_LOCK = contextlib.nullcontext()


class Library:
    """Query the ``dist/`` built by ``skillsite build``.

    ``safe`` turns on safe mode for untrusted clients (opaque single-use refs, budgets per
    time window, see :mod:`skillsite.reader.safe`); those window budgets are always on.

    By default nothing else is budgeted: a standalone server or a program reads as much as
    it needs. ``budget`` bounds each client as an agent runtime bounds a run (Mini-A: 3
    skills and 12,000 characters, which ``Budget()`` is): its ``max_skills`` and
    ``max_chars`` apply to the Library's own calls and afresh to each client named with
    :meth:`client`, at most ``max_clients`` of them at once
    (:mod:`skillsite.reader.client_budgets`). ``max_skills`` and ``max_chars`` say the same one
    limit at a time (``None``: no limit). ``verify`` hashes every file against the
    manifest first, as a long-lived server should. Otherwise each file is checked the first
    time it is read: its size and, with ``hash_on_read`` (the default), its sha256; a
    one-shot query (the CLI) turns ``hash_on_read`` off, because hashing the content
    shards a search touches costs seconds at 100k skills. ``shared`` keeps every client's
    budgets, counts and refs in a store that replicas share
    (:mod:`skillsite.reader.shared`; default: this process's memory).
    """

    def __init__(self, dist: str | os.PathLike[str] | Mapping[str, str | os.PathLike[str]]
                 = "dist", *, safe: bool = False,
                 budget: Budget | None = None, max_skills: int | None = None,
                 max_chars: int | None = None,
                 policy: SafePolicy | None = None, verify: bool = False,
                 hash_on_read: bool = True, max_clients: int = DEFAULT_MAX_CLIENTS,
                 shared: SharedStore | None = None) -> None:
        if budget is not None:
            if max_skills is not None or max_chars is not None:
                raise ValueError("pass budget, or max_skills and max_chars, not both")
            max_skills, max_chars = budget.max_skills, budget.max_chars
        self._mounts = Mounts(dist, verify=verify, hash_on_read=hash_on_read)
        #: The dist/ of each library, by name ("": a Library over one plain dist/).
        self.libraries = {name: mount.dist for name, mount in self._mounts.mounts.items()}
        self.dist = next(iter(self.libraries.values()))
        self.safe = safe
        self._limits = (max_skills, max_chars, policy)
        self._store = shared or MemoryStore()
        self.budget, self.ledger = self._fresh_budgets("local")
        #: False when nothing is budgeted: then no call waits for another.
        self.limited = safe or max_skills is not None or max_chars is not None
        self._lock: threading.RLock | None = threading.RLock() if self.limited else None
        idle = self.ledger.policy.window if self.ledger else 3600
        if self._store.shared:
            idle = 0  # the store keeps the state: an entry here is only a lock
        self._clients = Clients(self._fresh_budgets, max_clients=max_clients,
                                idle_seconds=idle)
        #: This caller's retrieval counters (context reports them); see :meth:`counting`.
        self.retrieval = Retrieval()

    def _fresh_budgets(self, key: str) -> tuple[Budget, SafeLedger | None]:
        max_skills, max_chars, policy = self._limits
        state = self._store.client(key)
        return (Budget(max_skills, max_chars, state),
                SafeLedger(policy, state) if self.safe else None)

    @contextlib.contextmanager
    def client(self, key: str) -> Iterator[Library]:
        """This Library as client ``key`` sees it: the same ``dist/``, with that client's
        own budgets, safe-mode counts and refs (created on its first call). Fails with
        ``too-many-clients`` when ``max_clients`` other clients hold budgets. ::

            with library.client(session_id) as mine:
                mine.read(ref)
        """
        entry = self._clients.acquire(key)
        try:
            view = copy.copy(self)
            view.budget, view.ledger, view._lock = entry.budget, entry.ledger, entry.lock
            yield view
        finally:
            self._clients.release(entry)

    def counting(self, retrieval: Retrieval) -> Library:
        """This Library with its calls counted in ``retrieval`` (a face keeps one per
        client: the MCP server, one per session)."""
        view = copy.copy(self)
        view.retrieval = retrieval
        return view

    def refused(self) -> list[ReaderError]:
        """The libraries that cannot be served now, each as its error (which names it and
        says to rebuild it); the others serve."""
        found = []
        for mount in self._mounts.mounts.values():
            try:
                mount.snapshot()
            except ReaderError as error:
                found.append(error)
        return found

    def forget_client(self, key: str) -> None:
        """Drop client ``key``'s budgets and refs (it has gone, e.g. its session closed)."""
        self._clients.forget(key)

    def session(self, library: str | None = None) -> Session:
        """A session of this Library's client on the builds ``dist/`` holds now (of its
        first library, or of ``library``), to call an operation function directly
        (tests, benchmarks). The methods below are the API: they also count the call,
        take the client's lock when it spends a budget, and run it once more if a new
        build is swapped in meanwhile."""
        return self._session(Call(self._mounts), library)

    def _session(self, call: Call, library: str | None = None) -> Session:
        name = self._mounts.names[0] if library is None else library
        return Session(self.budget, self.ledger, self.retrieval, call, name)

    def _as_client(self, operation: Operation[P, R]) -> AbstractContextManager[Any]:
        """A call of ``operation`` by this client: counted, and under the client's lock
        when the operation spends what the client's budgets limit."""
        self.retrieval.count(operation.name)
        if self._lock is not None and (operation.spends == BUDGET or (
                operation.spends == SAFE_COUNTS and self.safe)):
            return self._lock
        return NO_LOCK

    def _run(self, operation: Operation[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """``operation`` as this client, on one build of each library it reads (see
        skillsite.reader.snapshots and skillsite.reader.mounts)."""
        with self._as_client(operation):
            return self._mounts.run(lambda call: operation(self._session(call),
                                                           *args, **kwargs))

    def _run_across(self, operation: Operation[..., results.SearchResult],
                    library: str | Sequence[str] | None, *args: Any, **kwargs: Any
                    ) -> results.SearchResult:
        """``operation`` (search or recommend) on each library ``library`` names,
        merged (:mod:`skillsite.reader.across`)."""
        names = self._mounts.select(library)
        if not self._mounts.named:
            return self._run(operation, *args, **kwargs)
        from skillsite.reader.across import gather

        with self._as_client(operation):
            return self._mounts.run(lambda call: gather(self._session(call), operation, names,
                                                        *args, **kwargs))

    # -- operations ------------------------------------------------------------------

    def context(self) -> results.Context:
        """How many skills of each format and tag ``dist/`` holds, its version and build
        time, and a hint on how to query it."""
        from skillsite.reader import overview

        return self._run(overview.context)

    def search(self, query: str = "", *, limit: int = 10, tags: Iterable[str] = (),
               applies_to: Iterable[str] = (), format: str | None = None,
               compatibility: str | None = None, max_risk: str | None = None,
               plugin: str | None = None, collection: str | None = None,
               library: str | Sequence[str] = ALL,
               semantic: bool = False) -> results.SearchResult:
        """Compact candidates for ``query``, best first, never a body. A query equal to a
        skill's name returns that skill first; an empty query lists skills A-Z. ``limit``
        is clamped to 1-50; the filters keep skills with one of ``tags``, one of
        ``applies_to``, that ``format``, ``compatibility`` text, and a declared risk at
        most ``max_risk`` (low, medium, high), in that ``plugin`` or ``collection``.
        ``library`` searches every library (``*``), one by name, or a list of names.
        ``semantic`` fuses in skills near the query's meaning, as :meth:`recommend` does
        when ``dist/`` has vectors."""
        from skillsite.reader import querying

        return self._run_across(querying.search, library, query, limit=limit, tags=tags,
                         applies_to=applies_to, format=format, compatibility=compatibility,
                         max_risk=max_risk, plugin=plugin, collection=collection,
                         semantic=semantic)

    def recommend(self, task: str, *, environment: str | Sequence[str] | Mapping[str, Any]
                  | None = None, capabilities: str | Sequence[str] | None = None,
                  limit: int = 5, library: str | Sequence[str] = ALL,
                  semantic: bool = True) -> results.SearchResult:
        """Skills for a task, ranked with their intents and ``applies_to`` above bare
        lexical matches. ``environment`` (e.g. ``"kubernetes linux"`` or a mapping) is
        matched against ``applies_to`` and compatibility, ``capabilities`` against tags,
        intents and compatibility. ``library`` as for :meth:`search`. With vectors in
        ``dist/`` (a build with the semantic extra), skills near the task's meaning are
        fused in; each result's ``via`` says which half proposed it (``semantic=False``:
        lexical only)."""
        from skillsite.reader import querying

        return self._run_across(querying.recommend, library, task, environment=environment,
                                capabilities=capabilities, limit=limit, semantic=semantic)

    def open(self, ref: str) -> results.SkillInfo:
        """A skill's metadata and outline: headings with their sizes, links,
        ``depends_on``, supporting files and lint warnings. No body."""
        from skillsite.reader import opening

        return self._run(opening.open_skill, ref)

    def read(self, ref: str | None, section: str | int | None = None, *,
             start_line: int | None = None, end_line: int | None = None,
             max_chars: int = 4000, cursor: str | None = None,
             file: str | None = None) -> results.Passage:
        """One section (a heading, or its index from :meth:`open`), a line range, or the
        whole body, at most ``max_chars`` characters; with ``file`` (or a
        ``skill://<skill>/<path>`` ref), that supporting file of the skill. A cut is
        explicit: ``truncated``, a marker counted inside ``max_chars``, and a ``cursor``
        that reads on. ``references`` lists the text's ``{baseDir}/...`` paths as refs."""
        from skillsite.reader import reading

        return self._run(reading.read, ref, section, start_line=start_line,
                         end_line=end_line, max_chars=max_chars, cursor=cursor, file=file)

    def resolve(self, ref: str | None, args: str | Sequence[str] | None = None, *,
                max_chars: int = 12_000, cursor: str | None = None) -> results.Resolved:
        """The skill as a local SKILL.md: its metadata, its front matter and its body as a
        template with ``args`` rendered in (Mini-A's ``{{args}}``, ``{{argv}}``,
        ``{{arg1}}``; Claude Code's ``$ARGUMENTS``, ``$ARGUMENTS[N]``, ``$N``), at most
        ``max_chars`` with ``truncated`` and a ``cursor`` (pass the same ``args`` with it).
        Never installs or runs anything; not in safe mode."""
        from skillsite.reader import resolving

        return self._run(resolving.resolve, ref, args, max_chars=max_chars, cursor=cursor)

    def related(self, ref: str, limit: int = 10) -> results.Related:
        """Neighbours by links (both ways), ``depends_on`` (both ways) and shared tags,
        each with the reasons it is related; when those give fewer than
        :data:`~skillsite.reader.relating.CONTENT_BELOW`, skills alike by content too
        (shared distinctive terms, named in ``terms``). Never their bodies."""
        from skillsite.reader import relating

        return self._run(relating.related, ref, limit)

    def compose(self, ref: str, limit: int = 4) -> results.Composition:
        """Exactly one level of ``depends_on``, in declared order (``limit`` clamped to
        1-8): compact metadata and the references that name no skill, never bodies."""
        from skillsite.reader import relating

        return self._run(relating.compose, ref, limit)

    def prompt(self, refs: Sequence[str] | None = None, style: str = "xml",
               max_chars: int | None = None, *, location_root: str | None = None
               ) -> results.Prompt:
        """The skills block of a system prompt: ``xml`` as skills-ref's ``to-prompt``,
        ``markdown`` as Flux's ``build_skills_preamble``. ``refs`` default to every skill,
        then within :data:`~skillsite.reader.serving.DEFAULT_PROMPT_CHARS` unless
        ``max_chars`` says otherwise; whole skills only, and ``omitted`` names those left
        out. ``location_root`` is joined to each skill's path for ``<location>`` (default:
        the path in the corpus)."""
        from skillsite.reader import serving

        return self._run(serving.prompt, refs, style, max_chars, location_root=location_root)

    def verify(self) -> list[dict[str, str]]:
        """Hash every file against the manifest: the mismatches (empty when all is well)."""
        from skillsite.reader import overview

        return self._run(overview.verify)

    # -- for the MCP server: files, front matter and names ---------------------------

    def skill_file(self, name: str, path: str = "SKILL.md") -> bytes:
        """The bytes of a skill's file: ``SKILL.md`` verbatim (or a generated SKILL.md
        view for ``.skill.toml``, ``skill.json`` and Mini-A skills), its own file by name,
        or a supporting file by its path relative to the skill's folder. Counts against
        the Library's budgets."""
        from skillsite.reader import serving

        return self._run(serving.skill_file, name, path)

    def has_skill(self, skill_id: str) -> bool:
        """Whether ``dist/`` holds a skill with exactly this id (no bare-name lookup)."""
        return self.session().has_skill(skill_id)

    def skill_files(self, name: str) -> list[results.FileInfo]:
        """Every file of the skill (path relative to its folder, size, sha256)."""
        from skillsite.reader import serving

        return self._run(serving.skill_files, name)

    def front_matter(self, name: str) -> str:
        """The skill's front matter exactly as written (a manifest's whole text)."""
        from skillsite.reader import serving

        return self._run(serving.front_matter, name)

    def front_matter_data(self, name: str) -> dict[str, Any]:
        """The front matter of the SKILL.md :meth:`skill_file` serves, as a JSON object
        (the build's parse, kept in dist/): a generated view's is its name and description.
        """
        from skillsite.reader import serving

        return self._run(serving.front_matter_data, name)

    def names(self, cursor: str | None = None, limit: int = 100,
              prefix: str = "") -> results.NamePage:
        """Skill names A-Z, ``limit`` (1-1000) at a time; pass back ``cursor``. With a
        ``prefix``, only the names that start with it (``total`` counts those)."""
        from skillsite.reader import serving

        return self._run(serving.names, cursor, limit, prefix)
