"""Ranking above the index: field weights, then reranking.

The engines pick candidates; this module orders them, from the candidates' own
fields alone (their ranking records, :mod:`skillsite.index.ranking_record`), so the
order is the same whichever engine found them. Each signal scores in ``[0, 1]`` and is
multiplied by its Mini-A weight (docs/formats.md):

- ``lexical``: description, headings and body together, a saturating term
  frequency with BM25's length normalization;
- ``name``: per query term, 1 for a name token equal to it, ½ for a name token it
  begins when it is a word still being typed (:func:`~skillsite.index.tokens.partial_term`:
  ``kube`` finds ``kubernetes-deploy``, ``create`` in a task never finds ``creator``), 0.4
  for one within a typo of it (four letters or more, and only for a term that no name,
  title or tags in the corpus hold as a word, see :mod:`skillsite.index.fuzzy`:
  ``kuberentes`` finds ``kubernetes``);
- ``title``, ``tag``: 1 for the term there, 0.4 for a typo or a typed prefix;
- ``intent``, ``applies_to``, ``compatibility``: 1 for the term in that field;
- ``graph``: the caller's 0..1 centrality of the skill.

Terms are Snowball stems (:mod:`skillsite.index.tokens`). Each term's lexical signal counts
by its weight, ``ln(1 + N/df)`` with ``df`` the most skills holding it in one field,
normalized to sum 1 over the query, as BM25's IDF does (:class:`Corpus`, from the engine:
a score that depends on the document, the query and the corpus, never on which other
candidates came back). The field signals count each term alike, times the word's
:func:`~skillsite.index.fields.specificity` in names, titles and tags: nothing for a word
most names share. A term no skill holds counts only as a possible typo or a word being
typed. The rerank step then scales the sum by the share of the query's terms the skill
covers, adds :data:`PHRASE_BONUS` when the query's terms appear in a row in the name,
title or description, and :data:`EXACT_NAME_BONUS` when the query is the skill's name;
ties go to the name that sorts first.
"""
from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, NamedTuple

from skillsite.index.fields import WEIGHTS
from skillsite.index.fuzzy import FUZZY_MIN_CHARS, near_typed, near_word
from skillsite.index.ranking_record import LENGTH, LEXICAL, MAX_DIGITS, WHOLE, count, lines_for
from skillsite.index.tokens import partial_term, tokenize

if TYPE_CHECKING:
    from skillsite.entries import IndexDoc


PHRASE_BONUS = 1.0
EXACT_NAME_BONUS = 3.0
PREFIX_MIN_CHARS = 3
#: What a name or title token within one edit of a query term's prefix earns (a typo).
FUZZY_HIT = 0.4

_K1 = 1.2
_B = 0.75
_REFERENCE_LENGTH = 200  # terms; a typical description + body


def rank(query: str, docs: Sequence[IndexDoc], *, graph: Mapping[str, float] | None = None,
         limit: int = 10) -> list[tuple[str, float]]:
    """Return the best ``limit`` of ``docs`` for ``query`` as ``(name, score)`` pairs.

    ``docs`` are the candidates (duplicates by name count once: the first one wins); a
    candidate that shares no term with the query is left out. ``graph`` maps a skill name
    to its 0..1 centrality. The result is deterministic: equal scores sort by name.
    """
    records = {doc.name: lines_for(doc) for doc in reversed(docs)}
    return rank_records(query, records, graph=graph, limit=limit)


class Corpus(NamedTuple):
    """What ranking knows of a query's terms in the whole corpus (from the engine)."""

    #: term -> :func:`~skillsite.index.fields.term_weight` (missing terms weigh 1)
    weights: Mapping[str, float]
    #: term -> :func:`~skillsite.index.fields.specificity` in names, titles and tags
    specific: Mapping[str, tuple[float, float, float]]
    #: the terms no skill holds: they weigh nothing unless a typo of them can match
    absent: frozenset[str] = frozenset()


