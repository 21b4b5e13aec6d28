"""What ``recommend`` adds to a skill's ranking score for what a task says: its intents,
environment and capabilities, the skill's "use when" text, and a penalty for its "not
for" text (:mod:`skillsite.index.clauses`)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from skillsite.index.ranking_record import FIELDS
from skillsite.index.tokens import query_terms

INTENT_BONUS = 2.5
APPLIES_TO_BONUS = 2.0
CAPABILITY_BONUS = 1.0
#: recommend: what a task's terms earn in a skill's "use when" text, and lose in its "not
#: for" text (skillsite.index.clauses), times the weighted share of the terms found there.
USE_WHEN_BONUS = 2.0
NOT_FOR_PENALTY = 3.0
#: ... but a term the skill's own name, title, description or "use when" hold is its own
#: subject, not a neighbour's.
NOT_FOR_UNLESS = ("name", "title", "description", "use_when")


class Boost(NamedTuple):
    """What ``recommend`` adds to a skill's score: ``weight`` × the weighted share of the
    terms of ``text`` that its ``fields`` hold and its ``unless`` fields do not."""

    weight: float
    text: str
    fields: tuple[str, ...]
    unless: tuple[str, ...] = ()


def bonus(lines: list[str], boosts: Sequence[Boost], weights: Mapping[str, float]) -> float:
    """What ``boosts`` add to a skill: weight × the weighted share of the text's terms
    found in those of its fields (and in none of the ``unless`` fields); a negative weight
    is a penalty."""
    total = 0.0
    for weight, text, fields, unless in boosts:
        terms = query_terms(text)
        if not terms:
            continue
        present: set[str] = set()
        for field in fields:
            present.update(lines[FIELDS.index(field)].split())
        for field in unless:
            present.difference_update(lines[FIELDS.index(field)].split())
        shares = [weights.get(term, 1.0) for term in terms]
        total += weight * sum(share for term, share in zip(terms, shares, strict=True)
                              if term in present) / (sum(shares) or 1.0)
    return total
