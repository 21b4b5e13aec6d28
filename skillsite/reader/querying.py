"""``search`` and ``recommend``: compact candidates from the index, never a body."""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from skillsite.entries import FORMATS, RISKS
from skillsite.index.ranking import matched_fields
from skillsite.index.ranking_record import WHOLE
from skillsite.reader import results
from skillsite.reader.boosts import (
    APPLIES_TO_BONUS,
    CAPABILITY_BONUS,
    INTENT_BONUS,
    NOT_FOR_PENALTY,
    NOT_FOR_UNLESS,
    USE_WHEN_BONUS,
    Boost,
)
from skillsite.reader.errors import ReaderError
from skillsite.reader.filters import Filters
from skillsite.reader.semantic import hybrid
from skillsite.reader.session import SAFE_COUNTS, Session, operation
from skillsite.reader.shelf import Hit, Listing, StoredSkill
from skillsite.reader.views import DESCRIPTION_CHARS, clamp, one_line, text_argument, words

MAX_QUERY_CHARS = 2000
#: The ranking record of a skill whose store lost it meanwhile: it matches nothing.
NO_RECORD = [""] * (WHOLE + 1)


@operation("search", spends=SAFE_COUNTS)
def search(session: Session, query: str = "", *, limit: int = 10, tags: Iterable[str] = (),
           applies_to: Iterable[str] = (), format: str | None = None,
           compatibility: str | None = None, max_risk: str | None = None,
           plugin: str | None = None, collection: str | None = None,
           semantic: bool = False) -> results.SearchResult:
    """Compact candidates for ``query``, best first, never a body. A query equal to a
    skill's name returns that skill first; an empty query lists skills A-Z. ``limit``
    is clamped to 1-50; the filters keep skills with one of ``tags``, one of
    ``applies_to``, that ``format``, ``compatibility`` text, and a declared risk at
    most ``max_risk`` (low, medium, high), in that ``plugin`` or ``collection``.
    ``semantic`` fuses in skills near the query's meaning, as ``recommend`` does."""
    query = text_argument(query, "query", MAX_QUERY_CHARS)
    filters = _filters(tags, applies_to, format, compatibility, max_risk)
    if plugin is not None or collection is not None:
        filters = replace(filters,
                          plugin=text_argument(plugin, "plugin", 200) if plugin else None,
                          collection=text_argument(collection, "collection", 200)
                          if collection else None)
    limit = clamp(limit, 1, 50, "limit")
    if session.ledger:
        session.ledger.check_query(query)
        limit = min(limit, session.ledger.policy.search_limit)
    if not query.strip():
        return _answer(session, query, limit, [(skill, 0.0) for skill in
                                               _browse(session, filters, limit)], browse=True)
    if semantic:
        return _hybrid(session, query, query, filters, limit, (), asked=True)
    return _answer(session, query, limit, _ranked(session, query, filters, limit, ()),
                   browse=False)


@operation("recommend", spends=SAFE_COUNTS)
def recommend(session: Session, task: str, *,
              environment: str | Sequence[str] | Mapping[str, Any] | None = None,
              capabilities: str | Sequence[str] | None = None,
              limit: int = 5, semantic: bool = True) -> results.SearchResult:
    """Skills for a task: search's ranking of more candidates, plus what the task shares
    with each skill's "use when" text and intents, less what it shares only with its "not
    for" text (:mod:`skillsite.index.clauses`). ``environment`` (e.g. ``"kubernetes
    linux"`` or a mapping) is matched against ``applies_to`` and compatibility,
    ``capabilities`` against tags, intents and compatibility. With vectors in dist/, skills
    near the task's meaning are fused in; ``semantic=False`` keeps it lexical."""
    task = text_argument(task, "task", MAX_QUERY_CHARS)
    where, able = words(environment), words(capabilities)
    limit = clamp(limit, 1, 50, "limit")
    if session.ledger:
        session.ledger.check_query(task)
        limit = min(limit, session.ledger.policy.search_limit)
    boosts = (Boost(INTENT_BONUS, task, ("intents",)),
              Boost(USE_WHEN_BONUS, task, ("use_when",)),
              # "not for" text names neighbours of the skill's own task: only the task's
              # terms that the skill's own text lacks count against it.
              Boost(-NOT_FOR_PENALTY, task, ("not_for",), NOT_FOR_UNLESS),
              Boost(APPLIES_TO_BONUS, where or task, ("applies_to", "compatibility")),
              Boost(CAPABILITY_BONUS, able, ("tags", "intents", "compatibility")))
    query = " ".join(part for part in (task, where, able) if part)
    if not semantic:
        return _answer(session, query, limit,
                       _ranked(session, query, Filters(), limit, boosts), browse=False)
    return _hybrid(session, query, task, Filters(), limit, boosts)


