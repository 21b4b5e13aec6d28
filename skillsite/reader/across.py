"""``search`` and ``recommend`` across several libraries (:mod:`skillsite.reader.mounts`):
each library answers as it would alone, and the answers are merged, cut to the limit; the
result's ``merged_by`` says how:

- ``score``, when every library ranked by words alone: the lexical score weighs a query's
  terms by weights normalised to sum to 1, so a skill scores nearly the same whatever the
  size of its corpus (pdf-forms scores 5.8367 for "fill a pdf form" among 19 skills and
  5.8380 among 2) and the libraries' scores compare. Candidates keep their scores; a skill
  whose id is the query comes first, as it does in one library.
- ``rank``, when a library used meaning: its scores are fused ranks (reciprocal rank
  fusion), which say where a skill stands in its own library, not how well it matches, so
  the merge is a reciprocal-rank fusion of the ranked lists: each candidate scores
  ``1 / (RANK_K + its rank in its library)``, and each library's first hit scores alike.
- ``id``, when browsing: A-Z by id.

On equal scores or ranks a candidate whose name the query matched, then one that matched
more fields, comes first, then the order the libraries were given, then the id. A library
that cannot be read is listed in ``refused`` with its error, and the others answer.

In safe mode a search over several libraries counts as one search of the window, charged
with what the merged answer shows (each library's own charge is held back)."""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from skillsite.reader import results
from skillsite.reader.errors import ReaderError
from skillsite.reader.safe import SafeLedger
from skillsite.reader.session import Operation, Session

if TYPE_CHECKING:
    from skillsite.reader.budget import Budget

#: Errors that refuse one library of several, not the whole search.
REFUSALS = frozenset({"damaged-dist", "not-a-dist", "unsupported-artifact-version"})

#: The reciprocal-rank constant of the merge (the usual 60).
RANK_K = 60


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
        semantic=all(answer.semantic for answer in answers),
        note=_note(answers, searched),
        libraries=tuple(searched),
        refused=tuple(error.to_dict() for error in refused), merged_by=merged.merged_by)


def merge(answers: list[results.SearchResult]) -> results.SearchResult:
    """The best ``limit`` candidates of several libraries' answers to one query: by score
    when every library ranked by words alone, else by rank in their library (its score
    replaced by the merge's reciprocal-rank score), or A-Z by id when browsing; ties as
    the module says. ``merged_by`` says which."""
    first = answers[0]
    if first.browse:
        merged_by = "id"
        candidates = sorted((c for answer in answers for c in answer.results),
                            key=lambda c: (c.id, c.library))
    elif not any(answer.semantic for answer in answers):
        merged_by = "score"
        exact = _exact_ids(first.query)
        candidates = [c for _, c in sorted(
            ((order, c) for order, answer in enumerate(answers) for c in answer.results),
            key=lambda item: (item[1].id not in exact, -item[1].score, *_strength(item[1]),
                              item[0], item[1].id))]
    else:
        merged_by = "rank"
        ranked = sorted(((rank, order, c) for order, answer in enumerate(answers)
                         for rank, c in enumerate(answer.results, start=1)),
                        key=lambda item: (item[0], *_strength(item[2]), item[1], item[2].id))
        candidates = [dataclasses.replace(c, score=round(1 / (RANK_K + rank), 6))
                      for rank, _, c in ranked]
    return results.SearchResult(query=first.query, limit=first.limit, browse=first.browse,
                                results=tuple(candidates[:first.limit]), merged_by=merged_by)


def _exact_ids(query: str) -> set[str]:
    """The ids a query names exactly, as one library puts that skill first."""
    text = query.strip()
    return {text, text.lower(), text.removeprefix("skill:")}


def _strength(candidate: results.Candidate) -> tuple[bool, int]:
    """How well the query matched a candidate, comparable across libraries (unlike its
    score): its name first, then the number of fields matched; the smaller sorts first."""
    return "name" not in candidate.matched, -len(candidate.matched)


def _note(answers: list[results.SearchResult], searched: list[str]) -> str:
    """The first library's note, and which libraries did not use meaning when others did."""
    note = next((answer.note for answer in answers if answer.note), "")
    lexical = [name for name, answer in zip(searched, answers, strict=True)
               if not answer.semantic]
    if lexical and len(lexical) < len(answers):
        note = (f"only words ranked the skills of {', '.join(lexical)} (no vectors there); "
                + note).rstrip("; ")
    return note


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

    def charge(self, operation: str, chars: int = 0, *, budget: Budget | None = None,
               skill: str = "") -> None:
        """Held back: the merged answer is charged once (a search spends no budget)."""
        if budget is not None:
            raise ValueError("a search over several libraries spends no budget")
