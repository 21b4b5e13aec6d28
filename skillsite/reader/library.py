"""``Library``: the runtime reader, everything answered from ``dist/`` alone.

No corpus, no linting, no network: the content store answers ``open`` and ``read`` with
one indexed lookup, the prebuilt index proposes search candidates and skillsite's ranking
orders them. Mini-A's rules hold: the full catalog is never put into a prompt unasked,
there is never one tool per skill, search never returns a body, and related skills are
never preloaded. A Library is safe to share between threads.
"""
from __future__ import annotations

import contextlib
import copy
import json
import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from skillsite.reader import results
from skillsite.reader.artifacts import Artifacts
from skillsite.reader.budget import Budget
from skillsite.reader.clients import DEFAULT_MAX_CLIENTS, Clients, one_at_a_time
from skillsite.reader.errors import ReaderError
from skillsite.reader.finder import Finder, risk_of
from skillsite.reader.neighbours import Graph
from skillsite.reader.querying import Queries
from skillsite.reader.retrieval import Retrieval
from skillsite.reader.safe import SafeLedger, SafePolicy
from skillsite.reader.serving import Serving
from skillsite.reader.shelf import Shelf, StoredSkill
from skillsite.reader.snapshots import Snapshots, counted, pinned_operation
from skillsite.reader.views import clamp, name_of_ref, one_line, text_argument
from skillsite.store.groups import GROUPS

HINT = ("search(query) or recommend(task) for candidates; open(ref) for a skill's outline; "
        "read(ref, section) for one section, read(ref) for the body, cut to max_chars with a "
        "cursor to read on; related(ref) and compose(ref) for neighbours and prerequisites.")
MAX_URI_CHARS = 1024
#: ``related`` adds skills alike by content when links, depends_on and tags give fewer.
CONTENT_BELOW = 3


