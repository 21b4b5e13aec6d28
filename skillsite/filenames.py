"""File names as text. Python decodes a name that is not valid UTF-8 with surrogate
escapes; such a name can be opened, but not written to a UTF-8 report as it is."""
from __future__ import annotations


def utf8(name: str) -> bool:
    """Whether a file name (as Python decodes it, with surrogate escapes) is valid UTF-8."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def printable(name: str) -> str:
    """``name`` as text any output can hold (undecodable bytes as ``\\xff``)."""
    return name if utf8(name) else name.encode("utf-8", "surrogateescape").decode(
        "utf-8", "backslashreplace")
