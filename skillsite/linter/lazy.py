"""Regular expressions compiled when first used.

Compiling a pattern costs 0.1-1.5 ms, and every cold ``skillsite check`` pays for each
pattern compiled at import. A pattern that only rare input reaches (a command piped to a
shell, a secret's placeholder, a text whose lowering moves its offsets) is compiled on
first use instead, so that a check of ordinary skills never compiles it. Patterns most
corpora need stay compiled at import: the parent process compiles those once before it
forks its workers (``checker._load_checker``), where each worker would compile a lazy one
again.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache


def lazy(pattern: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """A function giving ``re.compile(pattern, flags)``, compiled on its first call."""
    return cache(lambda: re.compile(pattern, flags))
