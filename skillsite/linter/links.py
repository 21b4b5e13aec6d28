"""Local links in Markdown: what they point at and where they stand.

Links with a scheme (``https:``, ``mailto:``), protocol-relative links and pure anchors are
not local; links inside code blocks and code spans are not links at all, and footnote
definitions (``[^1]: ...``) are not link definitions. A target that starts with a
skill-root placeholder (``{baseDir}/``, ``${CLAUDE_SKILL_DIR}/``) resolves against the
skill's root folder, as the clients that expand them do; one that starts with Claude Code's
``${CLAUDE_PLUGIN_ROOT}`` names the plugin's folder and is not a local link of the skill.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterator
from urllib.parse import unquote

from skillsite.linter.fences import Fence, fences, in_fence
from skillsite.linter.markers import matches_from
from skillsite.models import Document

# "[text](target)", text allowing one level of nested brackets; written as an unrolled
# loop because an alternation per character is several times slower.
_LINK = re.compile(r"\[[^\[\]]*(?:\[[^\]]*\][^\[\]]*)*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'(][^)]*)?\)")
# Searched in "\n" + body: a literal first character lets the regex engine skip ahead.
_REFERENCE = re.compile(r"\n {0,3}\[(?!\^)[^\]\n]+\]:[ \t]*<?(\S+?)>?(?=\s|$)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
#: Placeholders that clients replace with the skill's folder.
ROOT_PLACEHOLDERS = ("{baseDir}", "${CLAUDE_SKILL_DIR}", "$CLAUDE_SKILL_DIR", "{skillDir}")
_PLACEHOLDER_STARTS = tuple({placeholder[0] for placeholder in ROOT_PLACEHOLDERS})
#: Claude Code's plugin folder: not the skill's, and only Claude Code resolves it, so a
#: link through it is not a local link of the skill.
PLUGIN_PLACEHOLDERS = ("${CLAUDE_PLUGIN_ROOT}", "$CLAUDE_PLUGIN_ROOT")

#: What a target that is no local link starts with: an anchor, a protocol-relative link,
#: the plugin's folder.
_NOT_LOCAL = ("#", "//", *PLUGIN_PLACEHOLDERS)

Link = tuple[str, tuple[int, int], "str | None"]


def folder_of(doc: Document) -> str:
    """The absolute folder of the document's file, worked out once per document."""
    found: str | None = doc.derived.get("folder")
    if found is None:
        found = doc.derived["folder"] = (doc.source.folder or
                                         os.path.abspath(os.path.dirname(doc.source.path)))
    return found


def local_links(doc: Document) -> list[Link]:
    """(target, location, absolute normalized path or None if absolute) per local link."""
    def compute() -> list[Link]:
        folder = folder_of(doc)
        return list(find_links(doc.body, doc.body_line, folder, folder))
    return doc.memo("local-links", compute)


def find_links(text: str, first_line: int, folder: str, root: str) -> Iterator[Link]:
    """The local links of Markdown ``text`` (whose first line is ``first_line`` of a file
    in ``folder``), placeholders resolved against the skill ``root``."""
    if "]" not in text:
        return  # one character, looked for at memchr speed
    present = _markers_of(text)
    if "](" not in present and "]:" not in present:
        return
    blocks = fences(text)
    found = [(link.start(1), link.group(1)) for link in matches_from(_LINK, text, "[")] \
        if "](" in present else []
    if "]:" in present:
        found += [(m.start(1) - 1, m.group(1)) for m in _REFERENCE.finditer("\n" + text)]
    # The lines are counted on from the previous link's (the offsets come in order): not
    # from the text's start for each link.
    line, counted = first_line, 0
    for offset, target in sorted(found):
        if (target.startswith(_NOT_LOCAL) or _SCHEME.match(target)
                or _in_code(text, offset, blocks)):
            continue
        file_part = target.split("#", 1)[0].split("?", 1)[0]
        if "%" in file_part:
            file_part = unquote(file_part)
        base, file_part = _strip_placeholder(file_part, folder, root)
        if not file_part:
            continue
        line += text.count("\n", counted, offset)
        counted = offset
        where = line, offset - text.rfind("\n", 0, offset)
        if file_part.startswith("/"):
            yield target, where, None
        else:
            yield target, where, _joined(base, file_part)


def _markers_of(text: str) -> frozenset[str]:
    """:func:`skillsite.linter.markers.found`, imported on the first link search (the
    marker pass, which every rule asks about the same texts, answers whether a text holds
    ``](`` or ``]:`` without a search of its own that reads the whole text when it fails);
    not at import, which a check of an empty folder makes."""
    global _markers_of
    from skillsite.linter.markers import found

    _markers_of = found
    return found(text)


def _joined(base: str, rel: str) -> str:
    """``normpath(join(base, rel))`` for a normalized ``base``: a plain relative path
    (no ``.`` or ``..`` part, no empty part) joins as it is, without ``normpath``."""
    if (os.sep == "/" and base != "/" and rel and rel[0] != "/" and "//" not in rel
            and not rel.endswith("/")
            and not rel.startswith(".") and "/." not in rel):
        return f"{base}/{rel}"
    return os.path.normpath(os.path.join(base, rel))


def _strip_placeholder(target: str, folder: str, root: str) -> tuple[str, str]:
    if not target.startswith(_PLACEHOLDER_STARTS):
        return folder, target  # every placeholder starts with "{" or "$"
    for placeholder in ROOT_PLACEHOLDERS:
        if target.startswith(placeholder):
            rest = target[len(placeholder):].lstrip("/")
            return root, rest or "."
    return folder, target


def _in_code(body: str, offset: int, blocks: list[Fence]) -> bool:
    """Inside a fenced block, or after an odd number of backticks on its line."""
    if in_fence(blocks, offset):
        return True
    line_start = body.rfind("\n", 0, offset) + 1
    return body.count("`", line_start, offset) % 2 == 1


def position(text: str, first_line: int, offset: int) -> tuple[int, int]:
    """1-based (line, column) of ``offset`` in ``text`` that starts on ``first_line``."""
    line_start = text.rfind("\n", 0, offset) + 1
    return first_line + text.count("\n", 0, offset), offset - line_start + 1
