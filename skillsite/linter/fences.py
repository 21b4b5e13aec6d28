"""Fenced code blocks in Markdown, as CommonMark defines them.

A fence opens on a line of at least three backticks or tildes (a backtick fence's info
string holds no backtick) and closes only on a line of the same character, at least as long
as the opener, with nothing after it but spaces: a line such as ```` ```python ```` inside
an open block is content, not its end. An unclosed fence runs to the end of the text.
Indentation is accepted at any depth, because fences nested in list items are common, and a
fence may open a list item (``2. ```sh``); but a closing fence indented four spaces or more
beyond its opener is the block's content.
"""
from __future__ import annotations

import re
from functools import partial
from typing import NamedTuple

from skillsite.linter.textcache import per_document

# Searched in "\n" + text: a literal first character lets the regex engine skip ahead. A
# fence may open a list item ("2. ```sh", "- ```"): the item's marker is part of its indent.
_FENCE_LINE = re.compile(r"\n([ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?)(`{3,}|~{3,})([^\n]*)")


class Fence(NamedTuple):
    """``start``: offset of the opening line; ``end``: offset just past the closing line
    (the end of the text when unclosed); ``marker``: the opening run, such as ```` ``` ````."""

    start: int
    end: int
    marker: str
    closed: bool


#: ``Fence(*fields)`` without the Python-level ``__new__`` of a named tuple (a generated
#: skill's body holds a dozen fences).
_fence = partial(tuple.__new__, Fence)


@per_document
def fences(text: str) -> list[Fence]:
    """Every fenced block of ``text``, in order (remembered for the document's texts: the
    links, the Markdown rules and the scanners all ask for the fences of the same body;
    the list is shared, never change it)."""
    if not _has_fence_run(text):
        return []
    found: list[Fence] = []
    # The open block's opening line (its offset, its run of backticks or tildes, its
    # indent), held in plain locals: -1 when no block is open.
    open_at, open_marker, open_indent = -1, "", 0
    for start, end, lead, marker, rest in _fence_lines(text):
        if open_at < 0:
            if marker[0] == "~" or "`" not in rest:
                # of the "\n" before the line, so of the line in ``text``
                open_at, open_marker, open_indent = start, marker, len(lead)
        elif (marker[0] == open_marker[0] and len(marker) >= len(open_marker)
              and len(lead) < open_indent + 4 and not rest.strip(" \t")
              and not lead.strip()):
            # A closing fence is no list item, and four more spaces of indent than its
            # opener make it the block's content (an indented example of a fence).
            found.append(_fence((open_at, end - 1, open_marker, True)))
            open_at = -1
    if open_at >= 0:
        found.append(_fence((open_at, len(text), open_marker, False)))
    return found


def _fence_lines(text: str) -> list[tuple[int, int, str, str, str]]:
    """``(*match.span(), *match.groups())`` of each match of ``_FENCE_LINE.finditer("\\n" +
    text)``, tried only on the lines that hold a run of three backticks or tildes (a match
    never spans lines, and each line's match does not depend on the lines before it). A
    line that starts with its run (most fences) is split without the regex."""
    starts: list[int] = []
    for marker in ("```", "~~~"):
        # The next run starts at the next backtick (or tilde), looked for at memchr speed,
        # unless that one opens a code span: then the run is searched for from there.
        char = marker[0]
        at = text.find(char)
        while at >= 0:
            if not text.startswith(marker, at):
                at = text.find(marker, at + 1)
                if at < 0:
                    break
            starts.append(text.rfind("\n", 0, at) + 1)
            line_end = text.find("\n", at)
            if line_end < 0:
                break
            at = text.find(char, line_end)
    if "~" in text and "`" in text:
        starts = sorted(set(starts))  # one marker's lines come in order, each once
    found = []
    padded = None  # "\n" + text, made for the first line the regex must read
    size = len(text)
    for at in starts:
        char = text[at]
        if (char == "`" or char == "~") and text.startswith(char * 3, at):
            # No indent and no list marker: the lead is empty, the run is every ``char``
            # from ``at`` (the greedy ``{3,}``) and the rest runs to the line's end.
            run_end = at + 3
            while run_end < size and text[run_end] == char:
                run_end += 1
            line_end = text.find("\n", run_end)
            if line_end < 0:
                line_end = size
            # In "\n" + text, the "\n" before the line is at ``at``, its end at line_end + 1.
            found.append((at, line_end + 1, "", text[at:run_end], text[run_end:line_end]))
            continue
        if padded is None:
            padded = "\n" + text  # the "\n" before a line that starts at ``at`` is at ``at``
        line = _FENCE_LINE.match(padded, at)
        if line is not None:
            lead, marker, rest = line.groups()
            found.append((at, line.end(), lead, marker, rest))
    return found


def _has_fence_run(text: str) -> bool:
    """``"```" in text or "~~~" in text``. A search for three characters that fails reads
    the whole text at about a nanosecond a character; a search for one (``memchr``) is
    tens of times quicker, and settles the texts with no backtick and no tilde. The
    others are settled by the marker pass, which every rule asks about the same texts
    (``markers.found``: both runs are markers)."""
    return ("`" in text or "~" in text) and not FENCE_RUNS.isdisjoint(_markers_of(text))


#: The runs that open a fence, both markers of the marker pass.
FENCE_RUNS = frozenset({"```", "~~~"})


def _markers_of(text: str) -> frozenset[str]:
    """:func:`skillsite.linter.markers.found`, imported on first use, not at import (a
    check of an empty folder imports this module)."""
    global _markers_of
    from skillsite.linter.markers import found

    _markers_of = found
    return found(text)


def in_fence(blocks: list[Fence], offset: int) -> bool:
    """Whether ``offset`` lies inside one of ``blocks`` (sorted, as :func:`fences` gives)."""
    low, high = 0, len(blocks)
    while low < high:
        middle = (low + high) // 2
        if blocks[middle].start <= offset:
            low = middle + 1
        else:
            high = middle
    return low > 0 and offset < blocks[low - 1].end