_FLAT = Corpus({}, {})


def rank_records(query: str, records: Mapping[str, list[str]], *,
                 graph: Mapping[str, float] | None = None, limit: int = 10,
                 known: Collection[str] = (), corpus: Corpus = _FLAT
                 ) -> list[tuple[str, float]]:
    """:func:`rank` of candidates given as name -> parsed ranking record
    (:func:`skillsite.index.ranking_record.parse`). ``known`` are the query terms that the
    corpus holds as a word of some name, title or tags (the engine's
    ``known_words``): they get no typo matches. ``corpus`` weighs the terms."""
    scored = score_records(query, records, graph=graph, known=known, corpus=corpus)
    ordered = sorted(scored.items(), key=lambda item: (-item[1], item[0]))
    return ordered[:limit] if limit > 0 else []


def score_records(query: str, records: Mapping[str, list[str]], *,
                  graph: Mapping[str, float] | None = None, known: Collection[str] = (),
                  corpus: Corpus = _FLAT) -> dict[str, float]:
    """The score of each record that matches ``query`` (see :func:`rank_records`)."""
    sequence = tokenize(query)
    terms = list(dict.fromkeys(sequence))
    if not terms:
        return {}
    centrality = graph or {}
    typed = partial_term(query)
    typos = _typos(terms, typed, records.values(), known)
    # A term no skill holds tells no skill apart: it only counts when it may be a typo or
    # a word being typed.
    raw = [0.0 if term in corpus.absent and not typos[term] and term != typed
           else corpus.weights.get(term, 1.0) for term in terms]
    total = sum(raw) or 1.0
    counted = sum(1 for weight in raw if weight) or 1
    query_of = _Query([_Term(term, f" {term} ", f" {term}:", f" {term}",
                             term == typed and len(term) >= PREFIX_MIN_CHARS,
                             term == typed and len(term) >= FUZZY_MIN_CHARS,
                             typos[term], weight / total, (weight > 0) / counted,
                             *corpus.specific.get(term, (1.0, 1.0, 1.0)))
                       for term, weight in zip(terms, raw, strict=True)],
                      f" {' '.join(sequence)} ", len(sequence))
    scored: dict[str, float] = {}
    for name, lines in records.items():
        score = _score(query_of, lines, centrality.get(name, 0.0))
        if score is not None:
            scored[name] = score
    return scored


class _Term(NamedTuple):
    """A query term and the strings that find it in a record's lines."""

    term: str
    padded: str          # " term ": the term itself in a line of terms
    counted: str         # " term:": its entry in the lexical line
    begun: str           # " term": a term of the line that begins with it
    prefixes: bool       # whether it is a word being typed, long enough to match by prefix
    loose: bool          # ... and to match titles and tags by prefix
    #: the candidates' name, title and tag terms within one edit of it (of its beginning,
    #: for a word being typed) but not equal to it (padded like it)
    typos: tuple[str, ...]
    weight: float        # its share of the query's weight (term weights sum to 1)
    share: float         # its share of the query's terms (1 / terms that can match)
    in_names: float      # how much a match counts in names, titles and tags
    in_titles: float
    in_tags: float


class _Query(NamedTuple):
    """What scoring needs of the query, worked out once for all candidates."""

    terms: list[_Term]
    phrase: str        # the query's terms in order, padded like a record line
    width: int         # how many terms the phrase has


# Record lines (see skillsite.index.ranking_record.FIELDS).
(_NAME, _TITLE, _DESCRIPTION, _TAGS, _INTENTS, _APPLIES_TO, _COMPATIBILITY, _HEADINGS,
 _USE_WHEN, _NOT_FOR) = range(10)
