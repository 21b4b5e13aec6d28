"""``search`` and ``recommend`` across several libraries (:mod:`skillsite.reader.mounts`):
each library answers as it would alone, and the answers are merged, best score first (A-Z
when browsing), cut to the limit. A library that cannot be read is listed in ``refused``
with its error, and the others answer.

In safe mode a search over several libraries counts as one search of the window, charged
with what the merged answer shows (each library's own charge is held back)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from skillsite.reader import results
from skillsite.reader.errors import ReaderError
from skillsite.reader.safe import SafeLedger
from skillsite.reader.session import Operation, Session

#: Errors that refuse one library of several, not the whole search.
REFUSALS = frozenset({"damaged-dist", "not-a-dist", "unsupported-artifact-version"})


def gather(session: Session, operation: Operation[..., results.SearchResult],
           names: Sequence[str], *args: Any, **kwargs: Any) -> results.SearchResult:
    """``operation`` (search or recommend) on each library of ``names``, merged."""
    every = session.libraries(list(names))
    refused = list(every.refused)
    held = HeldCharges(session.ledger) if session.ledger else None
    answers: list[results.SearchResult] = []
    searched: list[str] = []
    for library in every.sessions:
        try:
            answers.append(operation(
                Session(library.budget, held, library.retrieval, library.call, library.library),
                *args, **kwargs))
            searched.append(library.library)
        except ReaderError as error:
            if error.code not in REFUSALS:
                raise
            refused.append(session.call.mounts.get(library.library).damaged(error))
    if not answers:
        raise refused[0]
    merged = merge(answers)
    if session.ledger:
        session.ledger.charge("search", sum(len(c.title) + len(c.description)
                                            for c in merged.results))
    return results.SearchResult(
        query=merged.query, limit=merged.limit, browse=merged.browse, results=merged.results,
        semantic=any(answer.semantic for answer in answers),
        note=next((answer.note for answer in answers if answer.note), ""),
        libraries=tuple(searched),
        refused=tuple(error.to_dict() for error in refused))


def merge(answers: list[results.SearchResult]) -> results.SearchResult:
    """The best ``limit`` candidates of several libraries' answers to one query: by
    score (the libraries in the order given on ties), or A-Z by id when browsing."""
    first = answers[0]
    candidates = [c for answer in answers for c in answer.results]
    if first.browse:
        candidates.sort(key=lambda c: (c.id, c.library))
    else:
        candidates.sort(key=lambda c: -c.score)
    return results.SearchResult(query=first.query, limit=first.limit, browse=first.browse,
                                results=tuple(candidates[:first.limit]))


class HeldCharges(SafeLedger):
    """A client's safe-mode ledger for one library's part of a search over several: the
    same policy, state, refs and query checks, but the window charge is held back, and
    :func:`gather` makes it once for the merged answer (with the refs the call issued)."""

    def __init__(self, ledger: SafeLedger) -> None:
        super().__init__(ledger.policy, ledger.state)
        self.ledger = ledger

    def issue(self, name: str) -> str:
        return self.ledger.issue(name)

    def consume(self, ref: object) -> str:
        return self.ledger.consume(ref)

    def charge(self, operation: str, chars: int = 0) -> None:
        """Held back: the merged answer is charged once."""
