"""Every rule skillsite knows. Importing this package registers them all."""
from __future__ import annotations

from pathlib import Path

from skillsite import config
from skillsite.linter.rules import (
    body,
    bundled,
    claude_code,
    corpus,
    description,
    endpoints,
    fields,
    manifest,
    markdown,
    names,
    parsing,
    security,
    virtual,
)
from skillsite.linter.rules.registry import CORPUS, DOCUMENT, PARSE, RULES, SCHEMA, Rule

__all__ = ["RULES", "Rule", "PARSE", "SCHEMA", "DOCUMENT", "CORPUS", "all_rules", "load_config"]
del body, bundled, claude_code, corpus, description, endpoints, fields, manifest, markdown, names, parsing, security, virtual


def all_rules() -> list[Rule]:
    return sorted(RULES.values(), key=lambda r: r.id)


def load_config(path: Path | None = None, *, start: Path | None = None) -> config.Config:
    """:func:`skillsite.config.load_config`, naming only the rules registered here."""
    return config.load_config(path, rules=RULES, start=start)
