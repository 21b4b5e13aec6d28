"""What every reader operation runs with: a :class:`Session`, and the :func:`operation`
declaration that says what the operation spends.

An operation is a plain function whose first parameter is the session::

    @operation("open", spends=SAFE_COUNTS)
    def open_skill(session: Session, ref: str) -> SkillInfo:
        session, skill = session.find(ref)   # the session of the skill's library
        ...

The session carries the client's budget, safe-mode ledger and retrieval counters, and
the build the call answers from (its content store, index finder, graph and groups),
pinned for the whole call (:mod:`skillsite.reader.snapshots`): of one library, and, when
a Library reads several (:mod:`skillsite.reader.mounts`), of the others on first use. A
function has no other way to reach ``dist/``, so it cannot run unpinned; the
:class:`~skillsite.reader.library.Library` method that offers it runs it with
``Library._run``, which counts the call, takes the client's lock when the declaration
says the operation spends a budget, and pins the build.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import (
    TYPE_CHECKING,
    Any,
    Concatenate,
    Generic,
    Literal,
    NamedTuple,
    ParamSpec,
    TypeVar,
)

from skillsite.reader.errors import LIST_NAMES, ReaderError
from skillsite.reader.views import name_of_ref, text_argument

if TYPE_CHECKING:
    from skillsite.reader.artifacts import Artifacts
    from skillsite.reader.budget import Budget
    from skillsite.reader.finder import Finder
    from skillsite.reader.mounts import Call
    from skillsite.reader.neighbours import Graph
    from skillsite.reader.retrieval import Retrieval
    from skillsite.reader.safe import SafeLedger
    from skillsite.reader.semantic import Semantic
    from skillsite.reader.shelf import Shelf, StoredSkill
    from skillsite.reader.snapshots import Snapshot

P = ParamSpec("P")
R = TypeVar("R")

#: What an operation spends, which decides whether its calls by one client run one at a
#: time (under the client's lock), so that two of them cannot both pass a check that
#: only one may pass:
#: ``budget``: skill text, counted against the client's budget (always locked when the
#: Library keeps budgets); ``safe counts``: safe mode's window counts and refs (locked in
#: safe mode); ``nothing``: calls run side by side.
Spends = Literal["budget", "safe counts", "nothing"]
BUDGET: Spends = "budget"
SAFE_COUNTS: Spends = "safe counts"
NOTHING: Spends = "nothing"
MAX_URI_CHARS = 1024


class Found(NamedTuple):
    """A skill a ref names, with the session of the library that holds it."""

    session: Session
    skill: StoredSkill


class Libraries(NamedTuple):
    """The libraries a call reads: a session of each that serves, and the errors of
    those refused (each names its library and says to rebuild it)."""

    sessions: list[Session]
    refused: list[ReaderError]


class Session:
    """One call of one client, on one build of each library it reads. (A plain class,
    not a dataclass: making a dataclass costs about a millisecond of a cold query.)"""

    __slots__ = ("_snapshot", "budget", "call", "ledger", "library", "retrieval")

    def __init__(self, budget: Budget, ledger: SafeLedger | None, retrieval: Retrieval,
                 call: Call, library: str = "") -> None:
        self.budget = budget
        self.ledger = ledger
        self.retrieval = retrieval
        self.call = call
        #: The library this session reads ("" for a Library over one plain dist/).
        self.library = library
        self._snapshot: Snapshot | None = None

    @property
    def snapshot(self) -> Snapshot:
        """This library's build, pinned for the whole call."""
        if self._snapshot is None:
            self._snapshot = self.call.snapshot(self.library)
        return self._snapshot

    @property
    def safe(self) -> bool:
        """Safe mode: opaque single-use refs and window budgets (the ledger keeps them)."""
        return self.ledger is not None

    @property
    def artifacts(self) -> Artifacts:
        return self.snapshot.artifacts

    @property
    def store(self) -> Shelf:
        """The content store: one skill per indexed lookup."""
        return self.snapshot.shelf

    @property
    def finder(self) -> Finder:
        """The search index and ranking."""
        return self.snapshot.finder

    @property
    def semantic(self) -> Semantic:
        """The build's vectors and the embedding model, loaded on first use."""
        return self.snapshot.semantic

    @property
    def dist(self) -> str:
        return str(self.call.mounts.get(self.library).dist)

    def graph(self) -> Graph:
        return self.snapshot.graph()

    def groups(self) -> dict[str, Any]:
        """``groups.json``: plugins, collections, origins and copies."""
        return self.snapshot.groups()

    # -- libraries -------------------------------------------------------------------

    def at(self, library: str) -> Session:
        """This call's session of another library."""
        return Session(self.budget, self.ledger, self.retrieval, self.call, library)

    def libraries(self, names: list[str] | None = None) -> Libraries:
        """A session of each library (or of ``names``) that serves, and the refusals."""
        found = Libraries([], [])
        for name in self.call.mounts.names if names is None else names:
            try:
                self.call.snapshot(name)
            except ReaderError as error:
                found.refused.append(error)
                continue
            found.sessions.append(self.at(name))
        return found

    def qualified(self, name: str) -> str:
        """Skill ``name`` of this library as refs name it across libraries (``@wiki/pdf``;
        the name itself for a Library over one plain dist/)."""
        return f"@{self.library}/{name}" if self.library else name

    # -- refs ------------------------------------------------------------------------

    def ref(self, name: str) -> str:
        """The ref a result gives for skill ``name`` of this library: its qualified name,
        or a fresh opaque ref in safe mode."""
        qualified = self.qualified(name)
        return self.ledger.issue(qualified) if self.ledger else qualified

    def find(self, ref: object) -> Found:
        """The skill ``ref`` names (a file ref is refused: see :meth:`find_file`)."""
        found, file = self.find_file(ref, None)
        if file is not None:
            name = found.session.qualified(found.skill.name)
            raise ReaderError("invalid-argument", f"{str(ref)[:200]!r} names a file of "
                              f"{name}, not a skill; read it with `skillsite read "
                              f"{name} --file {file[:200]}` (read(ref, file=...))")
        return found

    def find_file(self, ref: object, file: str | None) -> tuple[Found, str | None]:
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

    def has_skill(self, skill_id: str) -> bool:
        """Whether a library holds a skill with exactly this id (``@wiki/pdf`` when the
        libraries are named; no bare-name lookup)."""
        try:
            library, name = self.call.mounts.split(skill_id)
        except ReaderError:
            return False
        if library is None:
            return not self.call.mounts.named and self.store.get(name) is not None
        try:
            return self.at(library).store.get(name) is not None
        except ReaderError:
            return False  # a refused library holds nothing

    def _named(self, ref: object) -> Found:
        name = self.ledger.consume(ref) if self.ledger else name_of_ref(ref)
        if not self.call.mounts.named:
            return Found(self, self.skill_named(name))
        library, name = self.call.mounts.split(name)
        if library is not None:
            session = self.at(library)
            return Found(session, session.skill_named(name))
        return self._across_libraries(name)

    def skill_named(self, name: str) -> StoredSkill:
        """The skill of this library with the id ``name``, or else the one whose id ends
        in the bare ``name`` (not in safe mode)."""
        skill = self.store.get(name)
        if skill is None and not self.ledger:
            skill = self._by_bare_name(name)
        if skill is None:
            raise ReaderError("not-found", f"no skill called {name[:100]!r} in {self.dist}; "
                              f"search for it, or list names with {LIST_NAMES}",
                              ref=name[:100])
        return skill

    def _by_bare_name(self, name: str) -> StoredSkill | None:
        """The one skill whose id ends in the bare ``name`` (``access`` for
        ``telegram:access``); several are an error that lists their ids. Only asked
        when ``name`` is no id, so a lookup by id costs nothing more."""
        ids = self.store.ids_named(name)
        if len(ids) > 1:
            _ambiguous(name, ids)
        return self.store.get(ids[0]) if ids else None

    def _across_libraries(self, name: str) -> Found:
        """A ref without a library prefix, when the libraries are named: the one skill
        with that id in any library, else the one whose id ends in that bare name."""
        every = self.libraries()
        held = [(s, skill) for s in every.sessions if (skill := s.store.get(name)) is not None]
        if not held:
            ids = [(s, i) for s in every.sessions for i in s.store.ids_named(name)]
            if len(ids) > 1:
                _ambiguous(name, [s.qualified(i) for s, i in ids])
            held = [(s, skill) for s, i in ids if (skill := s.store.get(i)) is not None]
        if len(held) > 1:
            _ambiguous(name, [s.qualified(skill.name) for s, skill in held])
        if not held:
            refused = "".join(f"; {error.message}" for error in every.refused)
            raise ReaderError("not-found", f"no library holds a skill called {name[:100]!r}; "
                              f"search for it, or list names with {LIST_NAMES}"
                              f"{refused}", ref=name[:100])
        return Found(*held[0])

    # -- spending --------------------------------------------------------------------

    def allowance(self, name: str, wanted: int) -> int:
        """How many characters of skill ``name`` of this library may be served now."""
        return self.budget.allowance(self.qualified(name), wanted)

    def charge(self, name: str, chars: int, *, window: str | None = None) -> None:
        """``chars`` characters of skill ``name`` were served: the budget and counters;
        in safe mode, with ``window`` (``read``), also that operation in the window, in
        the same step as the budget (both or neither: :meth:`SafeLedger.charge
        <skillsite.reader.safe.SafeLedger.charge>`)."""
        if window is not None and self.ledger:
            self.ledger.charge(window, chars, budget=self.budget, skill=self.qualified(name))
        else:
            self.budget.charge(self.qualified(name), chars)
        self.retrieval.served(chars)

    def refuse_in_safe_mode(self, operation: str) -> None:
        if self.safe:
            raise ReaderError("restricted-operation", f"{operation} is not offered in safe "
                              "mode; use search, open and read")