_LOOSE_LINES = (_NAME, _TITLE, _TAGS)
# The weights, looked up once rather than for every candidate.
_LEXICAL, _BY_NAME, _BY_TITLE, _BY_TAG, _BY_INTENT, _BY_APPLIES, _BY_COMPATIBILITY, _BY_GRAPH = (
    WEIGHTS[signal] for signal in ("lexical", "name", "title", "tag", "intent", "applies_to",
                                   "compatibility", "graph"))


def _typos(terms: list[str], typed: str | None, records: Iterable[list[str]],
           known: Collection[str]) -> dict[str, tuple[str, ...]]:
    """Each term's :attr:`_Term.typos` among these records' names, titles and tags; none
    for a ``known`` term."""
    if not any(len(term) >= FUZZY_MIN_CHARS and term not in known for term in terms):
        return {term: () for term in terms}
    text = " ".join(lines[line] for lines in records for line in _LOOSE_LINES)
    return {term: () if term in known else tuple(
        f" {token} " for token in sorted(_near(term, text, prefix=term == typed))
        if token != term and not (term == typed and token.startswith(term)))
        for term in terms}


def _near(term: str, text: str, *, prefix: bool = True) -> frozenset[str]:
    """The terms of ``text`` (terms separated by spaces) within one edit of ``term``, or
    that begin within one edit of it for a ``prefix`` (a word being typed), for a term of
    FUZZY_MIN_CHARS or more."""
    if len(term) < FUZZY_MIN_CHARS:
        return frozenset()
    # Such a term has the query term's first or second letter as its own first or second
    # one (an edit moves a letter by one at most), so only those are tried.
    letters = re.escape(term[:2])
    tried = set(re.findall(f" ((?:[{letters}]|[^ ][{letters}])[^ ]*)", text))
    return frozenset(filter(partial(near_typed if prefix else near_word, term), tried))


def _begun(term: str, text: str) -> frozenset[str]:
    """The terms of ``text`` that begin with ``term``, for a term of FUZZY_MIN_CHARS or
    more: :func:`_near` without the typos."""
    if len(term) < FUZZY_MIN_CHARS:
        return frozenset()
    return frozenset(re.findall(f" ({re.escape(term)}[^ ]*)", text))


def _score(query: _Query, lines: list[str], centrality: float) -> float | None:
    """Return the reranked score of a document, or ``None`` when no term matches.

    Written with plain locals and substring tests on the record's lines rather than
    parsed fields: it runs for every candidate of every query, and is most of a warm
    search's time."""
    name, title, description, tags, intents, applies_to, compatibility, headings = lines[:8]
    counts, record = lines[LEXICAL], lines[WHOLE]
    base = matched = 0.0
    norm = _K1 * (1 - _B + _B * int(lines[LENGTH]) / _REFERENCE_LENGTH)
    for (_term, padded, counted, begun, prefixes, loose, typos, weight, share, in_names,
         in_titles, in_tags) in query.terms:
        if begun not in record:
            # Neither the term nor a term it begins is anywhere: only a typo can match.
            if typos and _any_in(typos, record):
                name_hit = FUZZY_HIT if _any_in(typos, name) else 0.0
                title_hit = FUZZY_HIT if _any_in(typos, title) else 0.0
                tag_hit = FUZZY_HIT if _any_in(typos, tags) else 0.0
                if name_hit or title_hit or tag_hit:
                    matched += share
                    base += share * (_BY_NAME * name_hit * in_names
                                     + _BY_TITLE * title_hit * in_titles
                                     + _BY_TAG * tag_hit * in_tags)
            continue
        count = 0  # ranking_record.count, inlined: it runs per term per candidate
        at = counts.find(counted)
        if at >= 0:
            at += len(counted)
            digits = counts[at:counts.find(" ", at)]
            if digits.isdecimal() and len(digits) <= MAX_DIGITS:
                count = int(digits)
        # A name term equal to the term, one that begins with it, one within a typo of that.
        name_hit = (1.0 if padded in name else 0.5 if prefixes and begun in name
                    else FUZZY_HIT if typos and _any_in(typos, name) else 0.0)
        title_hit = (1.0 if padded in title else FUZZY_HIT if (
            loose and begun in title or typos and _any_in(typos, title)) else 0.0)
        tag_hit = (1.0 if padded in tags else FUZZY_HIT if (
            loose and begun in tags or typos and _any_in(typos, tags)) else 0.0)
        in_intents, in_applies, in_compatibility = (
            padded in intents, padded in applies_to, padded in compatibility)
        if (count or name_hit or title_hit or tag_hit or in_intents or in_applies
                or in_compatibility):
            matched += share
        else:
            continue
        # The same sum, in the same order, as the signals are listed in the module docstring.
        base += (weight * _LEXICAL * (count / (count + norm) if count else 0.0)
                 + share * (_BY_NAME * name_hit * in_names + _BY_TITLE * title_hit * in_titles
                            + _BY_TAG * tag_hit * in_tags + _BY_INTENT * in_intents
                            + _BY_APPLIES * in_applies + _BY_COMPATIBILITY * in_compatibility))
    if not matched:
        return None
    if centrality:
        base += _BY_GRAPH * min(max(float(centrality), 0.0), 1.0)
    score = base * (0.5 + 0.5 * matched)
    if query.width > 1 and (query.phrase in name or query.phrase in title
                            or query.phrase in description):
        score += PHRASE_BONUS
    if query.phrase == name:
        score += EXACT_NAME_BONUS
    return round(score, 6)


