"""Rules about the Markdown body: its size and what it holds."""
from __future__ import annotations

from typing import Iterator

from skillsite.linter.rules.context import Context
from skillsite.linter.rules.registry import Finding, rule
from skillsite.models import Document

MAX_BODY_LINES = 500
MAX_BODY_TOKENS = 5000
_CHARS_PER_TOKEN = 4


@rule("body-too-long", "warning", formats=("skill-md", "virtual"), family="body",
      peers={"agnix": "AS-012, AS-021", "skillsaw": "context-budget"})
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


@rule("empty-body", "warning", formats=("skill-md",), family="body")
def empty_body(doc: Document, ctx: Context) -> Iterator[Finding]:
    """The ``SKILL.md`` has front matter but no instructions after it."""
    if doc.data is not None and not doc.body.strip():
        yield (doc.body_line, 1), "body is empty; add the instructions the agent should follow"
