"""URLs as text safe to show: without the user name and password they may carry."""
from __future__ import annotations

import re

# Greedy up to the last "@": a password holding an unencoded "@" or "/" is still cut out.
_CREDENTIALS = re.compile(r"//.*@")


def without_credentials(url: str) -> str:
    """``url`` with its user information removed: ``redis://:secret@host/0`` is
    ``redis://host/0``."""
    return _CREDENTIALS.sub("//", url)


def leaks_credentials(url: str, text: str) -> bool:
    """Whether ``text`` (an error about ``url``) holds a piece of ``url``'s user name or
    password, as a parser's message can when a password holds an unencoded ``/``."""
    found = _CREDENTIALS.search(url)
    info = found.group(0)[2:-1] if found else ""
    return any(part in text for part in re.split(r"[:/@]", info) if part)
