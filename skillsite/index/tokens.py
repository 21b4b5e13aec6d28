"""The one tokenizer that indexing, querying and ranking all share.

Why one tokenizer in Python rather than each engine's own analyzer: tantivy and
Whoosh ship different lowercasers, stop lists and stemmers (Snowball versus Porter),
so the same text would yield different terms, and the two backends would retrieve
different candidates. Instead, text is turned into terms here, once, and each
engine indexes the result with a plain whitespace tokenizer. The engines then hold
the very same terms, a query is the very same set of terms for both, and
:func:`skillsite.index.ranking.rank` scores with the same terms again.

The rules, in order:

1. Lowercase (Unicode-aware ``str.lower``). ``C++``, ``C#`` and ``F#`` become ``cpp``,
   ``csharp`` and ``fsharp``: the split below would leave a bare ``c`` or ``f``.
2. Split on anything that is not a letter or a digit; ``_`` and ``-`` split too, so
   ``pdf-extract`` and ``pdf_extract`` both give ``pdf``, ``extract``.
3. Drop tokens longer than :data:`MAX_TOKEN_CHARS` (base64 blobs, hashes) and the
   :data:`STOP_WORDS` (function words: a task says "help me write my first ..."; they
   carry nothing).
4. Reduce each word to its English Snowball stem (:func:`stem`, PyStemmer), so the
   forms of one word meet: ``creating``, ``created`` and ``creates`` are ``creat``;
   ``decks`` is ``deck``. A stem is a whole word's: ``create`` never matches ``creator``
   (a prefix match is only for a word still being typed, see :func:`partial_term`). An
   acronym's plural loses its ``s`` too (``PDFs``, ``PRs``), which Snowball keeps.

Query syntax is never interpreted: quotes, colons, parentheses and ``AND`` are just
punctuation or words, so no user input can make a query fail.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import Stemmer

MAX_TOKEN_CHARS = 64

STOP_WORDS: frozenset[str] = frozenset(
    "a an and are as at be by for from in is it of on or the this that to with"
    " i me my mine we us our ours you your yours he him his she her its they them their"
    " am was were been being do does did can could should would will shall may might must"
    " so than then there these those into onto what which who whom how why when where"
    " all any each some such very just also too own".split()
)
#: A query of at most this many terms whose last word has no space after it may be a word
#: still being typed: its last term also matches the longer words it begins.
PARTIAL_MAX_TERMS = 4

_WORD = re.compile(r"[^\W_]+")
#: The languages named with a symbol (not after a letter or a digit: ``abc++`` is not C++).
_SYMBOL_NAMES = {"c++": " cpp ", "c#": " csharp ", "f#": " fsharp "}
_SYMBOL_NAME = re.compile(r"(?<![^\W_])(?:c\+\+|c#|f#)")
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


def _lower(text: str) -> str:
    """``text`` lowercased, the languages named with a symbol spelled out."""
    lowered = text.lower()
    if "c#" in lowered or "c++" in lowered or "f#" in lowered:
        return _SYMBOL_NAME.sub(lambda found: _SYMBOL_NAMES[found.group()], lowered)
    return lowered


def tokenize(text: str) -> list[str]:
    """Return the terms of ``text`` in order, duplicates kept (for term frequency)."""
    lowered = _lower(text)
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
    return " ".join(word_terms(text)).strip()


def word_terms(text: str, *, dropped: bool = True) -> list[str]:
    """The term of every word of ``text`` in order, ``""`` for a dropped word (left out
    without ``dropped``): :func:`joined` is these joined by spaces and stripped, and
    :func:`tokenize` these without the empty ones."""
    lowered = _lower(text)
    if lowered.isascii():
        words = lowered.translate(_ASCII_SEPARATORS).split()
    else:
        words = _WORD.findall(lowered)
    terms = map(_TERMS.__getitem__, words)
    return list(terms if dropped else filter(None, terms))


def partial_term(text: str) -> str | None:
    """The last term of ``text`` when it may be a word still being typed: ``text`` ends in
    a letter or digit (no space or punctuation after it) and has at most
    :data:`PARTIAL_MAX_TERMS` terms. ``kube`` → ``kube``; ``kube `` and a long task → None."""
    if not text or not text[-1].isalnum():
        return None
    terms = tokenize(text)
    if not terms or len(terms) > PARTIAL_MAX_TERMS or not text.lower().endswith(terms[-1]):
        return None  # the last word was a stop word, or its stem is not what was typed
    return terms[-1]


_VOWELS = frozenset("aeiouy")


def stem(word: str) -> str:
    """The Snowball (Porter2) English stem of ``word``, already lowercase; an acronym's
    plural (no vowel before the final ``s``: ``pdfs``, ``llms``) loses the ``s``."""
    if len(word) >= 3 and word.endswith("s") and not _VOWELS.intersection(word[:-1]) \
            and not word.isdigit():
        return word[:-1]
    stem: str = _stemmer().stemWord(word)
    return stem


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    import Stemmer

    return Stemmer.Stemmer("english")


def _term(token: str) -> str:
    if len(token) > MAX_TOKEN_CHARS or token in STOP_WORDS:
        return ""
    return stem(token)
