"""The texts the content rules read, for every format: a ``SKILL.md`` or Mini-A body and
its bundled files, a ``.skill.toml``'s string values, a ``skill.json``'s entry script.

Each text comes with where it starts, so a finding points at its own file, line and
column. Nothing is ever executed; an entry script is read only when it is a regular file
inside the corpus root.
"""
from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from typing import Any, NamedTuple

from skillsite.linter.capped import read_capped
from skillsite.linter.refgraph import references
from skillsite.linter.rules.context import Context, text_field
from skillsite.models import Document


class Text(NamedTuple):
    """``rel`` is a bundled file's path below the document's folder (None: the document
    itself); ``text`` starts at ``line`` and, on that line, at ``column``."""

    rel: str | None
    text: str
    line: int
    is_markdown: bool
    column: int = 1

    def where(self, offset: int) -> tuple[int, int]:
        line_start = self.text.rfind("\n", 0, offset) + 1
        line = self.line + self.text.count("\n", 0, offset)
        column = offset - line_start + (self.column if line == self.line else 1)
        return line, column


def texts(doc: Document, ctx: Context, *, whole: bool = False) -> list[Text]:
    """The body (or, with ``whole``, the whole file) and each bundled text file."""
    # Asked for by every content rule of every document: looked up without a closure.
    key = _WHOLE if whole else _BODY
    found: list[Text] | None = doc.derived.get(key)
    if found is None:
        found = doc.derived[key] = list(_texts(doc, ctx, whole))
    return found


_BODY, _WHOLE = "content-texts-False", "content-texts-True"


def _texts(doc: Document, ctx: Context, whole: bool) -> Iterator[Text]:
    kind = doc.source.kind
    if kind == "skill-toml" and whole and "text" in doc.derived:
        yield Text(None, doc.derived["text"], 1, False)
        return
    if kind == "skill-toml":
        yield from _strings(doc, doc.data or {}, "")
        return
    if kind == "skill-json":
        entry = _entry_script(doc, ctx)
        if entry is not None:
            yield entry
        return
    if whole and "text" in doc.derived:
        yield Text(None, doc.derived["text"], 1, True)
    else:
        yield Text(None, doc.body, doc.body_line, True)
    yield from doc.memo("bundled-texts", lambda: [
        Text(bundled.rel, bundled.text, 1, bundled.is_markdown)
        for bundled in references(doc, ctx.config.max_file_size).files if bundled.text])


def _strings(doc: Document, value: Any, pointer: str) -> Iterator[Text]:
    """Every string of a manifest (``prompt_additions`` are instructions to the agent),
    starting just inside its opening quote."""
    if isinstance(value, str):
        line, column = doc.where(pointer)
        yield Text(None, value, line, True, column + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(doc, item, f"{pointer}/{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(doc, item, f"{pointer}/{index}")


def _entry_script(doc: Document, ctx: Context) -> Text | None:
    entry = text_field(doc, "entry")
    if not entry:
        return None
    folder = doc.source.path.parent
    path = os.path.realpath(folder / entry)
    root = str(ctx.real_root(doc))
    if not path.startswith(root + os.sep):
        return None  # entry-escapes-root reports it; never read outside the corpus
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None  # a FIFO or a device would block or never end
        raw = read_capped(path, ctx.config.max_file_size)
    except OSError:
        return None
    if len(raw) > ctx.config.max_file_size or b"\0" in raw[:8192]:
        return None
    rel = os.path.relpath(path, os.path.realpath(folder)).replace(os.sep, "/")
    return Text(rel, raw.decode("utf-8", "replace").replace("\r\n", "\n"), 1, False)
