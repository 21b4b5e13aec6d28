"""The fast heading scan of :mod:`skillsite.index.clauses` finds the sections that the
regular expression alone finds, on bodies made of heading-like and plain lines (the scan
matches only the heading lines that may hold "use", and those that end a section)."""
from __future__ import annotations

import random

from skillsite.index.clauses import (
    _AVOID_HEADING,
    _HEADING,
    _USE_HEADING,
    SECTION_CHARS,
    _sections,
)

LINES = ["# Title", "## When to use", "text use here", "#not heading", "####  When NOT to use ##",
         "", "   # indented", "##### five", "#", "# ", "body line", "## Do not use this", "\t",
         "#\tTab heading", "\r", "# Windows line\r", "# When to uſe", "## Ünicode heading",
         "## DON'T USE", "# use this skill when", "x" * 900]


def _expected(body: str) -> list[tuple[str, str]]:
    """The sections as every heading's match gives them."""
    if "use" not in body.lower():
        return []
    headings = list(_HEADING.finditer(body))
    found = []
    for number, heading in enumerate(headings):
        title = heading.group(1)
        if not (_AVOID_HEADING.search(title) or _USE_HEADING.search(title)):
            continue
        end = headings[number + 1].start() if number + 1 < len(headings) else len(body)
        found.append((title, body[heading.end():min(end, heading.end() + SECTION_CHARS)]))
    return found


def test_the_heading_scan_finds_what_the_expression_finds() -> None:
    rng = random.Random(3)
    for _ in range(5000):
        body = "\n".join(rng.choice(LINES) for _ in range(rng.randint(0, 12)))
        body = ("\n" if rng.random() < 0.3 else "") + body + ("\n" if rng.random() < 0.3 else "")
        assert _sections(body) == _expected(body), body
