"""Ranking above the index: field weights, then reranking.

The engines pick candidates; this module orders them, from the candidates' own
fields alone, so the order is the same whichever engine found them. Each signal
scores in ``[0, 1]`` and is multiplied by its FORMATS.md §4 weight:

- ``lexical``: description, headings and body together, a saturating term
  frequency with BM25's length normalization (no IDF: a score that depends only on
  the document and the query stays put when the candidate set changes a little);
- ``name``: per query term, 1 for a name token equal to it, ½ for a name token it
  begins (three letters or more: ``kube`` finds ``kubernetes-deploy``), 0.4 for one
  that begins with it give or take one typo (four letters or more, see
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

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from operator import methodcaller
from typing import TYPE_CHECKING, NamedTuple

from skillsite.index.fields import WEIGHTS
from skillsite.index.fuzzy import FUZZY_MIN_CHARS, near_prefix
from skillsite.index.tokens import tokenize

if TYPE_CHECKING:
    from skillsite.models import IndexDoc


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

    ``docs`` are the candidates (duplicates by name count once); a candidate that
    shares no term with the query is left out. ``graph`` maps a skill name to its
    0..1 centrality. The result is deterministic: equal scores sort by name.
    """
    sequence = tokenize(query)
    terms = list(dict.fromkeys(sequence))
    if not terms or limit <= 0:
        return []
    centrality = graph or {}
    analyses = {doc.name: _analyse(doc) for doc in reversed(docs)}  # the first one wins
    loose = _loose_matches(terms, [analysis.sets for analysis in analyses.values()])
    phrase = tuple(sequence)
    scored: dict[str, float] = {}
    for name, analysis in analyses.items():
        score = _score(terms, phrase, analysis, loose, centrality.get(name, 0.0))
        if score is not None:
            scored[name] = score
    ordered = sorted(scored.items(), key=lambda item: (-item[1], item[0]))
    return ordered[:limit]


class _Analysis(NamedTuple):
    """What scoring and :func:`matched_fields` need of one document, worked out once."""

    name: tuple[str, ...]
    title: tuple[str, ...]
    description: tuple[str, ...]
    #: term -> count in the body, and in the description and headings (lexical = both).
    body: dict[str, int]
    upper: dict[str, int]
    #: BM25's length normalization: a count ``n`` scores ``n / (n + norm)``, reaching 1
    #: as ``n`` grows.
    norm: float
    #: the token sets of the other fields, by signal (``name`` too, for matched_fields).
    sets: dict[str, frozenset[str]]


#: Analyses kept (about 8 kB each), keyed by name and body, with the document they are of.
ANALYSES_KEPT = 4096
_ANALYSES: dict[tuple[str, str], tuple[IndexDoc, _Analysis]] = {}


def _analyse(doc: IndexDoc) -> _Analysis:
    """``doc``'s terms by field, cached: a long-lived reader ranks the same skills again.

    Not an ``lru_cache`` on the document: hashing a whole ``IndexDoc`` for each candidate of
    each query costs more than this lookup, whose key strings have their hashes cached."""
    key = (doc.name, doc.body)
    known = _ANALYSES.get(key)
    if known is not None and (known[0] is doc or known[0] == doc):
        return known[1]
    analysis = _analysis(doc)
    if len(_ANALYSES) >= ANALYSES_KEPT:
        _ANALYSES.clear()
    _ANALYSES[key] = (doc, analysis)
    return analysis


def _analysis(doc: IndexDoc) -> _Analysis:
    fields, body = _fields(doc)
    name = tuple(fields["name"])
    title, description, headings = fields["title"], fields["description"], fields["headings"]
    tags = frozenset(fields["tags"])
    sets = {
        "name": frozenset(name),
        "title": frozenset(title),
        "description": frozenset(description),
        "tag": tags,
        "intent": frozenset(fields["intents"]),
        "applies_to": frozenset(fields["applies_to"]),
        "compatibility": frozenset(fields["compatibility"]),
        "headings": frozenset(headings),
        # what a query term may match loosely (by prefix or typo)
        "loose": frozenset(name).union(title, tags),
    }
    length = len(description) + len(headings) + sum(body.values())
    norm = _K1 * (1 - _B + _B * length / _REFERENCE_LENGTH)
    return _Analysis(name, tuple(title), tuple(description), body,
                     dict(Counter(description + headings)), norm, sets)


_FIELDS = ("name", "title", "description", "tags", "intents", "applies_to", "compatibility",
           "headings")


def _fields(doc: IndexDoc) -> tuple[dict[str, list[str]], dict[str, int]]:
    """Each index field's terms in order, and the body's term counts: read from the
    stored ``doc.terms`` when the content store keeps them (the build tokenized them
    once), else tokenized here."""
    if doc.terms:
        try:
            stored = json.loads(doc.terms)
        except ValueError:
            stored = None
        body = stored.get("body") if isinstance(stored, dict) else None
        if isinstance(body, dict) and _counts(body.values()):
            return ({field: str(stored.get(field, "")).split() for field in _FIELDS}, body)
    return ({"name": tokenize(doc.name), "title": tokenize(doc.title),
             "description": tokenize(doc.description), "tags": _tokens(doc.tags),
             "intents": _tokens(doc.intents), "applies_to": _tokens(doc.applies_to),
             "compatibility": tokenize(doc.compatibility), "headings": _tokens(doc.headings)},
            dict(Counter(tokenize(doc.body))))


class _Loose(NamedTuple):
    """The name, title and tag tokens of the candidates that a query term matches loosely."""

    prefixed: frozenset[str]  # that begin with the term (PREFIX_MIN_CHARS or more)
    near: frozenset[str]      # that begin with it give or take one edit (FUZZY_MIN_CHARS)


