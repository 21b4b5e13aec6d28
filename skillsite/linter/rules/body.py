"""Rules about the Markdown body: its size and what it holds."""
from __future__ import annotations

import re
from collections.abc import Iterator

from skillsite.linter.markers import MARKERS
from skillsite.linter.markers import found as markers_of
from skillsite.linter.rules.context import Context
from skillsite.linter.rules.registry import Elsewhere, Finding, rule
from skillsite.linter.rules.texts import texts
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


# C:\Users\ada\..., /Users/ada/..., /home/ada/...: a folder of one person's machine.
_PERSONAL = re.compile(r"(?<![\w/])(?:[A-Za-z]:\\{1,2}Users\\{1,2}|/Users/|/home/)"
                       r"([A-Za-z0-9][\w.-]*)(?=[\\/])")
#: What every match of _PERSONAL holds ("Users" alone is in much prose).
_PERSONAL_PARTS = ("/Users/", "/home/", "Users\\")
#: The parts lowered, markers of the marker pass: a text without any holds no part.
_PERSONAL_GATE = frozenset(part.lower() for part in _PERSONAL_PARTS)
assert _PERSONAL_GATE.issubset(MARKERS)
#: Names that stand for whoever runs the skill, not for one person.
_ANYONE = frozenset({
    "user", "username", "user-name", "user_name", "you", "your-name", "yourname", "your_name",
    "name", "me", "myuser", "someone", "somebody", "example", "runner", "ubuntu", "vscode",
    "node", "app", "admin", "root", "default", "public", "shared", "all", "john", "jane",
    "johndoe", "jdoe", "foo", "bar", "alice", "bob", "dev", "developer", "ec2-user", "x",
    "linuxbrew", "coder", "codespace", "jovyan", "circleci", "travis", "build", "agent",
    "runneradmin", "guest", "test", "demo", "sample", "username1"})
#: "myuserName", "your_user", "my-name": the reader's own name, to put in.
_STAND_IN = re.compile(r"(?i)(?:my|your)[-_]?(?:user)?[-_]?(?:name)?$")


@rule("personal-path", "warning", formats=("skill-md", "virtual", "skill-toml", "skill-json"),
      family="body", peers={"skillsaw": "content-hardcoded-paths"}, needs=_PERSONAL_GATE)
def personal_path(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    A hard-coded path into one person's home folder, such as ``C:\\Users\\ada\\tools`` or
    ``/Users/ada/projects/x``, in the body or a bundled file (scripts included).

    It works on the author's machine only. Write ``~/``, ``$HOME`` or a path relative to
    the skill instead. Stand-in names (``/home/user``, ``/Users/you``, ``/home/runner``,
    ``/Users/myUserName``) and placeholders (``/Users/<name>``, ``$USER``) are fine.

    Failing example: ``python /Users/ada/dev/fill.py``. Passing example:
    ``python scripts/fill.py``.
    """
    for text in texts(doc, ctx):
        if _PERSONAL_GATE.isdisjoint(markers_of(text.text)):
            continue  # the text holds no part, whatever its case
        for found in _PERSONAL.finditer(text.text):
            if found.group(1).lower() in _ANYONE or _STAND_IN.match(found.group(1)):
                continue
            where = text.where(found.start())
            yield (where if text.rel is None else Elsewhere(text.rel, *where)), (
                f"{found.group()!r} is a folder on one person's machine; use ~/, $HOME or "
                "a path relative to the skill")
