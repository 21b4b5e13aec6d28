"""Read one discovered file into a :class:`~skillsite.models.Document`.

Reading never raises for bad input: size, encoding and syntax problems become issues on
the document, located as precisely as the format allows.
"""
from __future__ import annotations

from pathlib import Path

from skillsite.config import DEFAULT_MAX_SIZE
from skillsite.linter.capped import read_capped
from skillsite.linter.discover import CANDIDATE
from skillsite.linter.parse import frontmatter, yamlmap
from skillsite.models import Document, Issue, Source

# Mini-A candidates are sniffed from their head before being read whole.
_SNIFF_BYTES = 16 * 1024


def read(source: Source, *, max_size: int = DEFAULT_MAX_SIZE) -> Document | None:
    """Parse ``source``; None when a Markdown candidate turns out not to be a skill."""
    if source.kind == CANDIDATE:
        if not _is_virtual_skill(source.path):
            return None
        source = Source(source.path, source.root, "virtual", folder=source.folder)
    doc = Document(source, None)
    text = _read_text(doc, max_size)
    if text is None:
        return doc
    return parse_text(doc, text)


def parse_text(doc: Document, text: str) -> Document:
    """Fill ``doc`` from ``text``, a normalized file of ``doc.source.kind`` (``skillsite
    fix`` parses its edits with this before writing them)."""
    doc.derived["text"] = text  # the whole normalized file, for scans and suppressions
    # The TOML and JSON readers are imported by the first manifest (most corpora have
    # none: about 1 ms of a cold check's start).
    if doc.source.kind == "skill-toml":
        from skillsite.linter.parse import tomlmap

        _fill(doc, tomlmap.load(text))
    elif doc.source.kind == "skill-json":
        from skillsite.linter.parse import jsonmap

        _fill(doc, jsonmap.load(text))
    else:
        _read_markdown(doc, text)
    # A document that parsed to null (``~``, ``null``) is no mapping either.
    if not isinstance(doc.data, dict) and (doc.data is not None or not doc.issues):
        where = doc.positions.get("", (1, 1))
        doc.issues.append(Issue("not-a-mapping", *where,
                                f"expected a mapping of keys to values, found "
                                f"{_kind_name(doc.data)}"))
        doc.data = None
    return doc


def _is_virtual_skill(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            head = handle.read(_SNIFF_BYTES)
    except OSError:
        return False
    return frontmatter.looks_like_virtual_skill(head.decode("utf-8", "replace"))


def _read_text(doc: Document, max_size: int) -> str | None:
    issues = doc.issues
    try:
        raw = read_capped(doc.source.path, max_size)
    except OSError as exc:
        issues.append(Issue("unreadable-file", 1, 1, f"cannot read file: {exc.strerror}"))
        return None
    doc.raw, doc.was_read = raw, True  # hashed when asked (``Document.sha256``)
    if len(raw) > max_size:
        issues.append(Issue("file-too-large", 1, 1,
                            f"file is larger than the {max_size}-byte cap; shrink it or "
                            "raise max-file-size in the configuration"))
        return None
    if not raw or raw.isspace():  # ``not raw.strip()``, without the copy
        issues.append(Issue("empty-file", 1, 1, "file is empty"))
        return None
    if b"\0" in raw:
        issues.append(Issue("binary-file", *_line_col(raw, raw.index(b"\0")),
                            "file contains NUL bytes; it looks binary, not text"))
        return None
    try:
        return frontmatter.normalize(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        issues.append(Issue("invalid-utf8", *_line_col(raw, exc.start),
                            f"invalid UTF-8 byte 0x{raw[exc.start]:02x}; save the file "
                            "as UTF-8"))
        return None


def _line_col(raw: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column of byte ``offset``, counted as every other location is: the
    column in characters, not bytes, after a BOM, with CR and CRLF line ends as LF."""
    before = frontmatter.normalize(raw[:offset].decode("utf-8", "replace"))
    line_start = before.rfind("\n") + 1
    return before.count("\n") + 1, len(before) - line_start + 1


def _read_markdown(doc: Document, text: str) -> None:
    parts = frontmatter.split(text)
    if parts.yaml is None:
        doc.issues.append(Issue("frontmatter-missing", 1, 1,
                                "no YAML front matter: start the file with a '---' line, "
                                "then name: and description:, then a closing '---'"))
        doc.body, doc.body_line = text, 1
        return
    if not parts.closed:
        doc.issues.append(Issue("frontmatter-unclosed", 1, 1,
                                "front matter opens with '---' but no line is exactly '---' "
                                "to close it"))
        return
    _fill(doc, yamlmap.load(parts.yaml, first_line=2))
    doc.body, doc.body_line = parts.body, parts.body_line


def _fill(doc: Document, loaded: yamlmap.Loaded) -> None:
    doc.data = loaded.data
    doc.positions = loaded.positions
    doc.key_positions = loaded.key_positions
    doc.issues.extend(loaded.issues)


def _kind_name(value: object) -> str:
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing"
    return f"a single value ({type(value).__name__})"
