"""What ``search`` and ``recommend`` return."""
from __future__ import annotations

from dataclasses import dataclass

from skillsite.reader.results.base import Result


@dataclass(frozen=True)
class Candidate(Result):
    """One search or recommend hit: compact, never a body."""

    ref: str
    name: str
    title: str
    description: str        # one line, at most DESCRIPTION_CHARS
    format: str
    tags: tuple[str, ...]
    score: float
    matched: tuple[str, ...]  # the fields the query matched, e.g. ("name", "body")
    id: str = ""            # unique in dist/: [<collection>/][<plugin>:]<name>


@dataclass(frozen=True)
class SearchResult(Result):
    """What ``search`` and ``recommend`` return."""

    query: str
    limit: int
    browse: bool            # an empty query lists skills A-Z
    results: tuple[Candidate, ...]
