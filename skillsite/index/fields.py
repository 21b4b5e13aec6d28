"""The index's fields, shared by every backend, so both engines hold the same data.

Each :class:`~skillsite.index.IndexDoc` attribute becomes one engine field of
pre-tokenized text (see :mod:`skillsite.index.tokens`). List attributes are joined
into one value: their terms then match the same way in both engines. Each field
carries the FORMATS.md §4 weight of its ranking signal as a query-time boost, so
the engines' own BM25 already prefers a name hit to a body hit when they pick the
candidates that :func:`skillsite.ranking.rank` then orders.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from skillsite.index.tokens import joined

if TYPE_CHECKING:
    from skillsite.index.base import IndexDoc

KEY_FIELD = "key"
"""The stored, untokenized skill name: what a search returns and a delete targets."""

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
"""Engine field → the ranking signal (a key of ``skillsite.ranking.WEIGHTS``) it feeds."""

TEXT_FIELDS: tuple[str, ...] = tuple(SIGNALS)


def field_texts(doc: IndexDoc) -> dict[str, str]:
    """Return the non-empty engine fields of ``doc`` as whitespace-joined terms."""
    texts = {
        "name": joined(doc.name),
        "title": joined(doc.title),
        "description": joined(doc.description),
        "tags": _joined_all(doc.tags),
        "intents": _joined_all(doc.intents),
        "applies_to": _joined_all(doc.applies_to),
        "compatibility": joined(doc.compatibility),
        "headings": _joined_all(doc.headings),
        "body": joined(doc.body),
    }
    return {field: text for field, text in texts.items() if text}


def boosts() -> dict[str, float]:
    """Return each text field's query boost, taken from ``skillsite.ranking.WEIGHTS``."""
    # Imported here: ranking imports this package for IndexDoc and the tokenizer, and
    # the weights must have one home, the ranking module.
    from skillsite.ranking import WEIGHTS

    return {field: WEIGHTS[signal] for field, signal in SIGNALS.items()}


def _joined_all(values: Iterable[str]) -> str:
    return " ".join(text for text in map(joined, values) if text)