class Library(Queries, Serving):
    """Query the ``dist/`` built by ``skillsite build``.

    ``safe`` turns on safe mode for untrusted clients (opaque single-use refs, budgets per
    time window, see :mod:`skillsite.reader.safe`); those window budgets are always on.

    By default nothing else is budgeted: a standalone server or a program reads as much as
    it needs. ``budget`` bounds each client as an agent runtime bounds a run (Mini-A: 3
    skills and 12,000 characters, which ``Budget()`` is): its ``max_skills`` and
    ``max_chars`` apply to the Library's own calls and afresh to each client named with
    :meth:`client`, at most ``max_clients`` of them at once
    (:mod:`skillsite.reader.clients`). ``max_skills`` and ``max_chars`` say the same one
    limit at a time (``None``: no limit). ``verify`` hashes every file against the
    manifest first, as a long-lived server should. Otherwise each file is checked the first
    time it is read: its size and, with ``hash_on_read`` (the default), its sha256; a
    one-shot query (the CLI) turns ``hash_on_read`` off, because hashing the content
    shards a search touches costs seconds at 100k skills.
    """

    def __init__(self, dist: str | os.PathLike[str] = "dist", *, safe: bool = False,
                 budget: Budget | None = None, max_skills: int | None = None,
                 max_chars: int | None = None,
                 policy: SafePolicy | None = None, verify: bool = False,
                 hash_on_read: bool = True, max_clients: int = DEFAULT_MAX_CLIENTS) -> None:
        if budget is not None:
            if max_skills is not None or max_chars is not None:
                raise ValueError("pass budget, or max_skills and max_chars, not both")
            max_skills, max_chars = budget.max_skills, budget.max_chars
        self.dist = Path(dist)
        self._snapshots = Snapshots(self.dist, verify, hash_on_read)
        self.safe = safe
        self._limits = (max_skills, max_chars, policy)
        self.budget, self.ledger = self._fresh_budgets()
        #: False when nothing is budgeted: then no call waits for another.
        self.limited = safe or max_skills is not None or max_chars is not None
        self._lock: threading.RLock | None = threading.RLock() if self.limited else None
        idle = self.ledger.policy.window if self.ledger else 3600
        self._clients = Clients(self._fresh_budgets, max_clients=max_clients,
                                idle_seconds=idle)
        #: This caller's retrieval counters (context reports them); see :meth:`counting`.
        self.retrieval = Retrieval()

    def _fresh_budgets(self) -> tuple[Budget, SafeLedger | None]:
        max_skills, max_chars, policy = self._limits
        return Budget(max_skills, max_chars), SafeLedger(policy) if self.safe else None

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

    def _charge(self, name: str, chars: int) -> None:
        """``chars`` characters of skill ``name`` were served: the budget and counters."""
        self.budget.charge(name, chars)
        self.retrieval.served(chars)

    def forget_client(self, key: str) -> None:
        """Drop client ``key``'s budgets and refs (it has gone, e.g. its session closed)."""
        self._clients.forget(key)

    # The build this operation answers from (see skillsite.reader.snapshots). The mixins
    # declare these as plain attributes; here they are read-only views of the snapshot.
    @property
    def artifacts(self) -> Artifacts:  # type: ignore[override]
        return self._snapshots.pinned().artifacts

    @property
    def _shelf(self) -> Shelf:  # type: ignore[override]
        return self._snapshots.pinned().shelf

    @property
    def _finder(self) -> Finder:  # type: ignore[override]
        return self._snapshots.pinned().finder

    # -- refs ------------------------------------------------------------------------

    def _skill(self, ref: object) -> StoredSkill:
        skill, file = self._skill_and_file(ref, None)
        if file is not None:
            raise ReaderError("invalid-argument", f"{str(ref)[:200]!r} names a file of "
                              f"{skill.name}, not a skill; read it with `skillsite read "
                              f"{skill.name} --file {file[:200]}` (read(ref, file=...))")
        return skill

    def _skill_and_file(self, ref: object, file: str | None) -> tuple[StoredSkill, str | None]:
        """The skill ``ref`` names, and the file of it to read: ``file``, or the one a
        ``skill://<skill>/<path>`` ref names (None: the skill itself)."""
        if not self.ledger and isinstance(ref, str) and ref.startswith("skill://"):
            from skillsite.reader.uris import parse_ref

            ref, named = parse_ref(text_argument(ref, "a ref", MAX_URI_CHARS).strip(),
                                   self.has_skill)
            if named and file is not None and named != file:
                raise ReaderError("invalid-argument", f"the ref names the file {named[:200]!r} "
                                  f"and file names {file[:200]!r}; pass one of them")
            file = file or named or None
        return self._named(ref), file

    def _named(self, ref: object) -> StoredSkill:
        name = self.ledger.consume(ref) if self.ledger else name_of_ref(ref)
        skill = self._shelf.get(name)
        if skill is None and not self.ledger:
            skill = self._by_bare_name(name)
        if skill is None:
            raise ReaderError("not-found", f"no skill called {name[:100]!r} in {self.dist}; "
                              "search for it, or list names with `skillsite search ''`",
                              ref=name[:100])
        return skill

    def _by_bare_name(self, name: str) -> StoredSkill | None:
        """The one skill whose id ends in the bare ``name`` (``access`` for
        ``telegram:access``); several are an error that lists their ids. Only asked
        when ``name`` is no id, so a lookup by id costs nothing more."""
        ids = self._shelf.ids_named(name)
        if len(ids) > 1:
            shown = ", ".join(ids[:20]) + (f" and {len(ids) - 20} more" if len(ids) > 20 else "")
            raise ReaderError("ambiguous-name", f"{len(ids)} skills are called {name[:100]!r}: "
                              f"{shown}; name one by its id", ref=name[:100],
                              candidates=ids[:50])
        return self._shelf.get(ids[0]) if ids else None

    def _ref(self, name: str) -> str:
        return self.ledger.issue(name) if self.ledger else name

    def _refuse_in_safe_mode(self, operation: str) -> None:
        if self.safe:
            raise ReaderError("restricted-operation", f"{operation} is not offered in safe "
                              "mode; use search, open and read")

    # -- operations ------------------------------------------------------------------

    def context(self) -> results.Context:
        """How many skills of each format and tag ``dist/`` holds, its version and build
        time, and a hint on how to query it."""
        manifest = self.artifacts.manifest
        counts = manifest.get("counts") or {}
        tags = self._graph_loaded().tag_counts()
        groups = self._groups()
        top = sorted(tags.items(), key=lambda item: (-item[1], item[0]))[:50]
        budgets: dict[str, Any] = self.budget.to_dict()
        if self.ledger:
            budgets["safe"] = self.ledger.to_dict()
        return results.Context(
            skills=int(counts.get("skills", 0)), formats=dict(counts.get("formats", {})),
            tags=tuple(results.TagCount(tag, count) for tag, count in top),
            tags_total=len(tags), artifact_version=str(manifest["artifact_version"]),
            skillsite_version=str(manifest.get("skillsite_version", "")),
            build_time=str(manifest.get("build_time", "")),
            index_backend=self.artifacts.backend, safe=self.safe, budgets=budgets, hint=HINT,
            retrieval=self.retrieval.to_dict(),
            plugins=tuple(groups.get("plugins", ())),
            collections=tuple(groups.get("collections", ())))

    def open(self, ref: str) -> results.SkillInfo:
        """A skill's metadata and outline: headings with their sizes, links,
        ``depends_on``, supporting files and lint warnings. No body."""
        skill = self._skill(ref)
        if self.ledger:
            self.ledger.charge("read")
        meta = skill.meta
        hidden = self.safe
        origin = self._groups().get("origins", {}).get(skill.name) or {}
        return results.SkillInfo(
            ref=self._ref(skill.name), name=str(meta.get("name", skill.name)),
            title=skill.title,
            description=skill.description, format=skill.format,
            path=None if hidden else skill.path, version=meta.get("version"),
            tags=tuple(meta.get("tags", ())), intents=tuple(meta.get("intents", ())),
            applies_to=tuple(meta.get("applies_to", ())),
            compatibility=str(meta.get("compatibility", "")), risk=risk_of(skill),
            depends_on=tuple(meta.get("depends_on", ())),
            headings=tuple(results.Heading(s.index, s.heading, s.level, s.start_line,
                                           s.end_line, s.length) for s in skill.spans),
            links=() if hidden else tuple(skill.local(link) for link in meta.get("links", ())),
            files=() if hidden else tuple(skill.local(path) for path in skill.files),
            warnings=tuple(results.Warning(*row) for row in meta.get("warnings", ())),
            chars=len(skill.body), lines=skill.lines, id=skill.name,
            plugin=str(meta.get("plugin", "")), collection=str(meta.get("collection", "")),
            errors=tuple(results.Warning(*row) for row in meta.get("errors", ())),
            copies=tuple(i for i in self._groups().get("copies", {}).get(skill.sha256, ())
                         if i != skill.name),
            source_url=None if hidden else origin.get("source_url"),
            changed=origin.get("changed"), trust=_trust(meta, hidden))

    def read(self, ref: str | None, section: str | int | None = None, *,
             start_line: int | None = None, end_line: int | None = None,
             max_chars: int = 4000, cursor: str | None = None,
             file: str | None = None) -> results.Passage:
        """One section (a heading, or its index from :meth:`open`), a line range, or the
        whole body, at most ``max_chars`` characters; with ``file`` (or a
        ``skill://<skill>/<path>`` ref), that supporting file of the skill. A cut is
        explicit: ``truncated``, a marker counted inside ``max_chars``, and a ``cursor``
        that reads on. ``references`` lists the text's ``{baseDir}/...`` paths as refs."""
        from skillsite.reader.reading import read_passage

        return read_passage(self, ref, section, start_line, end_line, max_chars, cursor,
                            file)

    def resolve(self, ref: str | None, args: str | Sequence[str] | None = None, *,
                max_chars: int = 12_000, cursor: str | None = None) -> results.Resolved:
        """The skill as a local SKILL.md: its metadata, its front matter and its body as a
        template with ``args`` rendered in (Mini-A's ``{{args}}``, ``{{argv}}``,
        ``{{arg1}}``; Claude Code's ``$ARGUMENTS``, ``$ARGUMENTS[N]``, ``$N``), at most
        ``max_chars`` with ``truncated`` and a ``cursor`` (pass the same ``args`` with it).
        Never installs or runs anything; not in safe mode."""
        from skillsite.reader.resolving import resolve_skill

        return resolve_skill(self, ref, args, max_chars, cursor)

    def related(self, ref: str, limit: int = 10) -> results.Related:
        """Neighbours by links (both ways), ``depends_on`` (both ways) and shared tags,
        each with the reasons it is related; when those give fewer than
        :data:`CONTENT_BELOW`, skills alike by content too (shared distinctive terms,
        named in ``terms``). Never their bodies."""
        skill = self._skill(ref)
        limit = clamp(limit, 1, 50, "limit")
        if self.ledger:
            self.ledger.charge("search")
        found = []
        for name, score, reasons in self._graph_loaded().neighbours(skill.name):
            other = self._shelf.get(name)
            if other is not None:
                found.append(results.Neighbour(self._ref(name), name, one_line(other.title),
                                               one_line(other.description), reasons, score))
                if len(found) >= limit:
                    break
        if len(found) < min(CONTENT_BELOW, limit):
            found += self._alike(skill.name, {n.name for n in found}, limit - len(found))
        return results.Related(self._ref(skill.name), skill.name, tuple(found))

    def _alike(self, name: str, listed: set[str], room: int) -> list[results.Neighbour]:
        from skillsite.reader.alike import alike

        hits = [(other, score, terms) for other, score, terms
                in alike(self._finder, name, room + len(listed)) if other not in listed]
        shown = self._finder.hits([other for other, _, _ in hits[:room]])
        return [results.Neighbour(self._ref(other), other, one_line(shown[other].title),
                                  one_line(shown[other].description),
                                  (f"similar content: {', '.join(terms)}",), score, terms)
                for other, score, terms in hits[:room] if other in shown]

    def compose(self, ref: str, limit: int = 4) -> results.Composition:
        """Exactly one level of ``depends_on``, in declared order (``limit`` clamped to
        1-8): compact metadata and the references that name no skill, never bodies."""
        skill = self._skill(ref)
        limit = clamp(limit, 1, 8, "limit")
        if self.ledger:
            self.ledger.charge("search")
        found: list[results.Compact] = []
        unresolved: list[str] = []
        declared = [str(name) for name in skill.meta.get("depends_on", ())]
        for name in declared:
            other = self._shelf.get(name)
            if other is None:
                unresolved.append(name)
            elif len(found) < limit:
                found.append(results.Compact(self._ref(name), name, one_line(other.title),
                                             one_line(other.description), other.format,
                                             tuple(other.meta.get("tags", ()))))
        truncated = len(declared) - len(unresolved) > limit
        return results.Composition(self._ref(skill.name), skill.name, tuple(found),
                                   tuple(unresolved), truncated)

    def _groups(self) -> dict[str, Any]:
        """``groups.json``: the plugins and collections of ``dist/`` (read once per
        snapshot of it)."""
        artifacts = self.artifacts
        cached = getattr(self, "_groups_read", None)
        if cached is not None and cached[0] is artifacts:
            return cached[1]
        groups = self._read_groups(artifacts)
        self._groups_read = (artifacts, groups)
        return groups

    @staticmethod
    def _read_groups(artifacts: Artifacts) -> dict[str, Any]:
        if not artifacts.listed(GROUPS):
            return {}
        path = artifacts.require(GROUPS)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise artifacts.damaged(GROUPS, f"cannot be read ({error})") from None
        return data if isinstance(data, dict) else {}

    def verify(self) -> list[dict[str, str]]:
        """Hash every file against the manifest: the mismatches (empty when all is well)."""
        return [m.to_dict() for m in self.artifacts.verify()]

    # -- helpers ---------------------------------------------------------------------

    def _graph_loaded(self) -> Graph:
        return self._snapshots.pinned().graph()


# Every public operation answers from one build, even while a new one is swapped in; those
# that spend a client's budgets run one at a time per client (skillsite.reader.clients).
for _operation in ("compose", "context", "front_matter", "names", "open", "prompt", "read",
                   "recommend", "related", "resolve", "search", "skill_file", "skill_files",
                   "verify"):
    _pinned = counted(_operation, pinned_operation(getattr(Library, _operation)))
    if _operation in ("read", "resolve", "skill_file"):
        _pinned = one_at_a_time(_pinned)
    elif _operation in ("compose", "open", "recommend", "related", "search"):
        _pinned = one_at_a_time(_pinned, safe_only=True)
    setattr(Library, _operation, _pinned)


def _trust(meta: dict[str, Any], hidden: bool) -> dict[str, Any] | None:
    """The trust assessment; in safe mode its evidence keeps rule and line but not
    paths, as the rest of ``open`` does."""
    trust = meta.get("trust")
    if not isinstance(trust, dict) or not hidden:
        return trust if isinstance(trust, dict) else None
    return {**trust, "reasons": [{k: v for k, v in reason.items() if k != "path"}
                                 for reason in trust.get("reasons", ())]}