def _hybrid(session: Session, query: str, meaning: str, filters: Filters, limit: int,
            boosts: Sequence[Boost], asked: bool = False) -> results.SearchResult:
    """Lexical and semantic candidates fused (:mod:`skillsite.reader.semantic`); the
    lexical ranking alone when ``dist/`` has no vectors or the extra is missing."""
    fused = hybrid(session.finder, session.semantic, query, meaning, filters, limit, boosts,
                   asked)
    hits = _with_exact(session, query, filters, fused.hits, limit)
    return _answer(session, query, limit, hits, browse=False, via=fused.via,
                   semantic=fused.ran, note=fused.note)


def _ranked(session: Session, query: str, filters: Filters, limit: int,
            boosts: Sequence[Boost]) -> list[tuple[Hit, float]]:
    return _with_exact(session, query, filters,
                       session.finder.ranked(query, filters, limit, boosts), limit)


def _with_exact(session: Session, query: str, filters: Filters,
                hits: list[tuple[Hit, float]], limit: int) -> list[tuple[Hit, float]]:
    """``hits`` with the skill named ``query`` first, whatever its rank."""
    exact = session.finder.exact(query)
    if exact is not None and filters:
        listing = session.finder.listings([exact.name]).get(exact.name)
        exact = exact if listing is not None and filters.accepts(listing) else None
    if exact is not None:
        best = max((score for _, score in hits), default=0.0)
        hits = [(exact, round(best + 1.0, 6))] + [hit for hit in hits
                                                  if hit[0].name != exact.name]
    return hits[:limit]


def _browse(session: Session, filters: Filters, limit: int) -> list[StoredSkill]:
    found = []
    for name in session.finder.names():
        skill = session.store.get(name)
        if skill is not None and filters.accepts(skill):
            found.append(skill)
            if len(found) >= limit:
                break
    return found


def _answer(session: Session, query: str, limit: int,
            hits: Sequence[tuple[Hit | Listing, float]], browse: bool,
            via: Mapping[str, tuple[str, ...]] | None = None, semantic: bool = False,
            note: str = "") -> results.SearchResult:
    width = session.ledger.policy.meta_chars if session.ledger else DESCRIPTION_CHARS
    matched: list[tuple[str, ...]] = [()] * len(hits)
    if not browse:
        records = session.finder.records([skill.name for skill, _ in hits])
        matched = matched_fields(query, [records.get(skill.name, NO_RECORD)
                                         for skill, _ in hits],
                                 session.finder.known_words(query))
    candidates = tuple(
        results.Candidate(ref=session.ref(skill.name), id=skill.name, name=skill.bare,
                          title=one_line(skill.title, width), description=one_line(
                              skill.description, width), format=skill.format,
                          tags=skill.tags, score=score, matched=fields,
                          library=session.library,
                          via=() if browse else (via or {}).get(skill.name, ("lexical",)))
        for (skill, score), fields in zip(hits, matched, strict=True))
    if session.ledger:
        session.ledger.charge("search", sum(len(c.title) + len(c.description)
                                            for c in candidates))
    return results.SearchResult(query=query, limit=limit, browse=browse,
                                results=candidates, semantic=semantic, note=note)


def _filters(tags: Iterable[str], applies_to: Iterable[str], format: str | None,
             compatibility: str | None, max_risk: str | None) -> Filters:
    if format is not None and format not in FORMATS:
        raise ReaderError("invalid-argument", f"format must be one of {', '.join(FORMATS)}")
    if max_risk is not None and max_risk not in RISKS:
        raise ReaderError("invalid-argument", f"max_risk must be one of {', '.join(RISKS)}")
    return Filters(tuple(_strings(tags, "tags")), tuple(_strings(applies_to, "applies_to")),
                   format, compatibility or None, max_risk)


def _strings(values: Iterable[str], what: str) -> list[str]:
    if isinstance(values, str):
        values = [values]
    found = [text_argument(v, what, 200) for v in values]
    return [v for v in found if v.strip()]
