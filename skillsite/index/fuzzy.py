"""Prefix and typo matching on names, titles and tags, the same for both engines.

A query term of :data:`FUZZY_MIN_CHARS` or more also matches a name, title or tag term that
*begins* with it: ``kube`` finds ``kubernetes``. A term that no skill's name, title or tags
hold as a word is taken for a typo, and matches give or take one edit (a substitution,
insertion, deletion or swap of two neighbours): ``kuberentes`` finds ``kubernetes``. A word
they do hold gets no typo matches (``test`` does not find ``best``), which also keeps the
candidate query small: tantivy's ``FuzzyTermQuery`` (``distance=1``,
``transposition_cost_one``, ``prefix=True``) for a typo, a ``TermSetQuery`` of the longer
words otherwise. Whoosh has no prefix-fuzzy query, so its backend expands the term against
the field's lexicon (with :func:`near_prefix` for a typo) and ORs the matches.
"""
from __future__ import annotations

from functools import lru_cache

FUZZY_MIN_CHARS = 4
#: Engine fields that get prefix and fuzzy matching.
FUZZY_FIELDS = ("name", "title", "tags")
#: Share of a field's weight that a fuzzy or prefix match earns, at query time.
FUZZY_BOOST = 0.5


@lru_cache(maxsize=1 << 16)
def near_prefix(query: str, term: str) -> bool:
    """Whether some prefix of ``term`` is within one edit of ``query`` (cached: ranking
    asks the same pairs again and again)."""
    size = len(query)
    if len(term) < size - 1:
        return False
    if term.startswith(query):
        return True
    return any(_one_edit(query, term[:width]) for width in (size - 1, size, size + 1)
               if 0 < width <= len(term))


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by exactly one edit (optimal string alignment)."""
    if a == b:
        return False
    if len(a) == len(b):
        diffs = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
        if len(diffs) == 1:
            return True
        first = diffs[0]
        return (len(diffs) == 2 and diffs[1] == first + 1
                and a[first] == b[first + 1] and a[first + 1] == b[first])
    if abs(len(a) - len(b)) != 1:
        return False
    short, long = (a, b) if len(a) < len(b) else (b, a)
    for i, char in enumerate(short):
        if char != long[i]:
            return short[i:] == long[i + 1:]
    return True
