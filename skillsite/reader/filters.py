"""What a search hit must have: the filters of ``search`` and ``recommend``."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from skillsite.entries import RISKS
from skillsite.reader.shelf import Listing

#: ongrid's ``class`` as a risk level.
CLASS_RISK = {"safe": "low", "mutating": "medium", "dangerous": "high"}


@dataclass(frozen=True)
class Filters:
    """What a hit must have; empty fields accept everything."""

    tags: tuple[str, ...] = ()
    applies_to: tuple[str, ...] = ()
    format: str | None = None
    compatibility: str | None = None
    max_risk: str | None = None
    plugin: str | None = None
    collection: str | None = None

    def __bool__(self) -> bool:
        return bool(self.tags or self.applies_to or self.format or self.compatibility
                    or self.max_risk or self.plugin or self.collection)

    def accepts(self, skill: Listing) -> bool:
        meta = skill.meta
        if self.format and skill.format != self.format:
            return False
        if self.plugin is not None and meta.get("plugin", "") != self.plugin:
            return False
        if self.collection is not None and meta.get("collection", "") != self.collection:
            return False
        if self.tags and not _overlap(self.tags, meta.get("tags", ())):
            return False
        if self.applies_to and not _overlap(self.applies_to, meta.get("applies_to", ())):
            return False
        if self.compatibility and self.compatibility.casefold() not in str(
                meta.get("compatibility", "")).casefold():
            return False
        if self.max_risk:
            risk = risk_of(skill)
            return risk is not None and RISKS.index(risk) <= RISKS.index(self.max_risk)
        return True


def _overlap(wanted: Iterable[str], present: Iterable[str]) -> bool:
    have = {str(value).casefold() for value in present}
    return any(value.casefold() in have for value in wanted)


def risk_of(skill: Listing) -> str | None:
    """The declared risk (Mini-A ``risk``, ongrid ``class``), or None if undeclared."""
    own = skill.meta.get("metadata") or {}
    risk = own.get("risk") if isinstance(own, dict) else None
    if risk is None and skill.format == "skill-json" and isinstance(own, dict):
        risk = CLASS_RISK.get(str(own.get("class", "safe")))
    risk = str(risk).strip().lower() if risk is not None else None
    return risk if risk in RISKS else None
