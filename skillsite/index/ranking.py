"""Ranking above the index: field weights, then reranking.

The engines pick candidates; this module orders them, from the candidates' own
fields alone (their ranking records, :mod:`skillsite.index.ranking_record`), so the
order is the same whichever engine found them. Each signal scores in ``[0, 1]`` and is
multiplied by its Mini-A weight (docs/formats.md):

- ``lexical``: description, headings and body together, a saturating term
  frequency with BM25's length normalization (no IDF: a score that depends only on
  the document and the query stays put when the candidate set changes a little);
- ``name``: per query term, 1 for a name token equal to it, ½ for a name token it
  begins (three letters or more: ``kube`` finds ``kubernetes-deploy``), 0.4 for one
  that begins with it give or take one typo (four letters or more, and only for a term
  that no name, title or tags in the corpus hold as a word, see
  :mod:`skillsite.index.fuzzy`: ``kuberentes`` finds ``kubernetes``);
- ``title``, ``tag``: the share of query terms found there, a typo or prefix
  counting 0.4;
- ``intent``, ``applies_to``, ``compatibility``: the share of query terms
  found in that field;
- ``graph``: the caller's 0..1 centrality of the skill.

Each signal averages over the query's terms, so a skill that matches every term
beats one that matches one term many times. The rerank step then scales the sum by
how much of the query the skill covers, adds :data:`PHRASE_BONUS` when the query's
terms appear in a row in the name, title or description, and
:data:`EXACT_NAME_BONUS` when the query is the skill's name; ties go to the name
that sorts first.
"""
from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, NamedTuple

from skillsite.index.fields import WEIGHTS
from skillsite.index.fuzzy import FUZZY_MIN_CHARS, near_prefix
from skillsite.index.ranking_record import LENGTH, LEXICAL, MAX_DIGITS, WHOLE, count, lines_for
from skillsite.index.tokens import tokenize

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


def rank_records(query: str, records: Mapping[str, list[str]], *,
                 graph: Mapping[str, float] | None = None, limit: int = 10,
                 known: Collection[str] = ()) -> list[tuple[str, float]]:
    """:func:`rank` of candidates given as name -> parsed ranking record
    (:func:`skillsite.index.ranking_record.parse`). ``known`` are the query terms that the
    corpus holds as a word of some name, title or tags (the engine's
    ``known_words``): they get no typo matches."""
    sequence = tokenize(query)
    terms = list(dict.fromkeys(sequence))
    if not terms or limit <= 0:
        return []
    centrality = graph or {}
    typos = _typos(terms, records.values(), known)
    query_of = _Query([_Term(term, f" {term} ", f" {term}:", f" {term}",
                             len(term) >= PREFIX_MIN_CHARS, len(term) >= FUZZY_MIN_CHARS,
                             typos[term]) for term in terms],
                      f" {' '.join(sequence)} ", len(sequence))
    scored: dict[str, float] = {}
    for name, lines in records.items():
        score = _score(query_of, lines, centrality.get(name, 0.0))
        if score is not None:
            scored[name] = score
    ordered = sorted(scored.items(), key=lambda item: (-item[1], item[0]))
    return ordered[:limit]


class _Term(NamedTuple):
    """A query term and the strings that find it in a record's lines."""

    term: str
    padded: str          # " term ": the term itself in a line of terms
    counted: str         # " term:": its entry in the lexical line
    begun: str           # " term": a term of the line that begins with it
    prefixes: bool       # whether it is long enough to match by prefix ...
    fuzzy: bool          # ... and by a typo
    #: the candidates' name, title and tag terms that begin with it give or take one edit
    #: but not exactly (padded like it)
    typos: tuple[str, ...]


class _Query(NamedTuple):
    """What scoring needs of the query, worked out once for all candidates."""

    terms: list[_Term]
    phrase: str        # the query's terms in order, padded like a record line
    width: int         # how many terms the phrase has


# Record lines (see skillsite.index.ranking_record.FIELDS).
_NAME, _TITLE, _DESCRIPTION, _TAGS, _INTENTS, _APPLIES_TO, _COMPATIBILITY, _HEADINGS = range(8)
_LOOSE_LINES = (_NAME, _TITLE, _TAGS)
# The weights, looked up once rather than for every candidate.
_LEXICAL, _BY_NAME, _BY_TITLE, _BY_TAG, _BY_INTENT, _BY_APPLIES, _BY_COMPATIBILITY, _BY_GRAPH = (
    WEIGHTS[signal] for signal in ("lexical", "name", "title", "tag", "intent", "applies_to",
                                   "compatibility", "graph"))


