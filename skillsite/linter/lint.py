"""Turn one parsed document into problems: parse issues, schema violations, rules."""
from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import replace

from skillsite.linter import suppress
from skillsite.linter.markers import MARKERS, contains
from skillsite.linter.markers import found as markers_of
from skillsite.linter.pointer import resolve
from skillsite.linter.problems import active, make_problem
from skillsite.linter.redact import redact, secrets_of
from skillsite.linter.rules import DOCUMENT, RULES, Rule
from skillsite.linter.rules.context import Context, dialect
from skillsite.linter.rules.registry import Elsewhere
from skillsite.linter.rules.texts import texts
from skillsite.linter.schema import violations
from skillsite.linter.textcache import forget
from skillsite.models import Document, Problem


def lint_document(doc: Document, ctx: Context, path: str) -> list[Problem]:
    """Every problem in ``doc``; a crash inside a rule becomes an ``internal-error``."""
    forget()  # the previous document's texts
    found = [make_problem(ctx, i.rule, path, (i.line, i.column), i.message)
             for i in doc.issues]
    if doc.data is not None:
        found += _schema_problems(doc, ctx, path)
        found += _rule_problems(doc, ctx, path)
        # Most documents have no problem: then there is no message to redact.
        secrets = secrets_of(doc.data) if any(found) else []
        found = [replace(p, message=redact(p.message, secrets)) if p and secrets else p
                 for p in found]
    problems = [p for p in found if p is not None]
    if ctx.config.inline_suppressions:
        problems = _suppressed(doc, ctx, path, problems)
    return sorted(problems)


def _suppressed(doc: Document, ctx: Context, path: str,
                problems: list[Problem]) -> list[Problem]:
    """Drop what inline comments silence, in the document and in its bundled files."""
    present = doc.derived.get(_PRESENT)
    if (present is not None and "skillsite" not in present and doc.source.kind in _MARKUP
            and not _front_mentions_skillsite(doc)):
        # The rules' marker pass read the body and the bundled files (the document's
        # content texts): none holds "skillsite", and nor does what comes before the body.
        return problems
    bundled = [b for b in doc.derived.get("bundled", ()) if b.text]
    # The scanners already found the markers of the body and of the bundled files: of the
    # whole file, only what comes before the body is searched directly.
    if not _mentions_skillsite(doc) and not any(
            contains(b.text, "skillsite") for b in bundled if b.text):
        return problems  # no suppression comment anywhere (the common case)
    texts = {path: doc.derived.get("text", "")}
    folder = posixpath.dirname(path)
    for each in bundled:
        texts[posixpath.join(folder, each.rel)] = each.text
    kept, unused = suppress.apply(problems, texts)
    for where, suppression in unused:
        if all(ctx.config.enabled(rule) for rule in suppression.rules if rule in RULES):
            problem = make_problem(ctx, suppress.UNUSED, where,
                                   (suppression.line, suppression.column),
                                   suppress.unused_message(suppression, RULES))
            kept += [problem] if problem else []
    return kept


#: Where :func:`_rule_problems` keeps the markers of the document's content texts.
_PRESENT = "content-markers"
#: The formats whose content texts are the body and the bundled files' texts.
_MARKUP = ("skill-md", "virtual")


def _front_mentions_skillsite(doc: Document) -> bool:
    """:func:`_mentions_skillsite` of a document whose body lacks "skillsite"."""
    text, body = doc.derived.get("text", ""), doc.body
    if doc.data is None or not body or not text.endswith(body):
        return "skillsite" in text
    return text.find("skillsite", 0, len(text) - len(body) + len("skillsite") - 1) >= 0


def _mentions_skillsite(doc: Document) -> bool:
    """``"skillsite" in`` the whole file. When the rules ran (the document has data), the
    marker pass has read its body: the body is settled by it, and only the front matter
    before it (and the body's first characters, for a word across the two) is searched."""
    text, body = doc.derived.get("text", ""), doc.body
    if doc.data is None or not body or not text.endswith(body):
        return "skillsite" in text
    return (text.find("skillsite", 0, len(text) - len(body) + len("skillsite") - 1) >= 0
            or contains(body, "skillsite"))


