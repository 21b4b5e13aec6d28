"""Rules about the Markdown body: its size and its relative links."""
from __future__ import annotations

import os
from typing import Iterator

from skillsite.linter.links import local_links
from skillsite.linter.rules.context import Context
from skillsite.linter.rules.registry import Finding, rule
from skillsite.models import Document

MAX_BODY_LINES = 500
MAX_BODY_TOKENS = 5000
_CHARS_PER_TOKEN = 4


@rule("body-too-long", "warning", formats=("skill-md", "virtual"))
def body_too_long(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    The body should stay under 500 lines and about 5000 tokens (Agent Skills
    recommendation), because the whole body is loaded when the skill activates. Move
    detail into ``references/`` files that the agent reads only when needed.
    Tokens are estimated as characters / 4.
    """
    lines = doc.body.count("\n") + (0 if doc.body.endswith("\n") or not doc.body else 1)
    tokens = len(doc.body) // _CHARS_PER_TOKEN
    if lines > MAX_BODY_LINES:
        yield (doc.body_line, 1), (f"body has {lines} lines, over the recommended "
                                   f"{MAX_BODY_LINES}; move detail into references/")
    elif tokens > MAX_BODY_TOKENS:
        yield (doc.body_line, 1), (f"body is about {tokens} tokens, over the recommended "
                                   f"{MAX_BODY_TOKENS}; move detail into references/")


@rule("empty-body", "warning", formats=("skill-md",))
def empty_body(doc: Document, ctx: Context) -> Iterator[Finding]:
    """The ``SKILL.md`` has front matter but no instructions after it."""
    if doc.data is not None and not doc.body.strip():
        yield (doc.body_line, 1), "body is empty; add the instructions the agent should follow"


@rule("broken-link", "warning", formats=("skill-md", "virtual"))
def broken_link(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    A relative link in the body points at a file that does not exist.

    Links with a scheme (``https:``, ``mailto:``) and pure anchors (``#usage``) are not
    checked; links inside code blocks and inline code are ignored. The specification is
    silent on links, so this is a warning.
    """
    for target, where, path in local_links(doc):
        if path is not None and _inside(path, _skill_root(doc)) and not os.path.exists(path):
            yield where, f"link target {target!r} does not exist"


@rule("link-escapes-root", "warning", formats=("skill-md", "virtual"))
def link_escapes_root(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    A relative link leaves the skill's root: the folder holding ``SKILL.md`` (for a Mini-A
    page, the corpus root), or is an absolute file path.

    A skill is copied and installed as one folder, so such links break once it is
    installed; and skillsite never follows a path out of the root. The specification asks
    that file references be relative to the skill root.
    """
    root = _skill_root(doc)
    for target, where, path in local_links(doc):
        if path is None or not _inside(path, root):
            yield where, (f"link {target!r} leads outside the skill folder; copy the file "
                          "into the skill instead")


@rule("reference-depth", "warning", formats=("skill-md",))
def reference_depth(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    File references should go one level deep from ``SKILL.md`` (``references/guide.md``,
    not ``references/pdf/forms/guide.md``), as the Agent Skills specification recommends,
    so an agent never has to chase nested references.
    """
    root = _skill_root(doc)
    for target, where, path in local_links(doc):
        if path is not None and _inside(path, root):
            depth = os.path.relpath(path, root).count(os.sep)
            if depth > 1:
                yield where, (f"link {target!r} is {depth} folders deep; keep references "
                              "one level below the skill folder")


def _skill_root(doc: Document) -> str:
    folder = doc.source.root if doc.source.kind == "virtual" else doc.source.path.parent
    return doc.memo("skill-root", lambda: os.path.abspath(folder))


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root + os.sep)
