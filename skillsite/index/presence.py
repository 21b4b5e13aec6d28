"""Presence scoring in tantivy: a clause on a presence field scores that field's weight,
whatever the term's IDF and the field's length.

Ranking scores names, titles, tags, intents, ``applies_to`` and compatibility by whether
they hold a query term (:data:`~skillsite.index.fields.PRESENCE_FIELDS`). The engine has to
score them the same way, or its best candidates are not ranking's best: at 100k skills,
BM25's candidates held 76 % of ranking's exact top 10, against 95 % this way
(``bench/bench_candidates.py``). A ``ConstScoreQuery`` does it, but it takes tantivy off its
fast path for unions of term queries: twice the search time at 100k. So the index makes
BM25 constant instead (since artifact 2.5):

- a presence field is indexed without term frequencies (``basic``): every tf is 1;
- its words are deduplicated and padded with :data:`FILLER` to :data:`PRESENCE_LENGTH`
  terms, so every document has the same field length and length normalization is 1;
- a clause's boost is the weight divided by the term's IDF there (:func:`boost_for`).

A field with more distinct words than that scores a little less. An index without the
filler (before 2.5) is searched with ``ConstScoreQuery``: the same candidates, slower.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from skillsite.index.fields import PRESENCE_FIELDS

if TYPE_CHECKING:
    import tantivy

#: Never a query term: terms are letters and digits (:mod:`skillsite.index.tokens`).
FILLER = "_"
PRESENCE_LENGTH = 16


def padded_texts(texts: dict[str, str]) -> dict[str, str]:
    """``texts`` (:func:`~skillsite.index.fields.field_texts`) with every presence field
    deduplicated and padded, empty ones included."""
    padded = dict(texts)
    for field in PRESENCE_FIELDS:
        words = list(dict.fromkeys(texts.get(field, "").split()))
        padded[field] = " ".join(words + [FILLER] * (PRESENCE_LENGTH - len(words)))
    return padded


def boost_for(weight: float, docs_with_term: int, docs: int) -> float:
    """The boost that makes a padded field's BM25 score ``weight``: tantivy's BM25 is the
    IDF times a length part that padding makes 1."""
    docs = max(docs, docs_with_term)  # deleted documents still count in doc_freq
    return weight / math.log(1 + (docs - docs_with_term + 0.5) / (docs_with_term + 0.5))


def presence_query(query: tantivy.Query, weight: float, docs_with_term: int,
                   docs: int) -> tantivy.Query:
    """A presence field's term ``query``, scoring ``weight`` on every document it matches."""
    import tantivy

    return tantivy.Query.boost_query(query, boost_for(weight, docs_with_term, docs))
