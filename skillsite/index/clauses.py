"""What a skill says about when to use it, and when not to: ``recommend`` reads both.

Authors say it in the description ("Use when the user asks to ...", "TRIGGERS - ...",
"Do NOT use for PDFs, spreadsheets ...", "not for simple single-file artifacts") and in
body sections headed "When to Use (This Skill)" or "When NOT to Use". The build keeps the
two as text (:func:`clauses`); their terms go into the skill's ranking record, so that a
task that matches the skill's "use when" earns a bonus and one that matches its "not for"
a penalty (:mod:`skillsite.reader.finder`).

A description without a "use when" marker says what the skill is for as a whole, so it is
the "use when" text itself, less its "not for" clauses.
"""
from __future__ import annotations

import re
from typing import NamedTuple

#: At most this many characters of each body section are kept (the rest is detail).
SECTION_CHARS = 800

_NOT_FOR = re.compile(
    r"\b(?:(?:do not|don'?t|never|must not|should not)\s+(?:use|trigger|invoke|apply)\b"
    r"|not\s+(?:for|when|meant for|intended for|a replacement for|a substitute for)\b"
    r"|not\s+a\s+replacement\b)[^.;!?\n]*",
    re.IGNORECASE)
_USE_WHEN = re.compile(
    r"\b(?:use (?:this skill |this |it )?(?:when|whenever|any ?time|for|if|after|before|to)\b"
    r"|(?:should|can) be used (?:when|for|to)\b|triggers?\b|activates? (?:when|on)\b"
    r"|when (?:the )?user|when asked|use proactively)",
    re.IGNORECASE)
_HEADING = re.compile(r"^#{1,4}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_AVOID_HEADING = re.compile(r"when\s+not\s+to\s+use|do\s+not\s+use|don'?t\s+use", re.IGNORECASE)
_USE_HEADING = re.compile(r"when\s+to\s+use|use\s+this\s+skill\s+when", re.IGNORECASE)


class Clauses(NamedTuple):
    """A skill's "use when" and "not for" text."""

    use_when: str
    not_for: str


def clauses(description: str, body: str = "") -> Clauses:
    """The "use when" and "not for" text of a skill's description and body sections."""
    avoid = [match.group(0) for match in _NOT_FOR.finditer(description)]
    rest = _NOT_FOR.sub(" ", description)
    marker = _USE_WHEN.search(rest)
    use = [rest[marker.start():] if marker else rest]
    for heading, text in _sections(body):
        if _AVOID_HEADING.search(heading):
            avoid.append(text)
        elif _USE_HEADING.search(heading):
            use.append(text)
    return Clauses(_tidy(" ".join(use)), _tidy(" ".join(avoid)))


def _tidy(text: str) -> str:
    return " ".join(text.split()).strip(" .,;:-")


def _sections(body: str) -> list[tuple[str, str]]:
    """(heading, the first SECTION_CHARS characters under it) of the body's "when (not) to
    use" sections."""
    if "use" not in body.lower():
        return []
    found = []
    headings = _headings(body)
    for number, heading in enumerate(headings):
        title = heading.group(1)
        if not (_AVOID_HEADING.search(title) or _USE_HEADING.search(title)):
            continue
        end = headings[number + 1].start() if number + 1 < len(headings) else len(body)
        found.append((title, body[heading.end():min(end, heading.end() + SECTION_CHARS)]))
    return found


def _headings(body: str) -> list[re.Match[str]]:
    """``list(_HEADING.finditer(body))``, trying only the lines that start with ``#``: a
    heading is one line long, so its matches are those of each line on its own, and a
    scan for a newline and ``#`` is several times faster than the engine trying every
    position for ``^``."""
    found = []
    at = 0 if body.startswith("#") else body.find("\n#")
    while at >= 0:
        start = at if at == 0 and body.startswith("#") else at + 1
        heading = _HEADING.match(body, start)
        if heading is not None:
            found.append(heading)
        at = body.find("\n#", start)
    return found

