"""A rule's finding as a :class:`Problem`: its configured severity, nothing when the rule
is switched off, the message redacted.

Apart from :mod:`skillsite.linter.lint` so that a check answered from the results cache,
which runs only the corpus rules, imports only those rules rather than every rule and
its compiled patterns.
"""
from __future__ import annotations

from skillsite.linter.redact import redact
from skillsite.linter.rules.context import Context
from skillsite.linter.rules.registry import RULES, Rule
from skillsite.models import Problem


def rule_of(rule_id: str) -> Rule:
    """The registered rule ``rule_id``, importing the rules that declare it if needed."""
    found = RULES.get(rule_id)
    if found is None:
        from skillsite.linter.rules import parsing  # noqa: F401  (the parse-level rules)

        found = RULES.get(rule_id)
    if found is None:
        from skillsite.linter.rules import registered

        found = registered()[rule_id]
    return found


def make_problem(ctx: Context, rule_id: str, path: str, where: tuple[int, int],
                 message: str, severity: str | None = None) -> Problem | None:
    """A problem with its configured severity, or None when the rule is switched off."""
    known = ctx.levels.get(rule_id)
    if known is None:
        rule = rule_of(rule_id)
        known = ctx.levels[rule_id] = (active(ctx, rule), ctx.config.severity.get(rule_id),
                                       rule.severity)
    runs, configured, default = known
    if not runs:
        return None
    level = configured or severity or default
    return Problem(path, max(where[0], 1), max(where[1], 1), rule_id, level, redact(message))


def active(ctx: Context, rule: Rule) -> bool:
    """Whether ``rule`` runs: not ignored, and in the profile or chosen by name."""
    return ctx.config.enabled(rule.id) and (ctx.config.chosen(rule.id)
                                            or ctx.config.in_profile(rule.profile))
