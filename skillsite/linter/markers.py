"""Which literal markers a text holds, found in one pass instead of one search per marker.

The scanners run an expensive pattern only on a text that holds its literal marker
(``curl`` before the pipe-to-shell regex, ``AKIA`` before the AWS key pattern). Some 40
``marker in text`` searches per text cost more than the rest of the scanning, so one
Aho-Corasick automaton (``ahocorasick_rs``, in Rust) finds every marker of
:data:`MARKERS` in the lowered text at once, and the answer is kept for the last texts.

:func:`contains`, :func:`contains_lowered` and their ``any_`` forms give exactly what ``marker in text`` and
``marker in text.lower()`` give: a marker that is not in :data:`MARKERS` is simply
searched for.
"""
from __future__ import annotations

from functools import lru_cache

import ahocorasick_rs

#: ``text.lower()``, computed once per text for every scanner that looks for words (a str
#: caches its hash, so a repeated lookup costs next to nothing).
lower = lru_cache(maxsize=16)(str.lower)

#: Every marker the scanners ask about, in lower case. Markers that most texts hold (a
#: quote, a fence) are left out: a plain search stops at their first occurrence anyway.
MARKERS = (
    # secrets: token shapes, then secret-named keys
    "akia", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox", "sk-",
    "k_live_", "aiza", "private key", "key", "secret", "token", "passw",
    # pipe to shell
    "curl", "wget", "iwr", "irm", "invoke-",
    # prompt override
    "gnore ", "isregard", "orget ", "verride y", "ypass y", "are now", "the user", "do not",
    "without",
    # unpinned runners, dynamic context, hidden comments, suppressions
    "npx", "uvx", "pipx run", "bunx", "dlx", "!`", "<!--", "skillsite",
    # leftovers and template blanks
    "todo", "fixme", "tbd", "xxx", "[todo", "[insert", "[describe", "[replace with",
    "[add your",
)
_KNOWN = frozenset(MARKERS)
_AUTOMATON = ahocorasick_rs.AhoCorasick(MARKERS)


@lru_cache(maxsize=32)
def found(text: str) -> frozenset[str]:
    """The markers of :data:`MARKERS` that ``text.lower()`` holds (remembered for the last
    32 texts, about one skill's files, which every scanner asks about in turn)."""
    # Overlapping matches, so that "key" inside "private key" is seen as well.
    return frozenset(_AUTOMATON.find_matches_as_strings(lower(text), overlapping=True))


def contains(text: str, marker: str) -> bool:
    """``marker in text``: lowering keeps an ASCII marker whole, so a text whose lowered
    form lacks the lowered marker cannot hold it, and most texts are settled by that."""
    low = marker.lower()
    if low in _KNOWN and low not in found(text):
        return False
    return marker in text


def contains_lowered(text: str, marker: str) -> bool:
    """``marker in text.lower()``, for a lower-case ``marker``."""
    if marker in _KNOWN:
        return marker in found(text)
    return marker in lower(text)


def any_in(text: str, candidates: tuple[str, ...]) -> bool:
    """``any(marker in text for marker in candidates)``, as :func:`contains` answers it."""
    present = found(text)
    for marker in candidates:
        low = marker.lower()
        if (low in present or low not in _KNOWN) and marker in text:
            return True
    return False


def any_lowered(text: str, candidates: tuple[str, ...]) -> bool:
    """``any(marker in text.lower() for marker in candidates)``, for lower-case markers."""
    present = found(text)
    return any(marker in present if marker in _KNOWN else marker in lower(text)
               for marker in candidates)
