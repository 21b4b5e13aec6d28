"""``skillsite fix`` as a library: fix one SKILL.md and prove the fix worked.

A file is fixed in memory, parsed again after every edit, and checked again at the end:
if a rule it fixed still reports a problem, nothing is written for that file. Line
endings and a byte-order mark are kept as they were.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from skillsite.linter.capped import read_capped
from skillsite.linter.checker import display_path
from skillsite.linter.fixes import FIXERS, VALID_NAME
from skillsite.linter.lint import lint_document
from skillsite.linter.parse import frontmatter, parse_text
from skillsite.linter.rules.context import Context
from skillsite.models import Document, Source


@dataclass
class FileFix:
    """What fixing one file did: ``after`` equals ``before`` when nothing was changed."""

    path: Path
    display: str
    before: str
    after: str
    fixed: list[str] = field(default_factory=list)
    #: Rules whose problems are still there after the fix, so nothing was written.
    refused: list[str] = field(default_factory=list)


class NotFixable(Exception):
    """A file ``fix`` leaves alone because ``check`` does not read it either (its reason)."""


def read_text(path: Path, max_size: int) -> str:
    """The file's text, or NotFixable when it is unreadable, over the size cap, binary
    or not UTF-8 (``check`` reports each of those and reads no further)."""
    try:
        raw = read_capped(path, max_size)
    except OSError as exc:
        raise NotFixable(f"cannot read it ({exc.strerror})") from None
    if len(raw) > max_size:
        raise NotFixable(f"larger than the {max_size}-byte cap (file-too-large)")
    if b"\0" in raw:
        raise NotFixable("binary, not text (binary-file)")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise NotFixable("not valid UTF-8 (invalid-utf8)") from None


def _parse(source: Source, text: str) -> Document:
    return parse_text(Document(source, None), text)


def _problems(doc: Document, ctx: Context, display: str) -> set[str]:
    return {p.rule for p in lint_document(doc, ctx, display) if p.path == display}


def fix_file(source: Source, ctx: Context, base: Path,
             rules: set[str] | None = None) -> FileFix:
    """Fix the safe problems of ``source`` (only ``rules``, when given); NotFixable when
    the file is not text ``check`` reads (see read_text)."""
    raw = read_text(source.path, ctx.config.max_file_size)
    display = display_path(source.path, base)
    text = frontmatter.normalize(raw)
    doc = _parse(source, text)
    wanted = []
    present = _problems(doc, ctx, display)
    for rule, fixer in FIXERS.items():  # in order: once YAML parses, the rest can look
        if rule not in present or (rules is not None and rule not in rules):
            continue
        changed = fixer(text, doc)
        if changed != text:  # an unchanged text: no safe fix here, the problem stays
            wanted.append(rule)
            text, doc = changed, _parse(source, changed)
            present = _problems(doc, ctx, display)
    left = present
    fixed = [rule for rule in wanted if rule not in left]
    refused = [rule for rule in wanted if rule in left]
    if refused or not fixed:
        return FileFix(source.path, display, raw, raw, [], refused)
    return FileFix(source.path, display, raw, _restore(raw, text), fixed)


def _restore(raw: str, text: str) -> str:
    """``text`` with the line endings and byte-order mark of the original ``raw``."""
    if "\r\n" in raw:
        text = text.replace("\n", "\r\n")
    return ("\ufeff" + text) if raw.startswith("\ufeff") else text


def write(fix: FileFix) -> None:
    """Replace the file with its fixed text, atomically, keeping its permissions."""
    tmp = fix.path.with_name(f".{fix.path.name}.skillsite-fix-{os.getpid()}")
    tmp.write_bytes(fix.after.encode("utf-8"))
    os.chmod(tmp, os.stat(fix.path).st_mode & 0o7777)
    os.replace(tmp, fix.path)


def folder_rename(source: Source, max_size: int) -> tuple[Path, Path] | None:
    """``(folder, new folder)`` that gives a skill's folder the skill's name, when the
    name is valid and nothing stands at the new path yet; NotFixable as read_text."""
    doc = _parse(source, frontmatter.normalize(read_text(source.path, max_size)))
    name = (doc.data or {}).get("name")
    folder = Path(os.path.abspath(source.path)).parent
    if not isinstance(name, str) or not VALID_NAME.match(name) or name == folder.name:
        return None
    target = folder.with_name(name)
    return None if target.exists() or target.is_symlink() else (folder, target)
