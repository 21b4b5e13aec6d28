"""Every rule skillsite knows. Importing this package registers them all."""
from __future__ import annotations

from skillsite.rules import body, corpus, endpoints, fields, manifest, names, parsing, virtual
from skillsite.rules.registry import CORPUS, DOCUMENT, PARSE, RULES, SCHEMA, Rule

__all__ = ["RULES", "Rule", "PARSE", "SCHEMA", "DOCUMENT", "CORPUS", "all_rules"]
del body, corpus, endpoints, fields, manifest, names, parsing, virtual


def all_rules() -> list[Rule]:
    return sorted(RULES.values(), key=lambda r: r.id)
