"""JSON to plain values plus a source map (every key's and value's line and column).

A small recursive-descent reader on top of the standard library's string scanner; it also
reports duplicate keys and bounds nesting depth, which ``json.loads`` does not.
"""
from __future__ import annotations

import bisect
import json
import re
from typing import Any

from skillsite.linter.parse.limits import MAX_DEPTH
from skillsite.linter.parse.yamlmap import Loaded
from skillsite.linter.pointer import child as pointer_child
from skillsite.models import Issue, Position

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_LITERALS = {"true": True, "false": False, "null": None}
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


class JsonSyntaxError(ValueError):
    def __init__(self, message: str, index: int, rule: str = "json-syntax") -> None:
        super().__init__(message)
        self.index = index
        self.rule = rule


def load(text: str) -> Loaded:
    """Parse ``text``; a syntax error becomes a ``json-syntax`` issue with its location."""
    reader = _Reader(text)
    out = Loaded()
    try:
        out.data = reader.document()
    except JsonSyntaxError as exc:
        out.issues.append(Issue(exc.rule, *reader.position(exc.index), str(exc)))
        return out
    out.positions, out.key_positions = reader.positions, reader.key_positions
    out.issues.extend(reader.issues)
    return out


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.positions: dict[str, Position] = {}
        self.key_positions: dict[str, Position] = {}
        self.issues: list[Issue] = []

    def position(self, index: int) -> Position:
        line = bisect.bisect_right(self.line_starts, index)
        return (line, index - self.line_starts[line - 1] + 1)

    def skip(self, i: int) -> int:
        return _WS.match(self.text, i).end()  # type: ignore[union-attr]

    def document(self) -> Any:
        value, end = self.value(self.skip(0), "", 0)
        end = self.skip(end)
        if end != len(self.text):
            raise JsonSyntaxError("unexpected text after the JSON value", end)
        return value

    def value(self, i: int, pointer: str, depth: int) -> tuple[Any, int]:
        if depth > MAX_DEPTH:
            raise JsonSyntaxError(f"nesting deeper than {MAX_DEPTH} levels", i, "too-complex")
        self.positions[pointer] = self.position(i)
        char = self.text[i:i + 1]
        if char == "{":
            return self.object(i + 1, pointer, depth)
        if char == "[":
            return self.array(i + 1, pointer, depth)
        if char == '"':
            return self.string(i)
        number = _NUMBER.match(self.text, i)
        if number and number.end() > i:
            digits = number.group()
            if number.group(1) or number.group(2):
                return float(digits), number.end()
            try:
                return int(digits), number.end()
            except ValueError:  # past Python's int_max_str_digits
                raise JsonSyntaxError(f"number of {len(digits)} digits is too long", i,
                                      "too-complex") from None
        for word, literal in _LITERALS.items():
            if self.text.startswith(word, i):
                return literal, i + len(word)
        raise JsonSyntaxError("expected a JSON value" if char else "unexpected end of file", i)

    def string(self, i: int) -> tuple[str, int]:
        try:
            value, end = json.decoder.scanstring(self.text, i + 1)  # type: ignore[attr-defined]
        except json.JSONDecodeError as exc:
            raise JsonSyntaxError(exc.msg, exc.pos) from None
        if _SURROGATE.search(value):
            # json accepts an unpaired \uD800 escape, which is no character: no UTF-8 file,
            # page or database can hold it.
            escape = _SURROGATE_ESCAPE.search(self.text, i, end)
            raise JsonSyntaxError(
                "an unpaired surrogate escape (\\uD800-\\uDFFF) is not a character; write "
                "the character itself, or both halves of its pair (e.g. \\ud83d\\ude80)",
                escape.start() if escape else i)
        return value, end

    def object(self, i: int, pointer: str, depth: int) -> tuple[dict[str, Any], int]:
        result: dict[str, Any] = {}
        i = self.skip(i)
        if self.text.startswith("}", i):
            return result, i + 1
        while True:
            if not self.text.startswith('"', i):
                raise JsonSyntaxError("expected a quoted key", i)
            key_at = self.position(i)
            key, i = self.string(i)
            child = pointer_child(pointer, key)
            if key in result:
                first = self.key_positions[child][0]
                self.issues.append(Issue("duplicate-key", *key_at,
                                         f"key {key!r} is repeated (first on line {first}); "
                                         "the last value wins, so keep only one"))
            else:
                self.key_positions[child] = key_at
            i = self.skip(i)
            if not self.text.startswith(":", i):
                raise JsonSyntaxError("expected ':' after the key", i)
            result[key], i = self.value(self.skip(i + 1), child, depth + 1)
            i = self.skip(i)
            if self.text.startswith(",", i):
                i = self.skip(i + 1)
                continue
            if self.text.startswith("}", i):
                return result, i + 1
            raise JsonSyntaxError("expected ',' or '}'", i)

    def array(self, i: int, pointer: str, depth: int) -> tuple[list[Any], int]:
        result: list[Any] = []
        i = self.skip(i)
        if self.text.startswith("]", i):
            return result, i + 1
        while True:
            item, i = self.value(i, f"{pointer}/{len(result)}", depth + 1)
            result.append(item)
            i = self.skip(i)
            if self.text.startswith(",", i):
                i = self.skip(i + 1)
                continue
            if self.text.startswith("]", i):
                return result, i + 1
            raise JsonSyntaxError("expected ',' or ']'", i)
