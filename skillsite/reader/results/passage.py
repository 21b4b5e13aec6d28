"""What ``read`` returns."""
from __future__ import annotations

from dataclasses import dataclass

from skillsite.reader.results.base import Result


@dataclass(frozen=True)
class Passage(Result):
    """Text read from a skill (:meth:`Library.read`)."""

    ref: str
    name: str
    section: str | None
    start_line: int
    end_line: int
    text: str
    chars: int
    truncated: bool
    cursor: str | None      # pass it back to read on; None when nothing is left
