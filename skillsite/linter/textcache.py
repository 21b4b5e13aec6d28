"""Caches of what the scanners derive from a text (its lowered form, its markers, its
fences, its bytes), kept for the whole document being checked.

Every rule asks about the same texts in turn: the ``SKILL.md`` body and each bundled
file. A cache of the last few texts missed on every text of a skill with more files than
it held (Composio's ``pptx`` skill has 56: each rule lowered and searched them all again),
so these hold up to :data:`MAX_TEXTS` texts and are emptied as the next document's check
begins (:func:`forget`, called by ``lint.lint_document``): they keep one document's
texts, which that document holds in memory anyway.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeVar, cast

#: More than a skill's texts: its body, its whole file and ``bundle.MAX_FILES`` files.
MAX_TEXTS = 1024

_F = TypeVar("_F", bound=Callable[..., Any])
_CACHES: list[Any] = []


def per_document(function: _F) -> _F:
    """``lru_cache(maxsize=MAX_TEXTS)(function)``, emptied by :func:`forget`."""
    cached = lru_cache(maxsize=MAX_TEXTS)(function)
    _CACHES.append(cached)
    return cast(_F, cached)


def forget() -> None:
    """Empty every cache of :func:`per_document`."""
    for cached in _CACHES:
        cached.cache_clear()
