"""A skill's ranking record: everything ranking reads of a candidate, as one string.

The build writes each skill's record into the content store (its ``terms`` column), so a
search reads one short string per candidate and parses it with one ``split``: no JSON,
no dict or set per candidate, no tokenizing. A record is twelve lines:

- the terms of ``name``, ``title``, ``description``, ``tags``, ``intents``,
  ``applies_to``, ``compatibility``, ``headings``, and the "use when" and "not for" text
  (:mod:`skillsite.index.clauses`), one field a line;
- the distinct terms of the description, headings and body together (what ranking's
  ``lexical`` signal reads) as ``term:count``;
- how many terms those three hold, for BM25's length normalization.

Each of the first eleven lines has a space before and after every term, so whether a field
holds a term is a substring test, ``" term " in line`` (terms are letters and digits
only, see :mod:`skillsite.index.tokens`), and so is whether it holds a phrase.
"""
from __future__ import annotations

from collections import _count_elements  # type: ignore[attr-defined]
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from skillsite.index.fields import field_texts

if TYPE_CHECKING:
    from skillsite.entries import IndexDoc

FIELDS = ("name", "title", "description", "tags", "intents", "applies_to", "compatibility",
          "headings", "use_when", "not_for")
LEXICAL = len(FIELDS)
LENGTH = LEXICAL + 1
LINES = LENGTH + 1
WHOLE = LINES
#: A count or length with more digits than this is damage, not a real skill.
MAX_DIGITS = 9


def record_of(texts: dict[str, str]) -> str:
    """The record of a skill's index fields (:func:`skillsite.index.fields.field_texts`)."""
    return record_of_terms({field: text.split() for field, text in texts.items()})


def record_of_terms(terms: Mapping[str, list[str]]) -> str:
    """:func:`record_of` from each field's terms (its text split, as
    :func:`skillsite.index.fields.field_terms` gives them)."""
    get = terms.get
    lines = [_padded(get(field, ())) for field in FIELDS]
    description, headings, body = get("description", ()), get("headings", ()), get("body", ())
    # Counter's own counting loop (in C), without a Counter: its update() and total()
    # cost a tenth of a record, made once per skill of a build.
    lexical: dict[str, int] = {}
    _count_elements(lexical, description)
    _count_elements(lexical, headings)
    _count_elements(lexical, body)
    lines.append(_padded([f"{term}:{count}" for term, count in lexical.items()]))
    lines.append(str(len(description) + len(headings) + len(body)))
    return "\n".join(lines)


def _padded(words: Sequence[str]) -> str:
    return f" {' '.join(words)} " if words else " "


def count(line: str, term: str) -> int:
    """How often a ``term:count`` line says ``term`` occurs (0 if not, or if damaged)."""
    key = f" {term}:"
    at = line.find(key)
    if at < 0:
        return 0
    start = at + len(key)
    digits = line[start:line.find(" ", start)]
    return int(digits) if digits.isdecimal() and len(digits) <= MAX_DIGITS else 0


def parse(record: str) -> list[str] | None:
    """A record's lines, then the record itself at :data:`WHOLE` (to test all its lines at
    once); None when ``record`` is not a record (an older store, or damage)."""
    lines = record.split("\n", LINES)
    if len(lines) != LINES or not lines[LENGTH].isdecimal() or len(lines[LENGTH]) > MAX_DIGITS:
        return None
    lines.append(record)
    return lines


def lines_for(doc: IndexDoc) -> list[str]:
    """:func:`parse` of ``doc``'s stored record, or of one made from its text when the store
    kept none."""
    lines = parse(doc.terms) if doc.terms else None
    if lines is None:
        lines = parse(record_of(field_texts(doc)))
        assert lines is not None, "record_of always makes a record"
    return lines
