"""What a document rule may look at besides the document itself."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillsite.config import Config
from skillsite.models import Document

ONGRID_FIELDS = ("activation", "tools", "config_section")


@dataclass(frozen=True)
class Context:
    config: Config

    def real_root(self, doc: Document) -> Path:
        return doc.source.root.resolve()


def dialect(doc: Document) -> str:
    """``ongrid`` for an ongrid-native SKILL.md, else ``agent-skills``."""
    data = doc.data or {}
    metadata = data.get("metadata")
    if any(key in data for key in ONGRID_FIELDS) or (
            isinstance(metadata, dict) and "ongrid" in metadata):
        return "ongrid"
    return "agent-skills"


def text_field(doc: Document, key: str) -> str | None:
    value: Any = (doc.data or {}).get(key)
    return value if isinstance(value, str) else None