def _any_in(padded_terms: Sequence[str], line: str) -> bool:
    for padded in padded_terms:  # noqa: SIM110 (a loop, not any(): this runs thousands of times a query)
        if padded in line:
            return True
    return False


#: matched_fields' field names, the record line each is read from, and whether a prefix or
#: a typo counts there.
_MATCHED = (("name", _NAME, True), ("title", _TITLE, True), ("description", _DESCRIPTION, False),
            ("tags", _TAGS, True), ("intents", _INTENTS, False),
            ("applies_to", _APPLIES_TO, False), ("compatibility", _COMPATIBILITY, False),
            ("headings", _HEADINGS, False))


def matched_fields(query: str, records: Sequence[list[str]], known: Collection[str] = ()
                   ) -> list[tuple[str, ...]]:
    """For each of ``records`` (parsed), its fields that share a term with ``query`` (names,
    titles and tags also by prefix, or by one typo of a term not ``known``: see
    :func:`rank_records`)."""
    terms = list(dict.fromkeys(tokenize(query)))
    typed = partial_term(query)
    text = " ".join(lines[line] for lines in records for line in _LOOSE_LINES)
    near = [f" {token} " for token in frozenset().union(*(
        (_near(term, text) if term not in known else _begun(term, text)) if term == typed
        else _near(term, text, prefix=False) if term not in known else frozenset()
        for term in terms))]
    padded = [f" {term} " for term in terms]
    begun = [f" {term}" for term in terms]
    return [_matched(terms, padded, begun, near, lines) for lines in records]


def _matched(terms: list[str], padded: list[str], begun: list[str], near: list[str],
             lines: list[str]) -> tuple[str, ...]:
    record = lines[WHOLE]
    if not _any_in(begun, record) and not (near and _any_in(near, record)):
        return ()
    found = []
    for field, line, loose in _MATCHED:
        words = lines[line]
        if _any_in(padded, words) or (loose and near and _any_in(near, words)):
            found.append(field)
    for term in terms:
        if _in_body(term, lines):
            found.append("body")
            break
    return tuple(found)


def _in_body(term: str, lines: list[str]) -> bool:
    """Whether the body holds ``term``: the lexical count is more than the description's
    and headings' own."""
    found = count(lines[LEXICAL], term)
    return bool(found) and found > (lines[_DESCRIPTION].split().count(term)
                                    + lines[_HEADINGS].split().count(term))