def _typos(terms: list[str], records: Iterable[list[str]], known: Collection[str]
           ) -> dict[str, tuple[str, ...]]:
    """Each term's :attr:`_Term.typos` among these records' names, titles and tags (a
    term that begins with the query term is found by a substring test instead); none
    for a ``known`` term."""
    if not any(len(term) >= FUZZY_MIN_CHARS and term not in known for term in terms):
        return {term: () for term in terms}
    text = " ".join(lines[line] for lines in records for line in _LOOSE_LINES)
    return {term: () if term in known else tuple(
        f" {token} " for token in sorted(_near(term, text)) if not token.startswith(term))
        for term in terms}


def _near(term: str, text: str) -> frozenset[str]:
    """The terms of ``text`` (terms separated by spaces) that begin with ``term`` give or
    take one edit, for a term of FUZZY_MIN_CHARS or more."""
    if len(term) < FUZZY_MIN_CHARS:
        return frozenset()
    # Such a term has the query term's first or second letter as its own first or second
    # one (an edit moves a letter by one at most), so only those are tried.
    letters = re.escape(term[:2])
    tried = set(re.findall(f" ((?:[{letters}]|[^ ][{letters}])[^ ]*)", text))
    return frozenset(filter(partial(near_prefix, term), tried))


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
    lexical = by_name = by_title = by_tag = by_intent = by_applies = by_compatibility = 0.0
    matched = 0
    norm = _K1 * (1 - _B + _B * int(lines[LENGTH]) / _REFERENCE_LENGTH)
    for term, padded, counted, begun, prefixes, fuzzy, typos in query.terms:
        if begun not in record:
            # Neither the term nor a term it begins is anywhere: only a typo can match.
            if typos and _any_in(typos, record):
                name_hit = FUZZY_HIT if _any_in(typos, name) else 0.0
                title_hit = FUZZY_HIT if _any_in(typos, title) else 0.0
                tag_hit = FUZZY_HIT if _any_in(typos, tags) else 0.0
                if name_hit or title_hit or tag_hit:
                    matched += 1
                    by_name += name_hit
                    by_title += title_hit
                    by_tag += tag_hit
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
        title_hit = (1.0 if padded in title else FUZZY_HIT if fuzzy and (
            begun in title or typos and _any_in(typos, title)) else 0.0)
        tag_hit = (1.0 if padded in tags else FUZZY_HIT if fuzzy and (
            begun in tags or typos and _any_in(typos, tags)) else 0.0)
        in_intents, in_applies, in_compatibility = (
            padded in intents, padded in applies_to, padded in compatibility)
        if (count or name_hit or title_hit or tag_hit or in_intents or in_applies
                or in_compatibility):
            matched += 1
        if count:
            lexical += count / (count + norm)
        by_name += name_hit
        by_title += title_hit
        by_tag += tag_hit
        by_intent += in_intents
        by_applies += in_applies
        by_compatibility += in_compatibility
    if not matched:
        return None
    share = 1 / len(query.terms)
    # The same sum, in the same order, as the signals are listed in the module docstring.
    base = (_LEXICAL * lexical * share + _BY_NAME * by_name * share
            + _BY_TITLE * by_title * share + _BY_TAG * by_tag * share
            + _BY_INTENT * by_intent * share + _BY_APPLIES * by_applies * share
            + _BY_COMPATIBILITY * by_compatibility * share)
    if centrality:
        base += _BY_GRAPH * min(max(float(centrality), 0.0), 1.0)
    score = base * (0.5 + 0.5 * matched * share)
    if query.width > 1 and (query.phrase in name or query.phrase in title
                            or query.phrase in description):
        score += PHRASE_BONUS
    if query.phrase == name:
        score += EXACT_NAME_BONUS
    return round(score, 6)


def _any_in(padded_terms: Sequence[str], line: str) -> bool:
    for padded in padded_terms:  # a loop, not any(): this runs thousands of times a query
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
    text = " ".join(lines[line] for lines in records for line in _LOOSE_LINES)
    near = [f" {token} " for token in frozenset().union(*(
        _near(term, text) if term not in known else _begun(term, text) for term in terms))]
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
