"""What ``read`` returns."""
from __future__ import annotations

from dataclasses import dataclass

from skillsite.reader.results.base import Result


@dataclass(frozen=True)
class FileRef(Result):
    """A ``{baseDir}/<path>`` reference in a passage, as a ref to the skill's file."""

    text: str               # as written: "{baseDir}/references/forms.md"
    path: str               # relative to the skill's folder: "references/forms.md"
    ref: str                # skill://<skill>/<path>, which read accepts
    exists: bool            # whether dist/ holds that file


@dataclass(frozen=True)
class Passage(Result):
    """Text read from a skill (:meth:`Library.read`)."""

    ref: str
    #: Unique in its library: ``[<collection>/][<plugin>:]<name>``; open and read take it.
    id: str
    #: The skill's bare name: its id without collection and plugin.
    name: str
    section: str | None
    start_line: int
    end_line: int
    text: str
    chars: int
    truncated: bool
    cursor: str | None      # pass it back to read on; None when nothing is left
    file: str | None = None     # the supporting file read, None for the skill's body
    references: tuple[FileRef, ...] = ()
    #: The lines of this passage that are the SKILL.md's front matter, which the body
    #: does not hold and which read shows blank ([first, last]); None when none are.
    front_matter_lines: tuple[int, int] | None = None
    #: The library the skill is in ("" when the Library reads one plain dist/); its ref
    #: then carries the library as a prefix: ``@<library>/<id>``.
    library: str = ""
