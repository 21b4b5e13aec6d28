"""What ``resolve`` returns."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from skillsite.reader.results.base import Result


@dataclass(frozen=True)
class Resolved(Result):
    """A skill as the shape of a local SKILL.md (:meth:`Library.resolve`): its metadata
    and its body as a template with the arguments rendered in. Nothing is installed or
    run."""

    ref: str
    #: Unique in its library: ``[<collection>/][<plugin>:]<name>``; open and read take it.
    id: str
    #: The skill's bare name: its id without collection and plugin.
    name: str
    metadata: dict[str, Any]        # the front matter's fields (name, description, ...)
    front_matter: str               # as a local SKILL.md would write it, between the ---
    files: tuple[str, ...]          # the skill's supporting files, relative to its folder
    arguments: tuple[str, ...]      # the positional arguments, as split
    placeholders: tuple[str, ...]   # the distinct placeholders the body held
    template: str                   # the rendered body, at most max_chars
    chars: int
    truncated: bool
    cursor: str | None              # pass it back, with the same args, to read on
    #: The library the skill is in ("" when the Library reads one plain dist/); its ref
    #: then carries the library as a prefix: ``@<library>/<id>``.
    library: str = ""
