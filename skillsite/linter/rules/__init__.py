"""Every rule skillsite knows.

``RULES`` (and ``all_rules``) import every rule module on first use, which registers them
all. Importing a single module of this package, such as ``rules.context``, registers
nothing, so a command that meets no file (``skillsite check`` on an empty folder) never
pays for compiling the rules' patterns.
"""
from __future__ import annotations

from collections.abc import Collection, Iterator
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillsite import config
from skillsite.linter.rules.registry import CORPUS, DOCUMENT, PARSE, SCHEMA, Rule

if TYPE_CHECKING:
    RULES: dict[str, Rule]

__all__ = ["RULES", "Rule", "PARSE", "SCHEMA", "DOCUMENT", "CORPUS", "all_rules", "load_config",
           "registered"]

_MODULES = ("body", "bundled", "claude_code", "corpus", "description", "endpoints", "fields",
            "manifest", "markdown", "names", "parsing", "security", "virtual")


def registered() -> dict[str, Rule]:
    """The registry, with every rule module imported (and so every rule registered)."""
    for module in _MODULES:
        import_module(f"{__name__}.{module}")
    from skillsite.linter.rules.registry import RULES

    return RULES


def __getattr__(name: str) -> Any:
    if name == "RULES":
        return registered()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def all_rules() -> list[Rule]:
    return sorted(registered().values(), key=lambda r: r.id)


class _RuleIds(Collection[str]):
    """The registered rule IDs, imported only when a configuration names a rule."""

    def __contains__(self, rule: object) -> bool:
        return rule in registered()

    def __iter__(self) -> Iterator[str]:
        return iter(registered())

    def __len__(self) -> int:
        return len(registered())


def load_config(path: Path | None = None, *, start: Path | None = None) -> config.Config:
    """:func:`skillsite.config.load_config`, naming only the rules registered here."""
    return config.load_config(path, rules=_RuleIds(), start=start)
