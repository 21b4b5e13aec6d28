"""``read``: budgets, safe mode and cursors around :mod:`skillsite.reader.passages`."""
from __future__ import annotations

from skillsite.reader import passages
from skillsite.reader.errors import ReaderError
from skillsite.reader.passages import Cut, Position
from skillsite.reader.results import FileRef, Passage
from skillsite.reader.session import BUDGET, Session, operation
from skillsite.reader.shelf import StoredSkill


@operation("read", spends=BUDGET)
def read(session: Session, ref: str | None, section: str | int | None = None, *,
         start_line: int | None = None, end_line: int | None = None,
         max_chars: int = 4000, cursor: str | None = None,
         file: str | None = None) -> Passage:
    budget = passages.clamp_chars(max_chars)
    ledger = session.ledger
    key = ledger.cursor_key if ledger else None
    position = Position.decode(cursor, key) if cursor is not None else None
    if ref is None and position is not None and not session.safe:
        ref = position.name
    (session, skill), file = session.find_file(ref, file)
    if position is not None and position.mode == "file" and file is None:
        file = position.file
    if file is not None:
        if section is not None or start_line is not None or end_line is not None:
            raise ReaderError("invalid-argument", "a file is read whole, with max_chars and "
                              "a cursor; pass no section or line range with it")
        session.refuse_in_safe_mode("read of a file")
    budget = session.allowance(skill.name, budget)
    if ledger:
        budget = min(budget, ledger.policy.read_chars,
                     max(ledger.policy.max_chars - ledger.chars, 0))
    if budget < passages.MIN_CHARS:
        raise ReaderError("budget-exceeded", f"only {budget} characters are left in this "
                          "session's budget, too few for a read", budget="characters")
    if file is not None:
        cut, heading = _file(session, skill, file, position, budget, key), None
    elif position is not None:
        cut, heading = _resume(skill, position, budget, key)
    else:
        cut, heading = _fresh(session, skill, section, start_line, end_line, budget, key)
    session.charge(skill.name, len(cut.text), window="read")  # in safe mode, one step
    lines_read = file is None and (start_line is not None or end_line is not None
                                   or (position is not None and position.mode == "lines"))
    return Passage(ref=session.ref(skill.name), id=skill.name, name=skill.bare, section=heading,
                   start_line=cut.start_line, end_line=cut.end_line, text=cut.text,
                   chars=len(cut.text), truncated=cut.truncated, cursor=cut.cursor,
                   file=file, references=_references(session, skill, cut.text),
                   front_matter_lines=_front_matter_lines(session, skill, cut)
                   if lines_read else None, library=session.library)


# file_passages is loaded only by a read that needs it: most reads of a cold query do not.
def _references(session: Session, skill: StoredSkill, text: str) -> tuple[FileRef, ...]:
    if session.safe or "{baseDir}/" not in text:
        return ()
    from skillsite.reader.file_passages import references

    return references(skill, text, session.qualified(skill.name))


def _front_matter_lines(session: Session, skill: StoredSkill, cut: Cut) -> tuple[int, int] | None:
    from skillsite.reader.file_passages import front_matter_lines

    return front_matter_lines(session.store, skill, cut.start_line, cut.end_line)


def _file(session: Session, skill: StoredSkill, path: str, position: Position | None,
          budget: int, key: bytes | None) -> Cut:
    from skillsite.reader.file_passages import file_text, start_of_file

    text, sha256 = file_text(session.store, skill, path)
    if position is None:
        position = start_of_file(skill, path, sha256)
    elif position.mode != "file" or position.file != path or position.name != skill.name:
        raise ReaderError("invalid-argument", "this cursor belongs to another read; pass "
                          "the ref and file it came with, or the cursor alone")
    elif position.version != sha256:
        raise ReaderError("invalid-argument", f"{skill.name}/{path[:200]} changed since this "
                          "cursor was made (dist/ was rebuilt); read it again without a cursor")
    return passages.read_text(text, position, budget, key)


def _fresh(session: Session, skill: StoredSkill, section: str | int | None,
           start_line: int | None, end_line: int | None, budget: int, key: bytes | None
           ) -> tuple[Cut, str | None]:
    if start_line is not None or end_line is not None:
        if section is not None:
            raise ReaderError("invalid-argument", "pass a section or a line range, not both")
        first = _line(start_line if start_line is not None else 1, "start_line")
        last = _line(end_line if end_line is not None else skill.lines, "end_line")
        if session.ledger:
            last = min(last, first + session.ledger.policy.read_lines - 1)
        return passages.read_lines(skill, first, last, 0, budget, key), None
    if section is None and session.ledger and skill.spans:
        section = 0  # safe mode never serves a whole body in one read
    if section is not None:
        span = passages.find_section(skill, section)
        return passages.read_section(skill, span, 0, budget, key), span.heading
    return passages.read_body(skill, 0, budget, key), None


def _resume(skill: StoredSkill, position: Position, budget: int,
            key: bytes | None) -> tuple[Cut, str | None]:
    if position.name != skill.name:
        raise ReaderError("invalid-argument", f"this cursor belongs to {position.name[:80]!r}, "
                          f"not {skill.name!r}")
    if position.version != skill.sha256:
        raise ReaderError("invalid-argument", f"{skill.name} changed since this cursor was "
                          "made (dist/ was rebuilt); read it again without a cursor")
    if position.mode == "lines":
        return passages.read_lines(skill, position.section, position.end, position.at,
                                   budget, key), None
    if position.mode == "section":
        span = passages.find_section(skill, position.section)
        return passages.read_section(skill, span, position.at, budget, key), span.heading
    return passages.read_body(skill, position.at, budget, key), None


def _line(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ReaderError("invalid-argument", f"{what} must be a whole number")
    return value
