"""Safe fixes for a SKILL.md: edits of the text in place, never a re-dump of the YAML, so
comments, key order and quoting elsewhere stay as written.

Each fixer takes the text and the document parsed from it, and returns the new text (the
same text when it has nothing safe to do). A fix that would change meaning is not made:
an ``allowed-tools`` item with a space in it, a value with a ``#`` that may be a comment,
a folder name that is not a valid skill name.
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Callable

from skillsite.linter.fences import fences
from skillsite.linter.rules.markdown import trailing_lines
from skillsite.models import Document

VALID_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_PLAIN_PAIR = re.compile(r"^([A-Za-z0-9_-]+):[ \t]+([^\"'\[{|>&*!%@`#\s][^\n]*?)[ \t]*$")
_TOOL = re.compile(r"^[A-Za-z][\w.:*()-]*$")

Fixer = Callable[[str, Document], str]


def _lines(text: str) -> list[str]:
    return text.split("\n")


def fix_trailing_whitespace(text: str, doc: Document) -> str:
    lines = _lines(text)
    for line, column in trailing_lines(text, doc.body_line):
        lines[line - 1] = lines[line - 1][:column - 1]
    return "\n".join(lines)


def fix_unclosed_fence(text: str, doc: Document) -> str:
    blocks = fences(doc.body)
    if not blocks or blocks[-1].closed:
        return text
    opener = doc.body[blocks[-1].start:].split("\n", 1)[0]
    indent = opener[:len(opener) - len(opener.lstrip())]
    return text + ("" if text.endswith("\n") else "\n") + indent + blocks[-1].marker + "\n"


def fix_colon_values(text: str, doc: Document) -> str:
    """Quote top-level plain values that hold ``: `` (a YAML error), when YAML fails."""
    if not any(issue.rule == "yaml-syntax" for issue in doc.issues):
        return text
    lines = _lines(text)
    end = lines.index("---", 1) if "---" in lines[1:] else 0
    for index in range(1, end):
        match = _PLAIN_PAIR.match(lines[index])
        if match and ": " in match.group(2) + " " and " #" not in match.group(2):
            lines[index] = f"{match.group(1)}: {json.dumps(match.group(2), ensure_ascii=False)}"
    return "\n".join(lines)


def fix_allowed_tools(text: str, doc: Document) -> str:
    """A YAML list of tool names becomes one space-separated string."""
    tools = (doc.data or {}).get("allowed-tools")
    if not isinstance(tools, list) or not tools or not all(
            isinstance(t, str) and _TOOL.match(t) for t in tools):
        return text
    lines = _lines(text)
    start = doc.key_where("/allowed-tools")[0] - 1
    end = start + 1
    if lines[start].rstrip().endswith(":"):  # a block list: "  - Read" lines follow
        while end < len(lines) and re.match(r"^\s+-\s", lines[end]):
            end += 1
        if any("#" in line for line in lines[start:end]):
            return text
    elif "#" in lines[start] or not lines[start].rstrip().endswith("]"):
        return text
    lines[start:end] = [f"allowed-tools: {' '.join(tools)}"]
    return "\n".join(lines)


def fix_name(text: str, doc: Document) -> str:
    """``name`` takes its folder's name, when that is a valid skill name."""
    folder = os.path.basename(os.path.dirname(os.path.abspath(doc.source.path)))
    name = (doc.data or {}).get("name")
    if not isinstance(name, str) or name == folder or not VALID_NAME.match(folder):
        return text
    lines = _lines(text)
    line, _ = doc.key_where("/name")
    match = re.match(r"^(name:[ \t]*)(\"[^\"]*\"|'[^']*'|[^#\n]*?)([ \t]*(?:#.*)?)$",
                     lines[line - 1])
    if not match:
        return text
    lines[line - 1] = match.group(1) + folder + match.group(3)
    return "\n".join(lines)


#: Rule ID -> fixer, in the order they run (YAML must parse before the others look).
FIXERS: dict[str, Fixer] = {
    "yaml-syntax": fix_colon_values,
    "allowed-tools-format": fix_allowed_tools,
    "name-directory-mismatch": fix_name,
    "trailing-whitespace": fix_trailing_whitespace,
    "unclosed-fence": fix_unclosed_fence,
}
