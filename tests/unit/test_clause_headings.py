"""The fast heading scan of :mod:`skillsite.index.clauses` finds what the regular expression
alone finds, on bodies made of heading-like and plain lines."""
from __future__ import annotations

import random

from skillsite.index.clauses import _HEADING, _headings

LINES = ["# Title", "## When to use", "text use here", "#not heading", "####  When NOT to use ##",
         "", "   # indented", "##### five", "#", "# ", "body line", "## Do not use this", "\t",
         "#\tTab heading", "\r", "# Windows line\r"]


def test_the_heading_scan_finds_what_the_expression_finds() -> None:
    rng = random.Random(3)
    for _ in range(5000):
        body = "\n".join(rng.choice(LINES) for _ in range(rng.randint(0, 12)))
        body = ("\n" if rng.random() < 0.3 else "") + body + ("\n" if rng.random() < 0.3 else "")
        expected = [(m.start(), m.end(), m.group(1)) for m in _HEADING.finditer(body)]
        assert [(m.start(), m.end(), m.group(1)) for m in _headings(body)] == expected, body
