"""Which literal markers a text holds, found in one pass instead of one search per marker.

The scanners run an expensive pattern only on a text that holds its literal marker
(``curl`` before the pipe-to-shell regex, ``AKIA`` before the AWS key pattern). Some 40
``marker in text`` searches per text cost more than the rest of the scanning, so one
Aho-Corasick automaton (``ahocorasick_rs``, in Rust) finds every marker of
:data:`MARKERS` in the lowered text at once, and the answer is kept for the last texts.

:func:`contains`, :func:`contains_lowered` and their ``any_`` forms give exactly what ``marker in
text`` and
``marker in text.lower()`` give: a marker that is not in :data:`MARKERS` is simply
searched for.
"""
from __future__ import annotations

import re
from functools import cache

import ahocorasick_rs

from skillsite.linter.textcache import per_document

#: ``text.lower()``, computed once per text for every scanner that looks for words (a str
#: caches its hash, so a repeated lookup costs next to nothing).
lower = per_document(str.lower)

#: Every marker the scanners ask about, in lower case. Markers that most texts hold (a
#: quote) are left out: a plain search stops at their first occurrence anyway. A fence
#: and a link are in: a search that fails reads the whole text (about a nanosecond a
#: character for two or three characters), and most bundled files hold neither.
MARKERS = (
    # secrets: token shapes, then secret-named keys
    "akia", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox", "sk-",
    "k_live_", "aiza", "private key", "key", "secret", "token", "passw",
    # pipe to shell
    "curl", "wget", "iwr", "irm", "invoke-",
    # prompt override
    "gnor", "isregard", "orget ", "verride y", "ypass y", "are now", "the user", "do not",
    "without", "pay no attention", "no longer follow", "stop following",
    # unpinned runners, dynamic context, hidden comments, suppressions
    "npx", "uvx", "pipx run", "bunx", "dlx", "!`", "<!--", "skillsite",
    # leftovers and template blanks
    "todo", "fixme", "tbd", "xxx", "[todo", "[insert", "[describe", "[replace with",
    "[add your",
    # personal paths
    "/users/", "/home/", "users\\",
    # network commands and credentials (the trust capabilities)
    "fetch", "gh api", "xh", "://", "_key", "password",
    # fences and links: a search that fails reads the whole text, the pass reads it anyway
    "```", "~~~", "](", "]:",
)
_KNOWN = frozenset(MARKERS)
_AUTOMATON = ahocorasick_rs.AhoCorasick(MARKERS)


@per_document
def found(text: str) -> frozenset[str]:
    """The markers of :data:`MARKERS` that ``text.lower()`` holds (remembered for the
    document's texts, which every scanner asks about in turn)."""
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


@cache
def _split(candidates: tuple[str, ...]
           ) -> tuple[frozenset[str], tuple[str, ...], tuple[str, ...],
                      tuple[tuple[str, str], ...]]:
    """The lowered forms of the ``candidates`` that are in :data:`MARKERS`, the
    candidates that are not (those are searched for), those of them that an ASCII
    text could hold (the ASCII ones: a text's ``isascii`` costs nothing, and a text
    searched in full for a Cyrillic or Chinese marker costs a pass), and each candidate
    with its lowered form."""
    unknown = tuple(m for m in candidates if m.lower() not in _KNOWN)
    return (frozenset(m.lower() for m in candidates if m.lower() in _KNOWN),
            unknown, tuple(m for m in unknown if m.isascii()),
            tuple((m, m.lower()) for m in candidates))


def any_in(text: str, candidates: tuple[str, ...]) -> bool:
    """``any(marker in text for marker in candidates)``, as :func:`contains` answers it."""
    known, unknown, ascii_unknown, lowered = _split(candidates)
    present = found(text)
    # A marker in the text has its lowered form in ``present``: only those are confirmed.
    if not present.isdisjoint(known) and any(
            marker in text for marker, low in lowered if low in present):
        return True
    if not unknown:
        return False  # every candidate is a marker (the usual case)
    return any(marker in text for marker in (ascii_unknown if text.isascii() else unknown))


def any_lowered(text: str, candidates: tuple[str, ...]) -> bool:
    """``any(marker in text.lower() for marker in candidates)``, for lower-case markers."""
    known, unknown, ascii_unknown, _ = _split(candidates)
    return (not found(text).isdisjoint(known)
            or any(marker in lower(text)
                   for marker in (ascii_unknown if text.isascii() else unknown)))


def matches_from(pattern: re.Pattern[str], text: str, first: str) -> list[re.Match[str]]:
    """``list(pattern.finditer(text))`` for a pattern whose every match starts with the
    character ``first``: the pattern is tried only at each ``first``, found at memchr
    speed (the regex engine would read the text a character at a time between them)."""
    found = []
    match = pattern.match
    at = text.find(first)
    while at >= 0:
        hit = match(text, at)
        if hit is None:
            at = text.find(first, at + 1)
        else:
            found.append(hit)
            at = text.find(first, hit.end())
    return found