def _schema_problems(doc: Document, ctx: Context, path: str) -> Iterable[Problem | None]:
    for found in violations(doc.source.kind, doc.data):
        rule = RULES.get(found.rule) or RULES["schema-violation"]
        if rule.check is not None:
            continue  # a document rule owns this constraint and explains it better
        if found.dialects and dialect(doc) not in found.dialects:
            # Another dialect's constraint says nothing about this file: its field is the
            # author's own here, and unknown-field reports it once.
            continue
        field = field_name(found.pointer)
        message = _schema_message(rule, field, resolve(doc.data, found.pointer), found.message)
        yield make_problem(ctx, rule.id, path, doc.where(found.pointer), message)


def field_name(pointer: str) -> str:
    """A JSON pointer as the user writes the field: ``/tools/0/name`` is ``tools[0].name``."""
    name = ""
    for part in pointer.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        if part.isdigit():
            name += f"[{part}]"
        elif part and all(c.isalnum() or c in "-_$" for c in part):
            name += f".{part}" if name else part
        else:
            name += f"[{part!r}]"
    return name or "document"


def _schema_message(rule: Rule, field: str, value: object, message: str) -> str:
    """Say what is wrong in the user's terms rather than the validator's."""
    if rule.id == "required-field":
        return f"required field {field!r} is missing"
    if value is None and rule.id == "field-type":
        return f"{field} is empty; give it a value or remove the line"
    if not rule.hint:
        return f"{field}: {message}"
    if isinstance(value, str) and "characters" in rule.hint:
        return f"{field} {rule.hint} (found {len(value)} characters)"
    if isinstance(value, str | int | float):
        return f"{field} {rule.hint} (found {value!r})"
    return f"{field} {rule.hint}"


def rule_plan(ctx: Context, kind: str) -> list[Rule]:
    """The document rules that run on files of ``kind`` under ``ctx``'s configuration."""
    plan = ctx.plans.get(kind)
    if plan is None:
        plan = ctx.plans[kind] = [
            rule for rule in RULES.values()
            if rule.scope == DOCUMENT and kind in rule.formats and rule.check is not None
            and active(ctx, rule)]
    return plan


def _rule_problems(doc: Document, ctx: Context, path: str) -> Iterable[Problem | None]:
    folder: str | None = None  # worked out for the first problem found in another file (rare)
    present: frozenset[str] | None = None  # worked out for the first rule that needs markers
    for rule in rule_plan(ctx, doc.source.kind):
        assert rule.check is not None
        if rule.needs is not None:
            if present is None:
                present = doc.derived[_PRESENT] = _markers_present(doc, ctx)
            if rule.needs.isdisjoint(present):
                continue  # no text holds a marker the rule needs: it would find nothing
        try:
            for where, message, *severity in rule.check(doc, ctx):
                if isinstance(where, Elsewhere):
                    if folder is None:
                        folder = posixpath.dirname(path)
                    yield make_problem(ctx, rule.id, posixpath.join(folder, where.rel),
                                       (where.line, where.column), message, *severity)
                    continue
                position = doc.where(where) if isinstance(where, str) else where
                yield make_problem(ctx, rule.id, path, position, message, *severity)
        except Exception as exc:  # a rule bug must not hide the rest of the corpus
            import traceback  # only here: a crashed rule is rare

            frame = traceback.extract_tb(exc.__traceback__)[-1]
            yield make_problem(ctx, "internal-error", path, (1, 1),
                               f"rule {rule.id} failed: {type(exc).__name__}: {exc} "
                               f"({frame.filename}:{frame.lineno}); please report this")


_EVERY_MARKER = frozenset(MARKERS)


def _markers_present(doc: Document, ctx: Context) -> frozenset[str]:
    """The markers that the document's content texts hold, lowered (every marker when
    the texts cannot be read: each rule then runs, and reports its own failure)."""
    try:
        return frozenset().union(*[markers_of(text.text) for text in texts(doc, ctx)])
    except Exception:
        return _EVERY_MARKER
