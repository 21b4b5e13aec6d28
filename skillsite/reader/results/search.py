"""What ``search`` and ``recommend`` return."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from skillsite.reader.results.base import Result


@dataclass(frozen=True)
class Candidate(Result):
    """One search or recommend hit: compact, never a body."""

    ref: str
    #: Unique in its library: ``[<collection>/][<plugin>:]<name>``; open and read take it.
    id: str
    #: The skill's bare name: its id without collection and plugin.
    name: str
    title: str
    description: str        # one line, at most DESCRIPTION_CHARS
    format: str
    tags: tuple[str, ...]
    score: float
    matched: tuple[str, ...]  # the fields the query matched, e.g. ("name", "body")
    #: The library the skill is in ("" when the Library reads one plain dist/); its ref
    #: then carries the library as a prefix: ``@<library>/<id>``.
    library: str = ""
    #: Which halves proposed it: ("lexical",), ("semantic",) or both; () when browsing.
    via: tuple[str, ...] = ()


@dataclass(frozen=True)
class SearchResult(Result):
    """What ``search`` and ``recommend`` return."""

    query: str
    limit: int
    browse: bool            # an empty query lists skills A-Z
    results: tuple[Candidate, ...]
    #: The libraries searched (empty when the Library reads one plain dist/).
    libraries: tuple[str, ...] = ()
    #: Libraries that could not be searched, each as the reader's error JSON
    #: (``{"error": "damaged-dist", "message": ..., "library": ...}``); the others answered.
    refused: tuple[dict[str, Any], ...] = ()
    #: Whether the semantic half ran (recommend, search --semantic, with vectors).
    semantic: bool = False
    #: Why it did not, when it was asked for and cannot run here; else "".
    note: str = ""
    #: Over several libraries, how their answers were merged: "score" (every library
    #: ranked by words alone, whose scores compare), "rank" (a library used meaning: the
    #: scores are 1 / (60 + rank in its library)) or "id" (browsing); "" for one library.
    merged_by: str = ""
