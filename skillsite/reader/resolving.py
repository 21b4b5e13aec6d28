"""``resolve``: a skill as a local SKILL.md (metadata plus a body template), with its
arguments rendered in. Nothing is installed, written or run: the result is text.

Placeholders, rendered in one pass (a value that looks like a placeholder stays as it
is):

- Mini-A's ``{{args}}`` (the arguments as one string), ``{{argv}}`` (a JSON array of
  them) and ``{{argN}}`` (the Nth, from 1; empty when missing);
- Claude Code's ``$ARGUMENTS`` (the arguments as one string), ``$ARGUMENTS[N]`` and
  ``$N`` (the Nth, from 0). As in Claude Code, a missing ``$N`` stays as written, and
  arguments given to a body without any placeholder are appended as
  ``ARGUMENTS: <args>``.

Arguments given as one string are split as a shell splits words (quotes removed);
``$ARGUMENTS`` and ``{{args}}`` keep the string as given.
"""
from __future__ import annotations

import hashlib
import json
import re
import shlex
from collections.abc import Sequence
from typing import Any

from skillsite.reader import passages
from skillsite.reader.errors import ReaderError
from skillsite.reader.results.resolved import Resolved
from skillsite.reader.session import BUDGET, Session, operation
from skillsite.reader.shelf import StoredSkill
from skillsite.reader.views import text_argument

PLACEHOLDER = re.compile(r"\{\{\s*(args|argv|arg(\d+))\s*\}\}|\$ARGUMENTS(?:\[(\d+)\])?"
                         r"|\$(\d+)(?![\w])")
MAX_ARGUMENTS = 50
MAX_ARGUMENT_CHARS = 2000


def split_arguments(args: str | Sequence[str] | None) -> tuple[str, tuple[str, ...]]:
    """(the arguments as one string, the positional arguments) of ``args``."""
    if args is None:
        return "", ()
    if isinstance(args, str):
        raw = text_argument(args, "args", MAX_ARGUMENTS * MAX_ARGUMENT_CHARS)
        try:
            words = tuple(shlex.split(raw))
        except ValueError as error:
            raise ReaderError("invalid-argument", f"args cannot be split into words "
                              f"({error}); close the quote, or pass a list") from None
    else:
        if not isinstance(args, (list, tuple)) or len(args) > MAX_ARGUMENTS:
            raise ReaderError("invalid-argument", f"args is a string or a list of at most "
                              f"{MAX_ARGUMENTS} strings")
        words = tuple(text_argument(a, "an argument", MAX_ARGUMENT_CHARS) for a in args)
        raw = " ".join(words)
    if len(words) > MAX_ARGUMENTS:
        raise ReaderError("invalid-argument", f"at most {MAX_ARGUMENTS} arguments")
    return raw, words


def render(body: str, raw: str, words: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """``body`` with its placeholders rendered, and the distinct placeholders it held."""
    found: dict[str, None] = {}

    def value(match: re.Match[str]) -> str:
        found[match.group(0)] = None
        mustache, mustache_n, claude_n, dollar_n = match.groups()
        if mustache == "args":
            return raw
        if mustache == "argv":
            return json.dumps(list(words), ensure_ascii=False)
        if mustache_n is not None:
            number = int(mustache_n)
            return words[number - 1] if 1 <= number <= len(words) else ""
        index = claude_n if claude_n is not None else dollar_n
        if index is None:
            return raw
        return words[int(index)] if int(index) < len(words) else match.group(0)

    text = PLACEHOLDER.sub(value, body)
    if words and not found:
        text = text.rstrip("\n") + f"\n\nARGUMENTS: {raw}\n"
    return text, tuple(found)


def version_of(sha256: str, raw: str, words: tuple[str, ...]) -> str:
    """What a resolve cursor is bound to: the skill's content and the arguments."""
    digest = hashlib.sha256(json.dumps([raw, list(words)]).encode("utf-8")).hexdigest()
    return f"{sha256}.{digest[:16]}"


@operation("resolve", spends=BUDGET)
def resolve(session: Session, ref: str | None, args: str | Sequence[str] | None = None, *,
            max_chars: int = 12_000, cursor: str | None = None) -> Resolved:
    from skillsite.reader import skill_files as files

    session.refuse_in_safe_mode("resolve")
    budget = passages.clamp_chars(max_chars)
    position = passages.Position.decode(cursor) if cursor is not None else None
    if position is not None and position.mode != "template":
        raise ReaderError("invalid-argument", "this cursor is not one that resolve returned; "
                          "pass the cursor of the last resolve unchanged")
    session, skill = session.find(ref if ref is not None or position is None else position.name)
    raw, words = split_arguments(args)
    version = version_of(skill.sha256, raw, words)
    if position is not None and (position.name != skill.name or position.version != version):
        raise ReaderError("invalid-argument", f"this cursor belongs to another resolve of "
                          f"{position.name[:80]!r}: pass the same ref and args with it "
                          "(or dist/ was rebuilt: resolve again without a cursor)")
    budget = session.allowance(skill.name, budget)
    if budget < passages.MIN_CHARS:
        raise ReaderError("budget-exceeded", f"only {budget} characters are left in this "
                          "session's budget, too few for a resolve", budget="characters")
    text, placeholders = render(skill.body, raw, words)
    start = position or passages.Position(skill.name, version, "template", 0)
    cut = passages.read_text(text, start, budget)
    session.charge(skill.name, len(cut.text))
    return Resolved(
        ref=session.ref(skill.name), id=skill.name, name=skill.bare,
        metadata=_metadata(skill),
        front_matter=_front_matter(session, skill, files),
        files=tuple(skill.local(path) for path in skill.files), arguments=words,
        placeholders=placeholders, template=cut.text, chars=len(cut.text),
        truncated=cut.truncated, cursor=cut.cursor, library=session.library)


def _metadata(skill: StoredSkill) -> dict[str, Any]:
    if skill.format == "skill-md" and isinstance(skill.meta.get("metadata"), dict):
        return dict(skill.meta["metadata"])
    return {"name": skill.meta.get("name", skill.name), "description": skill.description}


def _front_matter(session: Session, skill: StoredSkill, files: Any) -> str:
    if skill.format == "skill-md":
        try:
            return str(files.front_matter(session.store, skill))
        except ReaderError:
            pass  # over the size cap: the fields the build kept
    return "".join(f"{key}: {json.dumps(value, ensure_ascii=False)}\n"
                   for key, value in _metadata(skill).items())
