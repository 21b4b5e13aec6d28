"""``related`` by content: a more-like-this over the index, for when links, ``depends_on``
and tags give little (public corpora often have none of them).

A skill's distinctive terms are those of its ranking record (name, title, description,
headings and body) weighted by how often the skill uses them and how few skills hold
them (the engine's document frequencies, IDF). The engine proposes the skills that hold
the most of them; each is scored by the cosine of the two skills' weighted terms, and
names the shared terms that weigh most.
A term that most skills hold, or that no other skill holds, tells nothing and is left
out. Bodies are never loaded: records only.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from skillsite.index.ranking_record import FIELDS, LEXICAL

if TYPE_CHECKING:
    from skillsite.reader.finder import Finder

#: The source skill's distinctive terms that the engine is asked for.
QUERY_TERMS = 16
#: Engine candidates scored.
CANDIDATES = 40
#: A neighbour shares at least this many distinctive terms, ...
MIN_SHARED = 2
#: ... of which the reasons name at most this many, the most distinctive first.
TERMS_SHOWN = 5
#: A term held by more than this share of skills is not distinctive.
COMMON_SHARE = 0.5
#: Terms in these fields of the source count this much more than a body's.
FIELD_WEIGHT = {"name": 3.0, "title": 2.0, "description": 1.5, "headings": 1.0}
MIN_TERM_CHARS = 3


def alike(finder: Finder, name: str, limit: int) -> list[tuple[str, float, tuple[str, ...]]]:
    """(name, cosine from 0 to 1, shared terms) of the skills most like ``name`` by
    content, best first."""
    record = finder.records([name]).get(name)
    if record is None:
        return []
    weights = distinctive_terms(finder, record)
    if not weights:
        return []
    top = sorted(weights, key=lambda term: (-weights[term], term))[:QUERY_TERMS]
    others = [other for other in finder.candidates(" ".join(top), CANDIDATES) if other != name]
    norm = _norm(weights)
    found = []
    for other, lines in finder.records(others).items():
        theirs = distinctive_terms(finder, lines)
        products = {term: weight * theirs[term] for term, weight in weights.items()
                    if term in theirs}
        if len(products) >= MIN_SHARED:
            score = sum(products.values()) / (norm * _norm(theirs))
            shared = sorted(products, key=lambda term: (-products[term], term))
            found.append((other, round(score, 6), tuple(shared[:TERMS_SHOWN])))
    found.sort(key=lambda item: (-item[1], item[0]))
    return found[:limit]


def _norm(weights: dict[str, float]) -> float:
    return math.sqrt(sum(weight * weight for weight in weights.values())) or 1.0


def distinctive_terms(finder: Finder, record: list[str]) -> dict[str, float]:
    """Each distinctive term of a ranking record and its weight: use (log-scaled, more in
    the name, title and description) times rarity (IDF)."""
    use: dict[str, float] = {}
    for entry in record[LEXICAL].split():
        term, _, count = entry.rpartition(":")
        if _word(term) and count.isdecimal():
            use[term] = 1.0 + math.log(int(count))
    for field, extra in FIELD_WEIGHT.items():
        for term in record[FIELDS.index(field)].split():
            if _word(term):
                use[term] = use.get(term, 1.0) + extra
    skills, freqs = finder.document_frequencies(list(use))
    weights = {}
    for term, weight in use.items():
        held = freqs.get(term, 0)
        if 2 <= held <= max(2, COMMON_SHARE * skills):
            weights[term] = weight * math.log(1 + skills / held)
    return weights


def _word(term: str) -> bool:
    return len(term) >= MIN_TERM_CHARS and not term.isdecimal()
