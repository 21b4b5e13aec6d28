"""TOML to plain values (``tomllib``) plus the line of every key and string item.

``tomllib`` keeps no positions, so a light line scanner recovers them: table headers,
``key =`` lines (dotted keys included) and, for arrays, where each quoted item stands.
"""
from __future__ import annotations

import re
from typing import Any

from skillsite.linter.parse.limits import MAX_DEPTH
from skillsite.linter.parse.yamlmap import Loaded
from skillsite.linter.pointer import child, resolve
from skillsite.models import Issue, Position

_HEADER = re.compile(r"^[ \t]*(\[\[?)[ \t]*([^\]#]+?)[ \t]*\]\]?[ \t]*(?:#.*)?$")
_KEY = re.compile(r"^[ \t]*((?:[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*')"
                  r"(?:[ \t]*\.[ \t]*(?:[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*'))*)[ \t]*=")
_WHERE = re.compile(r"\(at line (\d+), column (\d+)\)|\(at end of document\)")


def load(text: str) -> Loaded:
    import tomllib  # only for a *.skill.toml: a check of SKILL.md files never loads it

    out = Loaded()
    try:
        out.data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        out.issues.append(_syntax_issue(str(exc), text))
        return out
    except RecursionError:
        out.issues.append(Issue("too-complex", 1, 1, "TOML nests too deeply"))
        return out
    except ValueError as exc:  # an integer past Python's int_max_str_digits
        out.issues.append(Issue("too-complex", 1, 1, f"TOML value too large: {exc}"))
        return out
    if _too_deep(out.data):
        out.data = None
        out.issues.append(Issue("too-complex", 1, 1,
                                f"TOML nests deeper than {MAX_DEPTH} levels"))
        return out
    out.positions[""] = (1, 1)
    _map_positions(text, out)
    return out


def _syntax_issue(message: str, text: str) -> Issue:
    match = _WHERE.search(message)
    if match and match.group(1):
        line, column = int(match.group(1)), int(match.group(2))
    else:
        line, column = text.count("\n") + 1, 1
    plain = _WHERE.sub("", message).strip()
    if any(word in plain.lower() for word in ("overwrite", "duplicate", "twice")):
        # tomllib points past the repeated value; the key starts the line.
        lines = text.split("\n")
        if 0 < line <= len(lines):
            column = len(lines[line - 1]) - len(lines[line - 1].lstrip()) + 1
        return Issue("duplicate-key", line, column,
                     f"{plain}: a key or table is defined twice; keep only one")
    return Issue("toml-syntax", line, column, f"invalid TOML: {plain}")


def _split_key(key: str) -> list[str]:
    parts = re.findall(r"\"[^\"]*\"|'[^']*'|[A-Za-z0-9_-]+", key)
    return [p[1:-1] if p[:1] in "\"'" else p for p in parts]


def _map_positions(text: str, out: Loaded) -> None:
    table = ""
    array_counts: dict[str, int] = {}
    in_multiline: str | None = None
    offset = 0
    for number, line in enumerate(text.split("\n"), start=1):
        line_offset, offset = offset, offset + len(line) + 1
        if in_multiline:
            if line.count(in_multiline) % 2 == 1:
                in_multiline = None
            continue
        header = _HEADER.match(line)
        if header:
            table = _pointer(_split_key(header.group(2)))
            _map_parents(table, (number, 1), out)
            if header.group(1) == "[[":
                index = array_counts.get(table, 0)
                array_counts[table] = index + 1
                table = f"{table}/{index}"
            out.positions.setdefault(table, (number, 1))
            out.key_positions.setdefault(table, (number, 1))
            continue
        key = _KEY.match(line)
        if not key:
            continue
        pointer = table + _pointer(_split_key(key.group(1)))
        column = len(line) - len(line.lstrip()) + 1
        _map_parents(pointer, (number, column), out)
        out.key_positions.setdefault(pointer, (number, column))
        value_column = key.end() + len(line[key.end():]) - len(line[key.end():].lstrip()) + 1
        out.positions.setdefault(pointer, (number, value_column))
        _map_items(text, line_offset + key.end(), pointer, out)
        for quote in ('"""', "'''"):
            if line.count(quote) % 2 == 1:
                in_multiline = quote


def _map_parents(pointer: str, where: Position, out: Loaded) -> None:
    """Locate tables that ``[a.b]`` or ``a.b = 1`` define implicitly (here, ``/a``)."""
    parts = pointer.split("/")
    for end in range(2, len(parts)):
        parent = "/".join(parts[:end])
        out.positions.setdefault(parent, where)
        out.key_positions.setdefault(parent, where)


def _too_deep(data: Any) -> bool:
    stack = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        children = value.values() if isinstance(value, dict) else (
            value if isinstance(value, list) else ())
        stack.extend((child, depth + 1) for child in children)
    return False


def _map_items(text: str, start: int, pointer: str, out: Loaded) -> None:
    """Locate each string item of the array at ``pointer``, whose value starts after
    offset ``start``: at its opening quote, found by scanning the array's tokens (a search
    for the item's text would miss escaped items and land in other values)."""
    items = resolve(out.data, pointer)
    if not isinstance(items, list):
        return
    for index, offset in _item_offsets(text, start).items():
        if index < len(items) and isinstance(items[index], str):
            line = text.count("\n", 0, offset) + 1
            out.positions[f"{pointer}/{index}"] = (line, offset - text.rfind("\n", 0, offset))


_STRING = re.compile(r'"""(?:[^\\]|\\.)*?"""|\'\'\'.*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'',
                     re.DOTALL)


def _item_offsets(text: str, start: int) -> dict[int, int]:
    """Offset of each top-level item of the array that opens after ``start``."""
    offsets: dict[int, int] = {}
    i = _skip_blank(text, start)
    if not text.startswith("[", i):
        return offsets
    depth, index, fresh = 0, 0, True
    while i < len(text):
        char = text[i]
        if char in "\"'":
            string = _STRING.match(text, i)
            if string is None:
                break
            if depth == 1 and fresh:
                offsets[index], fresh = i, False
            i = string.end()
            continue
        if char == "#":
            i = text.find("\n", i)
            if i < 0:
                break
        elif char == "," and depth == 1:
            index, fresh = index + 1, True
        elif char in "]}":
            depth -= 1
            if depth == 0:
                break
        elif not char.isspace():
            fresh = fresh and depth != 1
            depth += char in "[{"
        i += 1
    return offsets


def _skip_blank(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t":
        i += 1
    return i


def _pointer(parts: list[str]) -> str:
    return "".join(child("", p) for p in parts)
