"""What the reader returns: frozen dataclasses, each with ``to_dict()`` for JSON.

These shapes are a public contract, documented in ``docs/reader.md``; the MCP server
returns the same dictionaries. New fields may be added; a field never changes meaning.
Every result that names a skill carries ``ref`` (what the next call takes), ``id``
(unique in its library) and ``name`` (the bare name), in that order.

Each operation's results live in their own module, loaded on first use: creating a
dataclass costs about a millisecond here, and a cold ``open`` needs 3 of these 15.
"""
from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skillsite.reader.results.base import Result
    from skillsite.reader.results.catalog import Context, FileInfo, NamePage, Prompt, TagCount
    from skillsite.reader.results.graph import Compact, Composition, Neighbour, Related
    from skillsite.reader.results.outline import Heading, SkillInfo, Warning
    from skillsite.reader.results.passage import FileRef, Passage
    from skillsite.reader.results.resolved import Resolved
    from skillsite.reader.results.search import Candidate, SearchResult

#: Result name -> the module that defines it.
MODULES: dict[str, str] = {
    "Result": "base",
    "Candidate": "search",
    "SearchResult": "search",
    "Heading": "outline",
    "Warning": "outline",
    "SkillInfo": "outline",
    "Passage": "passage",
    "FileRef": "passage",
    "Resolved": "resolved",
    "Neighbour": "graph",
    "Related": "graph",
    "Compact": "graph",
    "Composition": "graph",
    "TagCount": "catalog",
    "Context": "catalog",
    "Prompt": "catalog",
    "FileInfo": "catalog",
    "NamePage": "catalog",
}
__all__ = [
    "Candidate",
    "Compact",
    "Composition",
    "Context",
    "FileInfo",
    "FileRef",
    "Heading",
    "NamePage",
    "Neighbour",
    "Passage",
    "Prompt",
    "Related",
    "Resolved",
    "Result",
    "SearchResult",
    "SkillInfo",
    "TagCount",
    "Warning",
]


def __getattr__(name: str) -> Any:
    module = MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
