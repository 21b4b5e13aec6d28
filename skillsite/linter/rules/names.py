"""Rules about a skill's name."""
from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterator

from skillsite.filenames import printable
from skillsite.linter import suppress
from skillsite.linter.links import folder_of
from skillsite.linter.rules.context import Context, dialect, text_field
from skillsite.linter.rules.registry import Finding, rule
from skillsite.models import WARNING, Document

_AGENT_SKILLS = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_ONGRID_NATIVE = re.compile(r"^[a-z0-9][a-z0-9_]*$")
_ONGRID_MANIFEST = re.compile(r"^[a-z0-9_]+$")


@rule("name-format", "error", formats=("skill-md", "skill-json"),
      peers={"agnix": "AS-004, AS-005, AS-006", "skillsaw": "agentskill-name"})
def name_format(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    ``name`` uses only the characters its format allows.

    ``SKILL.md`` (Agent Skills): lowercase ``a-z``, digits and ``-``; no leading or
    trailing ``-`` and no ``--``. An ongrid-native ``SKILL.md`` (one with ``activation``,
    ``tools`` or ``config_section``) may use ``_`` as ongrid does
    (``^[a-z0-9][a-z0-9_]*$``); that is a warning, because other Agent Skills loaders
    reject it. ``skill.json`` (ongrid): ``[a-z0-9_]+``.

    Failing example::

        name: PDF_Tools

    Passing example::

        name: pdf-tools
    """
    name = text_field(doc, "name")
    if not name:
        return
    if doc.source.kind == "skill-json":
        if not _ONGRID_MANIFEST.match(name):
            yield "/name", f"name {name!r} must match [a-z0-9_]+ (lowercase, digits, '_')"
        return
    if _AGENT_SKILLS.match(name):
        return
    reason = _why_not_agent_skills(name)
    if dialect(doc) == "ongrid" and _ONGRID_NATIVE.match(name):
        yield "/name", (f"name {name!r} is valid for ongrid but not for Agent Skills "
                        f"loaders: {reason}"), WARNING
        return
    folder = os.path.basename(folder_of(doc)) if doc.source.kind == "skill-md" else name
    also = f"; it must also match its folder name {folder!r}" if folder != name else ""
    yield "/name", f"name {name!r} is invalid: {reason}{also}"


def _silenced_inline(doc: Document, ctx: Context, rule_id: str) -> bool:
    """Whether an inline comment silences ``rule_id`` on the ``name`` line."""
    text = doc.derived.get("text", "")
    return (ctx.config.inline_suppressions and "skillsite" in text
            and suppress.silences(text, rule_id, doc.where("/name")[0]))


def _why_not_agent_skills(name: str) -> str:
    if name != name.lower():
        return "use lowercase letters only"
    if name.startswith("-") or name.endswith("-"):
        return "it must not start or end with '-'"
    if "--" in name:
        return "it must not contain '--'"
    bad = sorted({c for c in name if not (c.isascii() and (c.isalnum() or c == "-"))})
    return f"it may contain only a-z, 0-9 and '-', not {' '.join(map(repr, bad))}"


@rule("name-directory-mismatch", "error", formats=("skill-md", "skill-toml"), fixable=True,
      peers={"agnix": "AS-017", "skillsaw": "agentskill-name"})
def name_directory_mismatch(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    A ``SKILL.md``'s ``name`` must equal the name of the folder that holds it
    (Agent Skills specification), compared after Unicode NFKC normalization.

    Most loaders (Claude Code, Flux) only warn and load the skill anyway; skillsite follows
    the specification, which says *must*. Lower it with ``severity = {
    name-directory-mismatch = "warning" }``. For oxo-flow, the file should be named
    ``<name>.skill.toml``; a mismatch there is a warning.

    A name that ``name-format`` already rejects is not reported again: the problem is
    counted once, and ``name-format``'s message names the folder when the two differ.
    When ``name-format`` is silenced (``--ignore`` or an inline comment), the mismatch is
    reported.
    """
    name = text_field(doc, "name")
    if not name:
        return
    path = doc.source.path
    if doc.source.kind == "skill-toml":
        stem = path.name[: -len(".skill.toml")]
        if stem != name:
            yield "/name", (f"name {name!r} does not match the file name "
                            f"{path.name!r}; rename the file to {name}.skill.toml"), WARNING
        return
    folder = os.path.basename(folder_of(doc))  # the same folder, worked out once per file
    if (not _AGENT_SKILLS.match(name) and ctx.config.enabled("name-format")
            and not (dialect(doc) == "ongrid" and _ONGRID_NATIVE.match(name))
            and not _silenced_inline(doc, ctx, "name-format")):
        return  # name-format reports this name, with the folder
    if name != folder and unicodedata.normalize("NFKC", name) != unicodedata.normalize(
            "NFKC", folder):
        yield "/name", (f"name {name!r} must match its folder name '{printable(folder)}'; "
                        "rename one of them")