def _counts(values: Iterable[object]) -> bool:
    """Whether stored counts are all positive numbers (a damaged store falls back to
    tokenizing, never to a crash or a division by zero in scoring)."""
    try:
        return min(values, default=1) > 0  # type: ignore[type-var, operator]
    except TypeError:
        return False


def _loose_matches(terms: list[str], field_sets: Sequence[dict[str, frozenset[str]]]
                   ) -> dict[str, _Loose]:
    """Each term's loose matches among the tokens of these documents' names, titles and
    tags: worked out once per query, so scoring a document is a few set tests."""
    vocabulary = frozenset().union(*(sets["loose"] for sets in field_sets))
    by_letter: dict[str, list[str]] = {}
    for token in vocabulary:
        by_letter.setdefault(token[0], []).append(token)
        if len(token) > 1 and token[1] != token[0]:
            by_letter.setdefault(token[1], []).append(token)
    none: frozenset[str] = frozenset()
    found = {}
    for term in terms:
        # A token that begins with the term give or take one edit has the term's first or
        # second letter as its own first or second one (an edit moves a letter by one at
        # most), so only those tokens are tried.
        tried = set(by_letter.get(term[0], ()))
        if len(term) > 1:
            tried.update(by_letter.get(term[1], ()))
        prefixed = (frozenset(filter(methodcaller("startswith", term), tried))
                    if len(term) >= PREFIX_MIN_CHARS else none)
        near = (frozenset(filter(partial(near_prefix, term), tried))
                if len(term) >= FUZZY_MIN_CHARS else none)
        found[term] = _Loose(prefixed, near)
    return found


def _score(terms: list[str], phrase: tuple[str, ...], analysis: _Analysis,
           loose: dict[str, _Loose], centrality: float) -> float | None:
    """Return the reranked score of a document, or ``None`` when no term matches.

    Written with plain locals rather than a dict of signals: it runs for every candidate
    of every query, and is most of a warm search's time."""
    name, title, description, body, upper, norm, sets = analysis
    name_set, title_set, tag_set = sets["name"], sets["title"], sets["tag"]
    intents, applies_to, compatibility = sets["intent"], sets["applies_to"], sets["compatibility"]
    lexical = by_name = by_title = by_tag = by_intent = by_applies = by_compatibility = 0.0
    matched = 0
    for term in terms:
        count = body.get(term, 0) + upper.get(term, 0)
        prefixed, near = loose[term]
        # A name token equal to the term, one that begins with it, one within a typo of that.
        name_hit = (1.0 if term in name_set else 0.5 if not prefixed.isdisjoint(name_set)
                    else FUZZY_HIT if not near.isdisjoint(name_set) else 0.0)
        title_hit = (1.0 if term in title_set
                     else FUZZY_HIT if not near.isdisjoint(title_set) else 0.0)
        tag_hit = 1.0 if term in tag_set else FUZZY_HIT if not near.isdisjoint(tag_set) else 0.0
        in_intents, in_applies, in_compatibility = (
            term in intents, term in applies_to, term in compatibility)
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
    share = 1 / len(terms)
    # The same sum, in the same order, as the signals are listed in the module docstring.
    base = sum((WEIGHTS["lexical"] * lexical * share, WEIGHTS["name"] * by_name * share,
                WEIGHTS["title"] * by_title * share, WEIGHTS["tag"] * by_tag * share,
                WEIGHTS["intent"] * by_intent * share,
                WEIGHTS["applies_to"] * by_applies * share,
                WEIGHTS["compatibility"] * by_compatibility * share))
    base += WEIGHTS["graph"] * min(max(float(centrality), 0.0), 1.0)
    score = base * (0.5 + 0.5 * matched * share)
    # A field can hold the phrase only if it holds all its words (a set test, usually no).
    if len(phrase) > 1 and (
            (name_set.issuperset(phrase) and _contains(name, phrase))
            or (title_set.issuperset(phrase) and _contains(title, phrase))
            or (sets["description"].issuperset(phrase) and _contains(description, phrase))):
        score += PHRASE_BONUS
    if phrase == name:
        score += EXACT_NAME_BONUS
    return round(score, 6)


#: matched_fields' field names, and the analysis set each is read from (body: its counts).
_MATCHED = (("name", "name"), ("title", "title"), ("description", "description"),
            ("tags", "tag"), ("intents", "intent"), ("applies_to", "applies_to"),
            ("compatibility", "compatibility"), ("headings", "headings"))
_LOOSE = frozenset(("name", "title", "tags"))


def matched_fields(query: str, docs: Sequence[IndexDoc]) -> list[tuple[str, ...]]:
    """For each of ``docs``, its fields that share a term with ``query`` (names, titles and
    tags also by prefix or one typo)."""
    terms = list(dict.fromkeys(tokenize(query)))
    analyses = [_analyse(doc) for doc in docs]
    near = frozenset().union(*(loose.near for loose in _loose_matches(
        terms, [analysis.sets for analysis in analyses]).values()))
    return [_matched(terms, near, analysis) for analysis in analyses]


def _matched(terms: list[str], near: frozenset[str], analysis: _Analysis) -> tuple[str, ...]:
    found = []
    for field, signal in _MATCHED:
        words = analysis.sets[signal]
        if any(term in words for term in terms) or (field in _LOOSE
                                                     and not near.isdisjoint(words)):
            found.append(field)
    if any(term in analysis.body for term in terms):
        found.append("body")
    return tuple(found)


def _tokens(values: Sequence[str]) -> list[str]:
    return [term for value in values for term in tokenize(value)]


def _contains(words: tuple[str, ...], phrase: tuple[str, ...]) -> bool:
    width = len(phrase)
    return any(words[start:start + width] == phrase for start in range(len(words) - width + 1))
