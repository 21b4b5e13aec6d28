"""Rules about how the Markdown of a skill is written: fences, XML tags, leftovers, white
space."""
from __future__ import annotations

import re
from collections.abc import Iterator

from skillsite.linter.fences import FENCE_RUNS, fences, in_fence
from skillsite.linter.links import position
from skillsite.linter.markers import MARKERS, any_in
from skillsite.linter.markers import found as markers_of
from skillsite.linter.rules.cited import innermost_heading
from skillsite.linter.rules.context import Context
from skillsite.linter.rules.registry import Elsewhere, Finding, rule
from skillsite.linter.rules.texts import texts
from skillsite.models import Document

MARKUP = ("skill-md", "virtual")
_TRAILING = re.compile(r"[ \t]+$", re.MULTILINE)
# Searched in "\n" + body, so that it starts with a literal the regex engine skips to.
_LEFTOVER = re.compile(r"\n[ \t]*(?:[-*+]|\d+\.|#{1,6})?[ \t]*\**(TODO|FIXME|TBD|XXX)\**"
                       r"(?=[:(]|[ \t]*$)", re.MULTILINE)
_LEFTOVERS = ("TODO", "FIXME", "TBD", "XXX")
# The same, matched at the start of one line.
_LEFTOVER_LINE = re.compile(_LEFTOVER.pattern[2:], re.MULTILINE)
_BLANK = re.compile(r"\[(?:TODO|Insert|Describe|Replace with|Add your)\b[^\]\n]*\](?!\()")
_BLANK_MARKERS = ("[TODO", "[Insert", "[Describe", "[Replace with", "[Add your")
#: Every leftover and blank above, lowered: markers of the marker pass, which the body
#: (one of the document's texts) holds if it holds a leftover.
_LEFTOVER_GATE = frozenset(marker.lower() for marker in (*_LEFTOVERS, *_BLANK_MARKERS))
assert _LEFTOVER_GATE.issubset(MARKERS)
# A heading that says its section holds slots to fill in.
_SLOTS = re.compile(r"\b(?:variables?|inputs?|parameters?|placeholders?|templates?|fill[- ]in)\b",
                    re.IGNORECASE)
_BLOCK_TAG = re.compile(r"^[ \t]*<([a-z][a-z0-9_-]*)>[ \t]*$|</([a-z][a-z0-9_-]*)>", re.MULTILINE)
_VOID = frozenset({"br", "hr", "img", "input", "meta", "link", "wbr", "source", "area"})


@rule("unclosed-fence", "warning", formats=MARKUP, family="body", fixable=True,
      peers={"skillsaw": "content-unclosed-fence"}, needs=FENCE_RUNS)
