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

from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache
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
    scored: dict[str, float] = {}
    for doc in docs:
        if doc.name not in scored:
            score = _score(terms, sequence, doc, centrality.get(doc.name, 0.0))
            if score is not None:
                scored[doc.name] = score
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


@lru_cache(maxsize=4096)  # about 8 kB each
def _analyse(doc: IndexDoc) -> _Analysis:
    """``doc``'s terms by field (cached: a long-lived reader ranks the same skills again;
    an equal document is the same analysis)."""
    name = tuple(tokenize(doc.name))
    title = tokenize(doc.title)
    description = tokenize(doc.description)
    headings = _tokens(doc.headings)
    body = tokenize(doc.body)
    sets = {
        "name": frozenset(name),
        "title": frozenset(title),
        "description": frozenset(description),
        "tag": frozenset(_tokens(doc.tags)),
        "intent": frozenset(_tokens(doc.intents)),
        "applies_to": frozenset(_tokens(doc.applies_to)),
        "compatibility": frozenset(tokenize(doc.compatibility)),
        "headings": frozenset(headings),
    }
    length = len(description) + len(headings) + len(body)
    norm = _K1 * (1 - _B + _B * length / _REFERENCE_LENGTH)
    return _Analysis(name, tuple(title), tuple(description), dict(Counter(body)),
                     dict(Counter(description + headings)), norm, sets)


def _score(terms: list[str], sequence: list[str], doc: IndexDoc,
           centrality: float) -> float | None:
    """Return the reranked score of ``doc``, or ``None`` when no term matches.

    Written with plain locals rather than a dict of signals: it runs for every candidate
    of every query, and is most of a warm search's time."""
    name, title, description, body, upper, norm, sets = _analyse(doc)
    name_set, title_set, tag_set = sets["name"], sets["title"], sets["tag"]
    intents, applies_to, compatibility = sets["intent"], sets["applies_to"], sets["compatibility"]
    lexical = by_name = by_title = by_tag = by_intent = by_applies = by_compatibility = 0.0
    matched = 0
    for term in terms:
        count = body.get(term, 0) + upper.get(term, 0)
        name_hit = _name_hit(term, name_set)
        title_hit = _field_hit(term, title_set)
        tag_hit = _field_hit(term, tag_set)
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
    phrase = tuple(sequence)
    if len(phrase) > 1 and any(_contains(words, phrase, present) for words, present in (
            (name, name_set), (title, title_set), (description, sets["description"]))):
        score += PHRASE_BONUS
    if phrase == name:
        score += EXACT_NAME_BONUS
    return round(score, 6)


#: matched_fields' field names, and the analysis set each is read from (body: its counts).
_MATCHED = (("name", "name"), ("title", "title"), ("description", "description"),
            ("tags", "tag"), ("intents", "intent"), ("applies_to", "applies_to"),
            ("compatibility", "compatibility"), ("headings", "headings"))
_LOOSE = frozenset(("name", "title", "tags"))


def matched_fields(query: str, doc: IndexDoc) -> tuple[str, ...]:
    """The fields of ``doc`` that share a term with ``query`` (names, titles and tags also
    by prefix or one typo)."""
    terms = list(dict.fromkeys(tokenize(query)))
    analysis = _analyse(doc)
    found = []
    for field, signal in _MATCHED:
        words = analysis.sets[signal]
        # _field_hit: the term itself, or a prefix give or take one typo (cached per field).
        if any(term in words for term in terms) or (
                field in _LOOSE and any(_field_hit(term, words) for term in terms)):
            found.append(field)
    if any(term in analysis.body for term in terms):
        found.append("body")
    return tuple(found)


def _tokens(values: Sequence[str]) -> list[str]:
    return [term for value in values for term in tokenize(value)]


@lru_cache(maxsize=1 << 16)
def _name_hit(term: str, name: frozenset[str]) -> float:
    if term in name:
        return 1.0
    if len(term) >= PREFIX_MIN_CHARS and any(token.startswith(term) for token in name):
        return 0.5
    return _near_hit(term, name)


@lru_cache(maxsize=1 << 16)
def _field_hit(term: str, tokens: frozenset[str]) -> float:
    """1 for a token equal to ``term``, else :func:`_near_hit` (cached per field value)."""
    return 1.0 if term in tokens else _near_hit(term, tokens)


def _near_hit(term: str, tokens: tuple[str, ...] | frozenset[str]) -> float:
    """:data:`FUZZY_HIT` when a token begins with ``term`` give or take one edit."""
    if len(term) >= FUZZY_MIN_CHARS and any(near_prefix(term, token) for token in tokens):
        return FUZZY_HIT
    return 0.0


def _contains(words: tuple[str, ...], phrase: tuple[str, ...], present: frozenset[str]) -> bool:
    """Whether ``phrase`` occurs in ``words`` (``present`` is their set, for a quick no)."""
    if phrase[0] not in present:
        return False
    width = len(phrase)
    return any(words[start:start + width] == phrase for start in range(len(words) - width + 1))
