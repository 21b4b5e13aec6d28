"""What every reader operation runs with: a :class:`Session`, and the :func:`operation`
declaration that says what the operation spends.

An operation is a plain function whose first parameter is the session::

    @operation("open", spends=SAFE_COUNTS)
    def open_skill(session: Session, ref: str) -> SkillInfo:
        skill = session.skill(ref)
        ...

The session carries the client's budget, safe-mode ledger and retrieval counters, and
the build the call answers from (its content store, index finder, graph and groups),
pinned for the whole call (:mod:`skillsite.reader.snapshots`). A function has no other
way to reach ``dist/``, so it cannot run unpinned; the
:class:`~skillsite.reader.library.Library` method that offers it runs it with
``Library._run``, which counts the call, takes the client's lock when the declaration
says the operation spends a budget, and pins the build.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Concatenate, Generic, Literal, ParamSpec, TypeVar

from skillsite.reader.errors import ReaderError
from skillsite.reader.views import name_of_ref, text_argument

if TYPE_CHECKING:
    from skillsite.reader.artifacts import Artifacts
    from skillsite.reader.budget import Budget
    from skillsite.reader.finder import Finder
    from skillsite.reader.neighbours import Graph
    from skillsite.reader.retrieval import Retrieval
    from skillsite.reader.safe import SafeLedger
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


class Session:
    """One call of one client on one build of ``dist/``. (A plain class, not a
    dataclass: making a dataclass costs about a millisecond of a cold query.)"""

    __slots__ = ("budget", "ledger", "retrieval", "snapshot")

    def __init__(self, budget: Budget, ledger: SafeLedger | None, retrieval: Retrieval,
                 snapshot: Snapshot) -> None:
        self.budget = budget
        self.ledger = ledger
        self.retrieval = retrieval
        self.snapshot = snapshot

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
    def dist(self) -> str:
        return str(self.snapshot.artifacts.dist)

    def graph(self) -> Graph:
        return self.snapshot.graph()

    def groups(self) -> dict[str, Any]:
        """``groups.json``: plugins, collections, origins and copies."""
        return self.snapshot.groups()

    # -- refs ------------------------------------------------------------------------

    def ref(self, name: str) -> str:
        """The ref a result gives for skill ``name``: the name, or a fresh opaque ref in
        safe mode."""
        return self.ledger.issue(name) if self.ledger else name

    def skill(self, ref: object) -> StoredSkill:
        """The skill ``ref`` names (a file ref is refused: see :meth:`skill_and_file`)."""
        skill, file = self.skill_and_file(ref, None)
        if file is not None:
            raise ReaderError("invalid-argument", f"{str(ref)[:200]!r} names a file of "
                              f"{skill.name}, not a skill; read it with `skillsite read "
                              f"{skill.name} --file {file[:200]}` (read(ref, file=...))")
        return skill

    def skill_and_file(self, ref: object, file: str | None
                       ) -> tuple[StoredSkill, str | None]:
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
        """Whether ``dist/`` holds a skill with exactly this id (no bare-name lookup)."""
        return self.store.get(skill_id) is not None

    def _named(self, ref: object) -> StoredSkill:
        name = self.ledger.consume(ref) if self.ledger else name_of_ref(ref)
        skill = self.store.get(name)
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
        ids = self.store.ids_named(name)
        if len(ids) > 1:
            shown = ", ".join(ids[:20]) + (f" and {len(ids) - 20} more" if len(ids) > 20 else "")
            raise ReaderError("ambiguous-name", f"{len(ids)} skills are called {name[:100]!r}: "
                              f"{shown}; name one by its id", ref=name[:100],
                              candidates=ids[:50])
        return self.store.get(ids[0]) if ids else None

    # -- spending --------------------------------------------------------------------

    def charge(self, name: str, chars: int) -> None:
        """``chars`` characters of skill ``name`` were served: the budget and counters."""
        self.budget.charge(name, chars)
        self.retrieval.served(chars)

    def refuse_in_safe_mode(self, operation: str) -> None:
        if self.safe:
            raise ReaderError("restricted-operation", f"{operation} is not offered in safe "
                              "mode; use search, open and read")


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