def unclosed_fence(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    A fenced code block is never closed, so the rest of the file renders as code and the
    agent reads instructions as an example.

    Fences follow CommonMark: a block opened with ```` ```python ```` closes only on a line
    of at least as many backticks and nothing else. Bundled Markdown (``references/*.md``)
    is checked too, at its own path. ``skillsite fix`` appends the missing fence to
    ``SKILL.md`` when the block runs to the end of the file.
    """
    for text in texts(doc, ctx):
        if not text.is_markdown or FENCE_RUNS.isdisjoint(markers_of(text.text)):
            continue
        blocks = fences(text.text)
        if blocks and not blocks[-1].closed:
            start = blocks[-1].start
            opening = text.text[start:].split("\n", 1)[0]
            line = text.where(start)[0]
            where = (line, len(opening) - len(opening.lstrip()) + 1)
            yield (where if text.rel is None else Elsewhere(text.rel, *where)), (
                f"code block opened with {blocks[-1].marker} is never closed; add a "
                "closing fence")


@rule("unclosed-xml-tag", "warning", formats=MARKUP, family="body",
      peers={"agnix": "XML-001"})
def unclosed_xml_tag(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    A block-level XML tag such as ``<example>`` opens a line and is never closed.

    Prompts use such tags to fence off examples and context; an unclosed one swallows the
    rest of the instructions. Only a tag alone on its line, without attributes, opens a
    block, so placeholders like ``run <file>`` in a sentence, HTML void elements and
    anything in code stay silent.
    """
    body = doc.body
    if "<" not in body:
        return
    blocks = fences(body)
    open_tags: dict[str, list[int]] = {}
    for found in _BLOCK_TAG.finditer(body):
        opening, closing = found.groups()
        name = opening or closing
        if name in _VOID or in_fence(blocks, found.start()):
            continue
        stack = open_tags.setdefault(name, [])
        if opening:
            stack.append(found.start(1) - 1)
        elif stack:
            stack.pop()
    for name, stack in sorted(open_tags.items()):
        for offset in stack:
            yield position(body, doc.body_line, offset), (
                f"<{name}> is never closed; add </{name}> where it ends")


@rule("leftover-placeholder", "warning", formats=MARKUP, family="body",
      peers={"agnix": "AS-027", "skillsaw": "content-placeholder-text"},
      needs=_LEFTOVER_GATE)
def leftover_placeholder(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    A leftover from writing the skill: a ``TODO:``, ``FIXME``, ``TBD`` or ``XXX`` that
    starts a line or list item, or a template blank such as ``[Describe what it does]``.

    Mentions inside a sentence ("look for TODO comments") and anything in code, fenced
    blocks and code spans alike (`` `[TODO]` `` tells the agent what to write), are not
    leftovers; nor are blanks in a section whose heading says they are slots to fill
    ("## Context Variables", "## Inputs", "## Parameters", "## Template").
    """
    body = doc.body
    found = _leftovers(body)
    if any_in(body, _BLANK_MARKERS):
        found += [(m.start(), m.group()) for m in _BLANK.finditer(body)]
    blocks = fences(body) if found else []
    for at, what in sorted(found):
        if in_fence(blocks, at) or _in_code_span(body, at):
            continue
        if what.startswith("[") and _SLOTS.search(innermost_heading(body, at, blocks) or ""):
            continue  # a blank the section asks the agent to fill in
        yield position(body, doc.body_line, at), f"{what} left in the skill; finish or remove it"


def _in_code_span(body: str, offset: int) -> bool:
    """Inside a code span on its line (`` `[TODO]` `` tells the agent what to write)."""
    return body.count("`", body.rfind("\n", 0, offset) + 1, offset) % 2 == 1


def _leftovers(body: str) -> list[tuple[int, str]]:
    """``(offset, word)`` of what ``_LEFTOVER`` finds in ``"\n" + body``, tried only on
    the lines that hold one of the words (a match never spans two lines)."""
    starts = set()
    present = markers_of(body)
    for word in _LEFTOVERS:
        if word.lower() not in present:
            continue  # the marker pass knows: no search that reads the whole body
        at = body.find(word)  # one search, which also settles a word that is absent
        while at >= 0:
            starts.add(body.rfind("\n", 0, at) + 1)
            end = body.find("\n", at)
            at = body.find(word, end) if end >= 0 else -1
    return [(found.start(1), found.group(1)) for start in sorted(starts)
            if (found := _LEFTOVER_LINE.match(body, start))]


@rule("trailing-whitespace", "warning", formats=("skill-md",), family="body", fixable=True)
def trailing_whitespace(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    Lines of text end in spaces or tabs: in the front matter, or in the body outside code
    blocks. Blank lines are left alone, and two or more spaces after text are a Markdown
    line break and are kept. One finding per
    file, at the first such line; ``skillsite fix`` removes them all.
    """
    text = doc.derived.get("text", "")
    # A tab is rare: looking for one (a single character) is much cheaper than for "\t\n".
    if (" \n" not in text and ("\t" not in text or "\t\n" not in text)
            and not text.endswith((" ", "\t"))):
        return
    lines = trailing_lines(text, doc.body_line)
    if lines:
        first, column = lines[0]
        more = f" (and {len(lines) - 1} more lines)" if len(lines) > 1 else ""
        yield (first, column), f"line ends in white space{more}; run skillsite fix"


def trailing_lines(text: str, body_line: int) -> list[tuple[int, int]]:
    """(line, column) where trailing white space starts, on the lines the rule reports."""
    body_start = _line_offset(text, body_line)
    blocks = fences(text[body_start:])
    found = []
    for match in _TRAILING.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        line_start = text.rfind("\n", 0, match.start()) + 1
        before = text[line_start:match.start()]
        if not before.strip() or before == "---":
            continue  # blank lines and the front matter's fences carry nothing
        if line >= body_line:
            if in_fence(blocks, match.start() - body_start):
                continue
            if before.strip() and match.group().startswith("  ") and "\t" not in match.group():
                continue  # a Markdown hard line break
        found.append((line, match.start() - line_start + 1))
    return found


def _line_offset(text: str, line: int) -> int:
    """Where the 1-based ``line`` of ``text`` starts (``len(text) + 1`` past its end)."""
    offset = 0
    for _ in range(line - 1):
        newline = text.find("\n", offset)
        if newline < 0:
            return len(text) + 1
        offset = newline + 1
    return offset
