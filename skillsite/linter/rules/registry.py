"""The rule registry: every rule's ID, default severity, scope and documentation.

A rule is declared once, here or in a sibling module, and its docstring is its user
documentation (``docs/rules.md`` is generated from it). Document rules are generators that
yield ``(where, message)`` pairs, where ``where`` is a JSON pointer into the document or a
``(line, column)`` tuple; a third item overrides the severity for that one finding.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable, Iterable, NamedTuple

from skillsite.models import ERROR, FORMATS, WARNING

Finding = tuple[Any, ...]


class Elsewhere(NamedTuple):
    """A finding's location in a file bundled with the skill: ``rel`` is the file's path
    relative to the folder of the document being checked."""

    rel: str
    line: int
    column: int

DocumentCheck = Callable[..., Iterable[Finding]]

#: Scopes: where a rule's findings come from.
PARSE = "parse"        # discovery and parsing report these
SCHEMA = "schema"      # JSON Schema validation reports these
DOCUMENT = "document"  # a check over one document
CORPUS = "corpus"      # a check over the whole corpus


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str
    scope: str
    formats: tuple[str, ...]
    doc: str
    check: DocumentCheck | None = None
    #: For schema-backed rules: what to tell the user instead of the validator's wording.
    hint: str | None = None
    #: The rule's family (``spec``, ``security``, ``body``...). The catalog and the site show
    #: the findings of ``security`` rules as trust flags.
    family: str = "spec"
    #: Whether ``skillsite fix`` can fix its findings safely.
    fixable: bool = False
    #: The equivalent rules of peer linters, such as ``{"agnix": "AS-004"}``.
    peers: tuple[tuple[str, str], ...] = ()
    #: Runs only when named in ``select`` or ``extend-select``.
    opt_in: bool = False

    @property
    def profile(self) -> str:
        """The first profile that runs it: ``recommended``, ``strict`` or ``all``."""
        return "all" if self.opt_in else STRICT_ONLY.get(self.id, ("recommended", ""))[0]

    @property
    def noise(self) -> str:
        """What was measured on public corpora (``bench/bench_noise.py``)."""
        return STRICT_ONLY.get(self.id, ("", NOISE.get(self.id, "")))[1]

    @property
    def summary(self) -> str:
        return self.doc.split("\n", 1)[0].strip()


RULES: dict[str, Rule] = {}

#: Rules left out of ``recommended``, with what ``bench/bench_noise.py`` measured on seven
#: public corpora (2,170 skills): matters of taste, or findings a loader never minds.
STRICT_ONLY: dict[str, tuple[str, str]] = {
    "reference-toc": ("strict", "664 findings on 7 corpora; a matter of taste for short files"),
    "orphan-file": ("strict", "230 findings on 7 corpora; some files are used by a "
                              "repository-level include skillsite cannot see"),
    "body-too-long": ("strict", "44 findings on 7 corpora; a recommendation, not a rule"),
    "trailing-whitespace": ("strict", "8 findings on 7 corpora; cosmetic"),
    "description-keyword-stuffing": ("strict", "2 findings on 7 corpora, 1 false"),
    "description-restates-name": ("strict", "a matter of taste"),
    "side-effect-invocation": ("strict", "7 findings on 7 corpora; depends on intent"),
    "unpinned-runner": ("strict", "measuring"),
}
#: What was measured for rules of ``recommended`` with findings on the public corpora.
NOISE: dict[str, str] = {
    "description-trigger": "935 findings on 7 corpora; 761 of them in one corpus whose descriptions share one template with no trigger",
    "unknown-field": "884 findings on 7 corpora; 832 of them one house field (requires:) in one corpus",
    "link-escapes-root": "179 findings on 7 corpora",
    "name-format": "92 findings on 7 corpora",
    "unpinned-runner": "74 findings on 7 corpora",
    "pipe-to-shell": "42 findings on 7 corpora",
    "broken-link": "32 findings on 7 corpora",
    "duplicate-name": "30 findings on 7 corpora",
    "personal-path": "28 findings on 7 corpora",
    "unclosed-fence": "15 findings on 7 corpora",
    "allowed-tools-format": "13 findings on 7 corpora",
    "bundled-file-too-large": "13 findings on 7 corpora",
    "arguments-without-hint": "12 findings on 7 corpora",
    "name-directory-mismatch": "11 findings on 7 corpora",
    "invisible-unicode": "9 findings on 7 corpora",
    "name-reserved-word": "6 findings on 7 corpora",
    "dynamic-context": "5 findings on 7 corpora",
    "description-markup": "4 findings on 7 corpora",
    "encoded-payload": "2 findings on 7 corpora",
    "description-length": "1 findings on 7 corpora",
    "secret-in-content": "1 findings on 7 corpora",
    "allowed-tools-unknown": "1 findings on 7 corpora",
    "unrestricted-bash": "236 findings on 7 corpora: many skills grant Bash on purpose",
}


def _register(rule: Rule) -> Rule:
    if rule.id in RULES:
        raise ValueError(f"rule {rule.id!r} is declared twice")
    if rule.severity not in (ERROR, WARNING):
        raise ValueError(f"rule {rule.id!r}: unknown severity {rule.severity!r}")
    RULES[rule.id] = rule
    return rule


def declare(rule_id: str, severity: str, doc: str, *, scope: str = PARSE,
            formats: tuple[str, ...] = FORMATS, hint: str | None = None,
            family: str = "spec", fixable: bool = False,
            peers: dict[str, str] | None = None) -> Rule:
    """Declare a rule whose findings are produced elsewhere (discovery, parsing, schemas)."""
    return _register(Rule(rule_id, severity, scope, formats, inspect.cleandoc(doc),
                          hint=hint, family=family, fixable=fixable,
                          peers=tuple(sorted((peers or {}).items()))))


def rule(rule_id: str, severity: str, *, formats: tuple[str, ...] = FORMATS,
         scope: str = DOCUMENT, family: str = "spec", fixable: bool = False,
         peers: dict[str, str] | None = None,
         opt_in: bool = False) -> Callable[[DocumentCheck], DocumentCheck]:
    """Register the decorated generator as a document (or corpus) rule.

    Its findings may be located in the document (a JSON pointer or ``(line, column)``) or
    in a bundled file (:class:`Elsewhere`).
    """
    def register(check: DocumentCheck) -> DocumentCheck:
        _register(Rule(rule_id, severity, scope, formats,
                       inspect.cleandoc(check.__doc__ or ""), check, family=family,
                       fixable=fixable, peers=tuple(sorted((peers or {}).items())),
                       opt_in=opt_in))
        return check
    return register