def _ambiguous(name: str, ids: list[str]) -> None:
    shown = ", ".join(ids[:20]) + (f" and {len(ids) - 20} more" if len(ids) > 20 else "")
    raise ReaderError("ambiguous-name", f"{len(ids)} skills are called {name[:100]!r}: "
                      f"{shown}; name one by its id", ref=name[:100], candidates=ids[:50])


class Operation(Generic[P, R]):
    """A reader operation: its name (as the retrieval counters count it), what it spends,
    and its function."""

    __slots__ = ("function", "name", "spends")

    def __init__(self, name: str, spends: Spends,
                 function: Callable[Concatenate[Session, P], R]) -> None:
        self.name = name
        self.spends = spends
        self.function = function

    def __call__(self, session: Session, *args: P.args, **kwargs: P.kwargs) -> R:
        return self.function(session, *args, **kwargs)


def operation(name: str, *, spends: Spends
              ) -> Callable[[Callable[Concatenate[Session, P], R]], Operation[P, R]]:
    """Declare the function below as the reader operation ``name`` that spends
    ``spends`` (:data:`BUDGET`, :data:`SAFE_COUNTS` or :data:`NOTHING`)."""
    def declare(function: Callable[Concatenate[Session, P], R]) -> Operation[P, R]:
        return Operation(name, spends, function)
    return declare

