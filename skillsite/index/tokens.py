"""The one tokenizer that indexing, querying and ranking all share.

Why one tokenizer in Python rather than each engine's own analyzer: tantivy and
Whoosh ship different lowercasers, stop lists and stemmers (Snowball versus Porter),
so the same text would yield different terms, and the two backends would retrieve
different candidates. Instead, text is turned into terms here, once, and each
engine indexes the result with a plain whitespace tokenizer. The engines then hold
the very same terms, a query is the very same set of terms for both, and
:func:`skillsite.index.ranking.rank` scores with the same terms again.

The rules, in order:

1. Lowercase (Unicode-aware ``str.lower``).
2. Split on anything that is not a letter or a digit; ``_`` and ``-`` split too, so
   ``pdf-extract`` and ``pdf_extract`` both give ``pdf``, ``extract``.
3. Drop tokens longer than :data:`MAX_TOKEN_CHARS` (base64 blobs, hashes) and the
   tiny :data:`STOP_WORDS` list.
4. Strip a plural ``s`` lightly (:func:`stem`): ``skills`` → ``skill``,
   ``libraries`` → ``library``, ``classes`` → ``class``; ``status``, ``analysis``,
   ``class`` and words of three letters or fewer stay as they are.

Query syntax is never interpreted: quotes, colons, parentheses and ``AND`` are just
punctuation or words, so no user input can make a query fail.
"""
from __future__ import annotations

import re

MAX_TOKEN_CHARS = 64

STOP_WORDS: frozenset[str] = frozenset(
    "a an and are as at be by for from in is it of on or the this that to with".split()
)

_WORD = re.compile(r"[^\W_]+")
# For ASCII text, the same split as _WORD, about twice as fast: indexing spends
# most of its Python time here.
_ASCII_SEPARATORS = str.maketrans({chr(c): " " for c in range(128) if not chr(c).isalnum()})
_CACHE_LIMIT = 1 << 17


class _TermCache(dict[str, str]):
    """Word → term, filled on first sight.

    A corpus repeats a few thousand words millions of times, and a plain dict hit is
    several times cheaper than re-running the rules. Cleared when full, because a
    long-lived server tokenizes whatever queries it is sent.
    """

    def __missing__(self, word: str) -> str:
        if len(self) >= _CACHE_LIMIT:
            self.clear()
        term = self[word] = _term(word)
        return term


_TERMS = _TermCache()


def tokenize(text: str) -> list[str]:
    """Return the terms of ``text`` in order, duplicates kept (for term frequency)."""
    lowered = text.lower()
    if lowered.isascii():
        words = lowered.translate(_ASCII_SEPARATORS).split()
    else:
        words = _WORD.findall(lowered)
    return list(filter(None, map(_TERMS.__getitem__, words)))  # a dropped word maps to ""


def query_terms(text: str) -> list[str]:
    """Return the distinct terms of a user query, in first-seen order."""
    return list(dict.fromkeys(tokenize(text)))


def joined(text: str) -> str:
    """Return the terms of ``text`` joined by spaces, ready for an engine's whitespace
    tokenizer.

    A dropped word leaves a double space rather than being filtered out: both engines'
    whitespace tokenizers skip it, and indexing spends most of its Python time here.
    """
    if not text:
        return ""
    lowered = text.lower()
    if lowered.isascii():
        words = lowered.translate(_ASCII_SEPARATORS).split()
    else:
        words = _WORD.findall(lowered)
    return " ".join(map(_TERMS.__getitem__, words)).strip()


def stem(word: str) -> str:
    """Strip an English plural ending, conservatively; ``word`` is already lowercase."""
    if len(word) <= 3 or not word.endswith("s") or word.isdigit():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith(("ss", "us", "is")):
        return word
    return word[:-1]


def _term(token: str) -> str:
    if len(token) > MAX_TOKEN_CHARS or token in STOP_WORDS:
        return ""
    return stem(token)
