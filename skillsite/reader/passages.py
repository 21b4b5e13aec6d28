"""``read``: a section, a line range or the whole body, cut explicitly to a budget.

A cut is never silent: the text ends with :data:`MARKER` (counted inside ``max_chars``),
the passage says ``truncated``, and its ``cursor`` continues exactly where the cut fell.
A whole-body read stops at a section boundary when one fits, so it splits a section
only when that section alone is larger than the budget.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Callable
from dataclasses import dataclass

from skillsite.reader.errors import ReaderError
from skillsite.reader.shelf import Span, StoredSkill

MARKER = "\n[… truncated: {left} more characters; pass the cursor to read on]"
MIN_CHARS = 100
MAX_CHARS = 100_000
MAX_CURSOR_CHARS = 512


@dataclass(frozen=True)
class Cut:
    """Text taken from a skill, the file lines it covers and where it stopped."""

    text: str
    start_line: int
    end_line: int
    truncated: bool
    cursor: str | None


@dataclass(frozen=True)
class Position:
    """Where a read resumes: ``mode`` is "body", "section", "lines" or "file" (a
    supporting file, ``file`` its path in the skill's folder; ``version`` its sha256)."""

    name: str
    version: str
    mode: str
    at: int              # offset into body / section text, or the next line
    section: int = -1
    end: int = 0         # the last line of a line range
    file: str = ""

    def encode(self, key: bytes | None = None) -> str:
        """The cursor text; with ``key``, signed (``<payload>.<mac>``) so that only a
        cursor this key issued decodes."""
        fields = [self.name, self.version, self.mode, self.at, self.section, self.end]
        if self.file:
            fields.append(self.file)
        blob = json.dumps(fields, separators=(",", ":")).encode("utf-8")
        payload = _b64(blob)
        return payload if key is None else f"{payload}.{_mac(key, payload)}"

    @classmethod
    def decode(cls, cursor: object, key: bytes | None = None) -> Position:
        """The position ``cursor`` names; with ``key``, only one signed under it."""
        bad = ReaderError("invalid-argument", "this cursor is not one that read returned; "
                          "pass the cursor of the last result unchanged")
        if not isinstance(cursor, str) or not 0 < len(cursor) <= MAX_CURSOR_CHARS:
            raise bad
        payload, _, mac = cursor.partition(".")
        if key is not None and not hmac.compare_digest(mac.encode("utf-8", "replace"),
                                                   _mac(key, payload).encode("ascii")):
            raise bad
        try:
            blob = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
            name, version, mode, at, section, end, *rest = json.loads(blob)
        except (ValueError, TypeError, binascii.Error):
            raise bad from None
        file = rest[0] if len(rest) == 1 else None if rest else ""
        if not (isinstance(name, str) and isinstance(version, str) and isinstance(file, str)
                and mode in ("body", "section", "lines", "file", "template")
                and (mode == "file") == bool(file)
                and all(isinstance(v, int) and not isinstance(v, bool) and v >= -1
                        for v in (at, section, end))):
            raise bad
        return cls(name, version, mode, at, section, end, file)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _mac(key: bytes, payload: str) -> str:
    return _b64(hmac.new(key, payload.encode("ascii", "replace"), hashlib.sha256).digest())


def clamp_chars(max_chars: object) -> int:
    if isinstance(max_chars, bool) or not isinstance(max_chars, int):
        raise ReaderError("invalid-argument", "max_chars must be a whole number")
    return min(max(max_chars, MIN_CHARS), MAX_CHARS)


def find_section(skill: StoredSkill, section: str | int) -> Span:
    """The span called ``section`` (a heading, or an index from ``open``)."""
    spans = skill.spans
    if isinstance(section, int) and not isinstance(section, bool):
        if 0 <= section < len(spans):
            return spans[section]
        raise _no_section(skill, f"has no section number {section}")
    if not isinstance(section, str):
        raise ReaderError("invalid-argument", "section must be a heading or a number")
    wanted = section.strip().lstrip("#").strip()
    same: Callable[[str], bool]
    for same in (lambda h: h == wanted, lambda h: h.casefold() == wanted.casefold()):
        found = [span for span in spans if same(span.heading)]
        if len(found) == 1:
            return found[0]
        if found:
            raise ReaderError("ambiguous-section",
                              f"{skill.name} has {len(found)} sections called "
                              f"{wanted[:80]!r}; pass its number instead: "
                              + ", ".join(f"{s.index} (line {s.start_line})" for s in found),
                              headings=_headings(skill))
    if wanted.isdigit() and int(wanted) < len(spans):
        return spans[int(wanted)]
    raise _no_section(skill, f"has no section called {wanted[:80]!r}")


def _no_section(skill: StoredSkill, what: str) -> ReaderError:
    listing = "; ".join(f"{s.index}: {s.heading or '(before the first heading)'}"
                        for s in skill.spans)
    return ReaderError("section-not-found", f"{skill.name} {what}. Its sections: {listing}",
                       headings=_headings(skill))


def _headings(skill: StoredSkill) -> list[dict[str, object]]:
    return [{"index": s.index, "heading": s.heading, "level": s.level} for s in skill.spans]


def read_section(skill: StoredSkill, span: Span, at: int, budget: int,
                 key: bytes | None = None) -> Cut:
    text = skill.text(span)
    stop, shown = _cut(text, at, budget, boundaries=())
    position = Position(skill.name, skill.sha256, "section", stop, span.index)
    return _result(shown, _line_at(skill, span.offset + at),
                   _line_at(skill, span.offset + max(stop - 1, at)), stop, len(text), position,
                   key)


def read_body(skill: StoredSkill, at: int, budget: int, key: bytes | None = None) -> Cut:
    starts = tuple(span.offset for span in skill.spans)
    stop, shown = _cut(skill.body, at, budget, boundaries=starts)
    position = Position(skill.name, skill.sha256, "body", stop)
    return _result(shown, _line_at(skill, at), _line_at(skill, max(stop - 1, at)), stop,
                   len(skill.body), position, key)


def read_lines(skill: StoredSkill, start: int, end: int, at: int, budget: int,
               key: bytes | None = None) -> Cut:
    """File lines ``start``..``end`` from character ``at`` of them; lines between
    sections (blank lines the store does not keep) read as blank."""
    last = skill.lines
    if start < 1 or end < start:
        raise ReaderError("invalid-argument", f"a line range is START-END with 1 <= START "
                          f"<= END; {skill.name} has lines 1-{last}")
    if start > last:
        raise ReaderError("invalid-argument", f"{skill.name} has lines 1-{last} only")
    end = min(end, last)
    lines = _line_map(skill)
    text = "\n".join(lines.get(number, "") for number in range(start, end + 1))
    stop, shown = _cut(text, at, budget, boundaries=())
    position = Position(skill.name, skill.sha256, "lines", stop, start, end)
    last_line = end if stop >= len(text) else start + text.count("\n", 0, max(stop - 1, at))
    return _result(shown, start + text.count("\n", 0, at), last_line, stop, len(text),
                   position, key)


def read_text(text: str, position: Position, budget: int, key: bytes | None = None) -> Cut:
    """``text`` (a supporting file, a rendered template) from ``position.at``, its lines
    counted from 1; the cursor keeps ``position``'s mode and file."""
    stop, shown = _cut(text, position.at, budget, boundaries=())
    first = 1 + text.count("\n", 0, position.at)
    last = first + text.count("\n", position.at, max(stop - 1, position.at))
    return _result(shown, first, last, stop, len(text),
                   Position(position.name, position.version, position.mode, stop,
                            file=position.file),
                   key)


def _result(shown: str, first: int, last: int, stop: int, total: int,
            position: Position, key: bytes | None) -> Cut:
    if stop >= total:
        return Cut(shown, first, last, False, None)
    return Cut(shown, first, last, True, position.encode(key))


def _line_map(skill: StoredSkill) -> dict[int, str]:
    lines: dict[int, str] = {}
    for span in skill.spans:
        for number, line in enumerate(skill.text(span).split("\n"), start=span.start_line):
            lines[number] = line
    return lines


def _cut(text: str, at: int, budget: int, boundaries: tuple[int, ...]) -> tuple[int, str]:
    """Where a read of ``text[at:]`` within ``budget`` characters stops, and what it
    shows (the marker included when it stops early). ``boundaries`` are offsets where a
    cut is preferred (section starts)."""
    if not 0 <= at <= len(text):
        raise ReaderError("invalid-argument", "this cursor points outside the skill")
    if len(text) - at <= budget:
        return len(text), text[at:]
    stop = at
    for _ in range(3):  # the marker's length depends on what is left
        room = budget - len(MARKER.format(left=len(text) - stop))
        stop = _stop(text, at, at + max(room, 1), boundaries)
    return stop, text[at:stop].rstrip("\n") + MARKER.format(left=len(text) - stop)


def _stop(text: str, at: int, limit: int, boundaries: tuple[int, ...]) -> int:
    """Where to cut ``text`` at or before ``limit``: a section start in the second half
    of the room, else a line end, else ``limit`` itself."""
    fitting = [b for b in boundaries if at + (limit - at) // 2 <= b <= limit and b > at]
    if fitting:
        return fitting[-1]
    newline = text.rfind("\n", at, limit)
    return newline + 1 if newline >= at and newline + 1 > at else limit


def _line_at(skill: StoredSkill, offset: int) -> int:
    """The file line of body offset ``offset``."""
    for span in skill.spans:
        if offset <= span.offset + span.length:
            inside = max(offset - span.offset, 0)
            return span.start_line + skill.body.count("\n", span.offset, span.offset + inside)
    return skill.lines
