"""What ``related`` and ``compose`` return."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from skillsite.reader.results.base import Result


@dataclass(frozen=True)
class Neighbour(Result):
    """A skill related to another, with the reasons why."""

    ref: str
    #: Unique in its library: ``[<collection>/][<plugin>:]<name>``; open and read take it.
    id: str
    #: The skill's bare name: its id without collection and plugin.
    name: str
    title: str
    description: str
    reasons: tuple[str, ...]  # "links to", "linked from", "depends on", "shared tag: x"...
    score: float
    #: For a neighbour alike by content: the shared distinctive terms, weightiest first.
    terms: tuple[str, ...] = ()
    #: The library the skill is in ("" when the Library reads one plain dist/); its ref
    #: then carries the library as a prefix: ``@<library>/<id>``.
    library: str = ""


@dataclass(frozen=True)
class Related(Result):
    """What ``related`` returns."""

    ref: str
    #: Unique in its library: ``[<collection>/][<plugin>:]<name>``; open and read take it.
    id: str
    #: The skill's bare name: its id without collection and plugin.
    name: str
    results: tuple[Neighbour, ...]
    #: The library the skill is in ("" when the Library reads one plain dist/); its ref
    #: then carries the library as a prefix: ``@<library>/<id>``.
    library: str = ""
    #: Other libraries that could not be read for skills sharing a tag (each as the
    #: reader's error JSON, as ``SearchResult.refused``).
    refused: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Compact(Result):
    """A skill in a few fields, as ``compose`` lists its prerequisites."""

    ref: str
    #: Unique in its library: ``[<collection>/][<plugin>:]<name>``; open and read take it.
    id: str
    #: The skill's bare name: its id without collection and plugin.
    name: str
    title: str
    description: str
    format: str
    tags: tuple[str, ...]
    #: The library the skill is in ("" when the Library reads one plain dist/); its ref
    #: then carries the library as a prefix: ``@<library>/<id>``.
    library: str = ""


@dataclass(frozen=True)
class Composition(Result):
    """What ``compose`` returns: one level of prerequisites."""

    ref: str
    #: Unique in its library: ``[<collection>/][<plugin>:]<name>``; open and read take it.
    id: str
    #: The skill's bare name: its id without collection and plugin.
    name: str
    depends_on: tuple[Compact, ...]   # in the skill's declared order, one level deep
    unresolved: tuple[str, ...]       # declared dependencies that are not in dist/
    truncated: bool                   # more dependencies than ``limit``
    #: The library the skill is in ("" when the Library reads one plain dist/); its ref
    #: then carries the library as a prefix: ``@<library>/<id>``.
    library: str = ""
