"""Prefix and typo matching on names, titles and tags, the same for both engines.

Only a word still being typed (:func:`skillsite.index.tokens.partial_term`: the last word of
a short query, no space after it) of :data:`FUZZY_MIN_CHARS` or more also matches a name,
title or tag term that *begins* with it: ``kube`` finds ``kubernetes``, but ``create`` in
"create a slide deck" never finds ``creator``. A term that no skill's name, title or tags
hold as a word is taken for a typo, and matches a word within one edit of it (a
substitution, insertion, deletion or swap of two neighbours), or, for the word being typed,
a word that begins within one edit of it: ``kuberentes`` finds ``kubernetes``. A word
they do hold gets no typo matches (``test`` does not find ``best``), which also keeps the
candidate query small: tantivy's ``FuzzyTermQuery`` (``distance=1``,
``transposition_cost_one``, ``prefix`` for the word being typed) for a typo, a
``TermSetQuery`` of the longer words for a known word being typed. Whoosh has no
prefix-fuzzy query, so its backend expands the term against the field's lexicon (with
:func:`near_typed` or :func:`near_word` for a typo) and ORs the matches. Since terms are
stems, a word being typed also matches the stems it runs past (:func:`typed_stems`:
``testin`` finds ``test``, the stem of ``testing``).
"""
from __future__ import annotations

from functools import lru_cache

FUZZY_MIN_CHARS = 4
#: How many letters a word being typed may run past a stem (see :func:`typed_stems`).
TYPED_PAST_STEM = 3
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


def typed_stems(query: str) -> list[str]:
    """The words a word being typed may be the stem of plus a few letters: its prefixes of
    :data:`FUZZY_MIN_CHARS` or more, at most :data:`TYPED_PAST_STEM` letters shorter
    (``testin`` is ``test`` on its way to ``testing``, whose stem is ``test``)."""
    return [query[:width] for width in range(max(FUZZY_MIN_CHARS, len(query) - TYPED_PAST_STEM),
                                             len(query))]


def near_typed(query: str, term: str) -> bool:
    """Whether a word being typed, ``query``, may become ``term``: ``term`` begins within
    one edit of it, or is one of its :func:`typed_stems`."""
    return near_prefix(query, term) or term in typed_stems(query)


@lru_cache(maxsize=1 << 16)
def near_word(query: str, term: str) -> bool:
    """Whether ``term`` is within exactly one edit of ``query`` (a whole word's typo)."""
    return abs(len(term) - len(query)) <= 1 and _one_edit(query, term)


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by exactly one edit (optimal string alignment)."""
    if a == b:
        return False
    if len(a) == len(b):
        diffs = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
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
