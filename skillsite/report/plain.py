"""Rule docs as plain text for places that show no markup (a terminal, SARIF's ``text``)."""
from __future__ import annotations

import re

#: ``code`` (reST) and `code` (Markdown); a literal may itself hold a backtick
#: (``!`command```), so it ends at the last of a run of backticks.
LITERAL = re.compile(r"``(.+?)``(?!`)|`([^`\n]+)`")
#: Between two sentences: their punctuation, space, and a capital (or quote) next.
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z'\"(])")


def plain_summary(doc: str) -> str:
    """A rule doc's first paragraph as one line of plain text: ``code`` as 'code'."""
    paragraph = " ".join(doc.strip().split("\n\n", 1)[0].split())
    return LITERAL.sub(lambda m: f"'{m.group(1) or m.group(2)}'", paragraph)


def first_sentence(text: str) -> str:
    return SENTENCE_END.split(text, 1)[0]
