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
from collections.abc import Iterator
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
    avoid, rest = _not_for(description)
    marker = _USE_WHEN.search(rest)
    use = [rest[marker.start():] if marker else rest]
    for heading, text in _sections(body):
        if _AVOID_HEADING.search(heading):
            avoid.append(text)
        elif _USE_HEADING.search(heading):
            use.append(text)
    return Clauses(_tidy(" ".join(use)), _tidy(" ".join(avoid)))


def _not_for(description: str) -> tuple[list[str], str]:
    """The "not for" clauses of ``description``, and the description with each replaced
    by a space (as ``_NOT_FOR.sub(" ", description)``), from one search. Every clause
    holds "not", "don" or "never": an ASCII description without them has none, which a
    substring test tells far faster than the pattern (one per skill of a build)."""
    if description.isascii():
        lowered = description.lower()
        if "not" not in lowered and "never" not in lowered and "don" not in lowered:
            return [], description
    found = list(_NOT_FOR.finditer(description))
    if not found:
        return [], description
    kept, at = [], 0
    for match in found:
        kept.append(description[at:match.start()])
        at = match.end()
    kept.append(description[at:])
    return [match.group(0) for match in found], " ".join(kept)


def _tidy(text: str) -> str:
    return " ".join(text.split()).strip(" .,;:-")


def _sections(body: str) -> list[tuple[str, str]]:
    """(heading, the first SECTION_CHARS characters under it) of the body's "when (not) to
    use" sections."""
    if "use" not in body.lower():
        return []
    found = []
    # Both heading patterns hold "use": a heading line in ASCII without it is matched
    # only when it may end the section before it.
    open_at: tuple[str, int] | None = None  # (title, end) of a section not closed yet
    for start, line in _heading_lines(body):
        if open_at is None and line.isascii() and "use" not in line.lower():
            continue
        heading = _HEADING.match(body, start)
        if heading is None:
            continue
        if open_at is not None:
            found.append(_section(body, *open_at, heading.start()))
            open_at = None
        title = heading.group(1)
        if _AVOID_HEADING.search(title) or _USE_HEADING.search(title):
            open_at = (title, heading.end())
    if open_at is not None:
        found.append(_section(body, *open_at, len(body)))
    return found


def _section(body: str, title: str, start: int, end: int) -> tuple[str, str]:
    return title, body[start:min(end, start + SECTION_CHARS)]


def _heading_lines(body: str) -> Iterator[tuple[int, str]]:
    """(offset, text) of each line that starts with ``#``: a heading is one line long,
    so the pattern is tried there only (a scan for a newline and ``#`` is several times
    faster than the engine trying every position for ``^``)."""
    at = 0 if body.startswith("#") else body.find("\n#")
    while at >= 0:
        start = at if at == 0 and body.startswith("#") else at + 1
        end = body.find("\n", start)
        yield start, body[start:end] if end >= 0 else body[start:]
        at = body.find("\n#", start)
