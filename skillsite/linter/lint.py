"""Turn one parsed document into problems: parse issues, schema violations, rules."""
from __future__ import annotations

import traceback
from dataclasses import replace
from typing import Iterable

from skillsite.linter.pointer import resolve
from skillsite.linter.redact import redact, secrets_of
from skillsite.linter.rules import DOCUMENT, RULES, Rule
from skillsite.linter.rules.context import Context
from skillsite.linter.schema import violations
from skillsite.models import Document, Problem


def make_problem(ctx: Context, rule_id: str, path: str, where: tuple[int, int],
                 message: str, severity: str | None = None) -> Problem | None:
    """A problem with its configured severity, or None when the rule is switched off."""
    if not ctx.config.enabled(rule_id):
        return None
    rule = RULES[rule_id]
    level = ctx.config.severity.get(rule_id) or severity or rule.severity
    return Problem(path, max(where[0], 1), max(where[1], 1), rule_id, level, redact(message))


def lint_document(doc: Document, ctx: Context, path: str) -> list[Problem]:
    """Every problem in ``doc``; a crash inside a rule becomes an ``internal-error``."""
    found = [make_problem(ctx, i.rule, path, (i.line, i.column), i.message)
             for i in doc.issues]
    if doc.data is not None:
        found += _schema_problems(doc, ctx, path)
        found += _rule_problems(doc, ctx, path)
        secrets = secrets_of(doc.data)
        found = [replace(p, message=redact(p.message, secrets)) if p and secrets else p
                 for p in found]
    return sorted(p for p in found if p is not None)


def _schema_problems(doc: Document, ctx: Context, path: str) -> Iterable[Problem | None]:
    for rule_id, pointer, message in violations(doc.source.kind, doc.data):
        rule = RULES.get(rule_id) or RULES["schema-violation"]
        if rule.check is not None:
            continue  # a document rule owns this constraint and explains it better
        field = pointer.rsplit("/", 1)[-1] or "document"
        yield make_problem(ctx, rule.id, path, doc.where(pointer),
                           _schema_message(rule, field, resolve(doc.data, pointer), message))


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


def _rule_problems(doc: Document, ctx: Context, path: str) -> Iterable[Problem | None]:
    kind = doc.source.kind
    for rule in RULES.values():
        if rule.scope != DOCUMENT or kind not in rule.formats or rule.check is None:
            continue
        if not ctx.config.enabled(rule.id):
            continue
        try:
            for where, message, *severity in rule.check(doc, ctx):
                position = doc.where(where) if isinstance(where, str) else where
                yield make_problem(ctx, rule.id, path, position, message, *severity)
        except Exception as exc:  # a rule bug must not hide the rest of the corpus
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            yield make_problem(ctx, "internal-error", path, (1, 1),
                               f"rule {rule.id} failed: {type(exc).__name__}: {exc} "
                               f"({frame.filename}:{frame.lineno}); please report this")
