"""The index's fields, shared by every backend, so both engines hold the same data.

Each :class:`~skillsite.index.IndexDoc` attribute becomes one engine field of
pre-tokenized text (see :mod:`skillsite.index.tokens`). List attributes are joined
into one value: their terms then match the same way in both engines.

The engines pick the candidates that :func:`skillsite.index.ranking.rank` then orders, so
they score the way ranking does (see :func:`boosts`): a term in a :data:`PRESENCE_FIELDS`
field earns that field's Mini-A weight (docs/formats.md), whatever its IDF or length;
the lexical fields keep BM25, scaled down to a tiebreak.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

from skillsite.index.tokens import word_terms

if TYPE_CHECKING:
    from skillsite.entries import IndexDoc

KEY_FIELD = "key"
"""The stored, untokenized skill name: what a search returns and a delete targets."""

WEIGHTS: dict[str, float] = {
    "lexical": 1.0,
    "name": 3.0,
    "title": 2.0,
    "intent": 2.5,
    "tag": 1.0,
    "applies_to": 1.5,
    "compatibility": 1.0,
    "graph": 1.0,
}
"""Mini-A's ranking weights (docs/formats.md), by signal: the engines' query boosts and
:func:`skillsite.index.ranking.rank` both read them here."""

SIGNALS: dict[str, str] = {
    "name": "name",
    "title": "title",
    "description": "lexical",
    "tags": "tag",
    "intents": "intent",
    "applies_to": "applies_to",
    "compatibility": "compatibility",
    "headings": "lexical",
    "body": "lexical",
}
"""Engine field → the ranking signal (a key of :data:`WEIGHTS`) it feeds."""

TEXT_FIELDS: tuple[str, ...] = tuple(SIGNALS)

BODY_FIELD = "body"
#: A term that more than half of all bodies hold, in a corpus with at least this many
#: such bodies, gets no body clause in the candidate query (see :func:`leaves_out_body`).
COMMON_BODY_MIN_SKILLS = 20_000


def leaves_out_body(bodies_with_term: int, skills: int) -> bool:
    """Whether the candidate query leaves out a term's body clause.

    A term in more than half of the bodies has a BM25 IDF under ln 2 there, so its body
    clause barely moves any candidate's score; yet its posting list is most of what the
    engine reads: three quarters of a query's time for ``release`` at 100k skills. Ranking
    still counts the term in the candidates' bodies. Small corpora keep the clause: it is
    cheap there, and it can be a query's only match. An engine that finds fewer candidates
    than it was asked for without these clauses asks again with them."""
    return bodies_with_term >= COMMON_BODY_MIN_SKILLS and 2 * bodies_with_term > skills


RECORD_ONLY_FIELDS = ("use_when", "not_for")
"""What ranking records hold but the engines do not index: the description's and body's
"use when" and "not for" text (:mod:`skillsite.index.clauses`), for ``recommend``."""


def field_texts(doc: IndexDoc) -> dict[str, str]:
    """Return the non-empty fields of ``doc`` as whitespace-joined terms: the engine fields
    (:data:`TEXT_FIELDS`) and the :data:`RECORD_ONLY_FIELDS`."""
    return {field: text for field, (text, _) in field_terms(doc).items()}


def field_terms(doc: IndexDoc) -> dict[str, tuple[str, list[str]]]:
    """:func:`field_texts`, each field with its terms (its text split), tokenized once: the
    build makes both the index's fields and the ranking record from them."""
    from skillsite.index.clauses import clauses  # the build's: a reader never needs it

    use_when, not_for = clauses(doc.description, doc.body)
    terms = {
        "name": _terms(doc.name),
        "title": _terms(doc.title),
        "description": _terms(doc.description),
        "tags": _terms_all(doc.tags),
        "intents": _terms_all(doc.intents),
        "applies_to": _terms_all(doc.applies_to),
        "compatibility": _terms(doc.compatibility),
        "headings": _terms_all(doc.headings),
        "body": _terms(doc.body),
        "use_when": _terms(use_when),
        "not_for": _terms(not_for),
    }
    return {field: pair for field, pair in terms.items() if pair[0]}


def engine_texts(texts: dict[str, str]) -> dict[str, str]:
    """``texts`` (:func:`field_texts`) without the fields that only ranking records hold."""
    return {field: text for field, text in texts.items() if field not in RECORD_ONLY_FIELDS}


#: A word in more than this share of the skills' names (titles, tags) earns nothing there.
COMMON_SHARE = 0.5


#: What a presence match of a word that most names, titles or tags share still scores in
#: the engines: its skills stay candidates (a query of that word alone finds them), last.
COMMON_PRESENCE = 0.001


def specificity(docs_with_term: int, docs: int) -> float:
    """How much a name, title or tag match of a term counts, 0..1: fully for a word few
    skills' names hold, nothing for one that most hold (``automation`` in a corpus of
    ``<app>-automation`` skills), linearly between."""
    if docs <= 0 or docs_with_term <= 1:
        return 1.0
    return max(0.0, 1.0 - docs_with_term / (COMMON_SHARE * docs))


WEIGHT_FIELDS = ("body", "description", "name", "title", "tags")
"""The fields whose document frequencies give a term its weight (the largest counts)."""


def term_weight(docs_with_term: int, docs: int) -> float:
    """A query term's weight: its inverse document frequency, ``ln(1 + N / df)``, where
    ``df`` is the most skills that hold it in one of :data:`WEIGHT_FIELDS`, so that the
    words that tell a task apart count more than ``use``, ``file`` or ``code``. A term no
    skill holds can only match as a typo of another word (``help`` of ``helm``), which says
    little: it weighs as a word every skill holds."""
    if docs_with_term <= 0:
        return math.log(2.0)
    return math.log(1.0 + max(docs, 1) / docs_with_term)


PRESENCE_FIELDS = frozenset({"name", "title", "tags", "intents", "applies_to", "compatibility"})
"""Fields that ranking scores by whether they hold a query term: an engine's clause on one
scores the field's weight on every match (see :mod:`skillsite.index.presence`)."""

LEXICAL_SCALE = 0.1
"""The share of its weight that a lexical field's BM25 clause gets. Ranking gives a lexical
match at most 1 where a name earns 3, and has no IDF: at full weight, BM25 lets a rare
body word outrank a name. Measured with ``bench/bench_candidates.py`` (how much of ranking's
exact top 10 the candidates hold, at 100k skills): 0.76 at full weight, 0.94 at a tenth."""


def boosts() -> dict[str, float]:
    """Return each text field's query boost: its weight from :data:`WEIGHTS`, scaled by
    :data:`LEXICAL_SCALE` for a field outside :data:`PRESENCE_FIELDS`. A presence field's
    boost is the constant score of a match."""
    return {field: WEIGHTS[signal] * (1.0 if field in PRESENCE_FIELDS else LEXICAL_SCALE)
            for field, signal in SIGNALS.items()}


def _terms(text: str) -> tuple[str, list[str]]:
    """(The terms of ``text`` joined by spaces, the terms.)"""
    if not text:
        return "", []
    terms = word_terms(text, dropped=False)
    return " ".join(terms), terms


def _terms_all(values: Iterable[str]) -> tuple[str, list[str]]:
    """:func:`_terms` of every value: no word spans two values."""
    return _terms(" ".join(values))
