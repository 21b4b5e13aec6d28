"""Small checks and shapes shared by the Library's operations: arguments, refs, one-line
texts and name cursors. Whatever a client sends, these turn it into a clear error."""
from __future__ import annotations

import base64
import binascii
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from skillsite.filenames import utf8
from skillsite.reader.errors import ReaderError

#: A one-line description in search results is cut to this many characters.
DESCRIPTION_CHARS = 200
MAX_REF_CHARS = 256


def text_argument(value: object, what: str, most: int) -> str:
    """``value`` if it is text of at most ``most`` characters that SQLite can take."""
    if not isinstance(value, str):
        raise ReaderError("invalid-argument", f"{what} must be text")
    if len(value) > most:
        raise ReaderError("invalid-argument", f"{what} is {len(value)} characters long; "
                          f"the most is {most}")
    if not utf8(value):
        raise ReaderError("invalid-argument", f"{what} is not valid Unicode text")
    return value


def name_of_ref(ref: object) -> str:
    """The skill name a ref stands for: ``name`` or ``skill:<name>``."""
    text = text_argument(ref, "a ref", MAX_REF_CHARS).strip()
    return text.removeprefix("skill:")


def clamp(value: object, low: int, high: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ReaderError("invalid-argument", f"{what} must be a whole number")
    return min(max(value, low), high)


def one_line(text: str, width: int = DESCRIPTION_CHARS) -> str:
    """``text`` on one line, cut at a word to at most ``width`` characters (with "…")."""
    if len(text) <= ONE_LINES_KEPT_CHARS:
        return _kept_one_line(text, width)
    return _one_line(text, width)


#: One-line forms kept, of texts up to this long: a search shows the same titles and
#: descriptions again and again, and a long-lived reader should not redo them.
ONE_LINES_KEPT = 8192
ONE_LINES_KEPT_CHARS = 2000


def _one_line(text: str, width: int) -> str:
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    cut = flat[:width - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > width // 2 else cut).rstrip(" ,;:.") + "…"


_kept_one_line = lru_cache(maxsize=ONE_LINES_KEPT)(_one_line)


def words(value: str | Sequence[str] | Mapping[str, Any] | None) -> str:
    """An environment or capabilities argument as plain words."""
    if value is None:
        return ""
    if isinstance(value, str):
        return text_argument(value, "environment", 2000)
    if isinstance(value, Mapping):
        parts = [f"{key} {item}" for key, item in value.items()]
    else:
        parts = [str(item) for item in value]
    return text_argument(" ".join(parts), "environment", 2000)


def cursor_after(name: str) -> str:
    return base64.urlsafe_b64encode(name.encode("utf-8")).decode("ascii").rstrip("=")


def page_start(names: list[str], cursor: str | None) -> int:
    """Where the page after ``cursor`` (from :func:`cursor_after`) starts in ``names``."""
    if cursor is None:
        return 0
    try:
        text = text_argument(cursor, "cursor", 512)
        last = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode("utf-8")
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise ReaderError("invalid-argument", "this cursor is not one that names "
                          "returned") from None
    return bisect_right(names, last)
