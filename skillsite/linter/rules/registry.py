"""The rule registry: every rule's ID, default severity, scope and documentation.

A rule is declared once, here or in a sibling module, and its docstring is its user
documentation (``docs/rules.md`` is generated from it). Document rules are generators that
yield ``(where, message)`` pairs, where ``where`` is a JSON pointer into the document or a
``(line, column)`` tuple; a third item overrides the severity for that one finding.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from skillsite.formats import FORMATS
from skillsite.models import ERROR, WARNING

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
    #: Markers of the marker pass (``linter.markers.MARKERS``, lowered): the rule finds
    #: nothing in a document none of whose content texts (``rules.texts.texts``) holds one,
    #: and is not run on it (None: it always runs).
    needs: frozenset[str] | None = None

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

#: Rules left out of ``recommended``, with what ``bench/bench_noise.py`` measured on ten
#: public corpora (1,992 skills) and the hand-labelled sample ``bench/noise_labels.csv``.
STRICT_ONLY: dict[str, tuple[str, str]] = {
    "reference-toc": ("strict", "1,559 findings on 10 corpora; 16 labelled: 0 false; a "
                                "recommendation of Anthropic's guidance, a matter of taste for "
                                "short files"),
    "orphan-file": ("strict", "259 findings on 10 corpora; 16 labelled: 0 false, 4 taste "
                              "(change logs kept in references/, unused files of vendored "
                              "schema sets)"),
    "unpinned-runner": ("strict", "109 findings on 10 corpora; 34 labelled: 5 false (15 %), 1 "
                                  "taste: a project's own CLI (npx swa after npm install -D, "
                                  "npx convex) cannot be told from a download"),
    "body-too-long": ("strict", "122 findings on 10 corpora; 16 labelled: 0 false; a "
                                "recommendation, not a rule"),
    "trailing-whitespace": ("strict", "40 findings on 10 corpora; 8 labelled: 0 false; cosmetic"),
    "description-restates-name": ("strict", "no findings on 10 corpora; a matter of taste"),
    "side-effect-invocation": ("strict", "7 findings on 10 corpora; 7 labelled: 0 false, 3 "
                                         "taste: depends on intent"),
}
#: What was measured for rules of ``recommended`` (``bench/bench_noise.py`` on ten public
#: corpora, labels in ``bench/noise_labels.csv``; "false" counts today's findings).
NOISE: dict[str, str] = {
    "description-trigger": "1,146 findings on 10 corpora, 851 of them one corpus's template; "
                           "54 labelled: 0 false, 8 taste",
    "unknown-field": "887 findings on 10 corpora, 832 of them one house field (requires:); "
                     "26 labelled: 0 false",
    "broken-link": "98 findings on 10 corpora; 24 labelled: 0 false",
    "name-format": "92 findings on 10 corpora; 26 labelled: 0 false",
    "link-escapes-root": "79 findings on 10 corpora; 16 labelled: 0 false, 4 taste (links "
                         "between skills outside any plugin)",
    "pipe-to-shell": "41 findings on 10 corpora; 13 labelled: 0 false",
    "personal-path": "29 findings on 10 corpora; 12 labelled: 0 false",
    "name-directory-mismatch": "26 findings on 10 corpora; 13 labelled: 0 false",
    "allowed-tools-format": "20 findings on 10 corpora; 13 labelled: 0 false",
    "unclosed-fence": "20 findings on 10 corpora; 11 labelled: 0 false",
    "bundled-file-too-large": "15 findings on 10 corpora; 13 labelled: 0 false",
    "reference-depth": "12 findings on 10 corpora; 12 labelled: 0 false",
    "arguments-without-hint": "11 findings on 10 corpora; 10 labelled: 0 false, 3 taste",
    "invisible-unicode": "11 findings on 10 corpora; 11 labelled: 0 false, 4 taste "
                         "(zero-width spaces that keep a nested fence open)",
    "file-not-published": "6 findings on 10 corpora; 6 labelled: 0 false",
    "name-reserved-word": "6 findings on 10 corpora; 6 labelled: 0 false",
    "description-markup": "5 findings on 10 corpora; 5 labelled: 0 false",
    "metadata-value-type": "4 findings on 10 corpora; 4 labelled: 0 false",
    "description-length": "2 findings on 10 corpora; 2 labelled: 0 false",
    "dynamic-context": "2 findings on 10 corpora; 2 labelled: 0 false",
    "encoded-payload": "1 finding on 10 corpora; labelled taste",
    "allowed-tools-unknown": "1 finding on 10 corpora; labelled true",
    "description-keyword-stuffing": "no findings on 10 corpora (2 sentences that repeat a "
                                    "product name no longer count)",
    "leftover-placeholder": "no findings on 10 corpora",
    "secret-in-content": "no findings on 10 corpora",
    "prompt-override": "no findings on 10 corpora",
    "unrestricted-bash": "263 findings on 10 corpora; 16 labelled: 0 false; many skills "
                         "grant Bash on purpose",
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
         peers: dict[str, str] | None = None, opt_in: bool = False,
         needs: frozenset[str] | None = None) -> Callable[[DocumentCheck], DocumentCheck]:
    """Register the decorated generator as a document (or corpus) rule.

    Its findings may be located in the document (a JSON pointer or ``(line, column)``) or
    in a bundled file (:class:`Elsewhere`). With ``needs``, it runs only on a document
    whose content texts hold one of those markers (see :attr:`Rule.needs`).
    """
    def register(check: DocumentCheck) -> DocumentCheck:
        _register(Rule(rule_id, severity, scope, formats,
                       inspect.cleandoc(check.__doc__ or ""), check, family=family,
                       fixable=fixable, peers=tuple(sorted((peers or {}).items())),
                       opt_in=opt_in, needs=needs))
        return check
    return register
