"""The plainest front matter, read without the YAML parser.

Most front matter is a mapping of keys to one-line values, with at most one level of
nested mapping (``metadata:``), some with a one-line list of words (``mcp: [rube]``) or
a block list of one-line values (``allowed-tools:`` then ``  - Read`` lines, at either
level). For such text this module gives what ``yaml.compose`` would (the same keys,
values, tags, styles and positions, as plain tuples that ``yamlmap`` walks without node
objects), several times faster than starting a parser per file, and without importing
PyYAML. Anything it is not sure about (a list of lists or mappings, a block or
multi-line scalar, an escape, a tab, a ``: `` or `` #`` inside a plain value, a flow
list of anything but plain words, a comment after a value or indented, an unusual
character) makes it return None, and the YAML parser reads the text as before; so it
never decides what is valid YAML, it only recognizes a subset that certainly is.
``tests/unit/test_yamlfast.py`` compares both on every shape it takes and on every
front matter of the real corpora it is given.
"""
from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import cast

# A key at the start of a line (after ``indent`` spaces), then the rest of the line.
_LINE = re.compile(r"( *)([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?")
# An item of a block list (after ``indent`` spaces): "- " and its value.
_ENTRY = re.compile(r"( *)- +(.+)")
# What may open a plain scalar: not an indicator, a quote, a space or a tab.
_PLAIN_START = re.compile(r"[^-?:,\[\]{}#&*!|>'\"%@` \t]")
#: The characters _PLAIN_START refuses, for a look at one character without the regex.
_NOT_PLAIN_START = frozenset("-?:,[]{}#&*!|>'\"%@` \t")
_STR = "tag:yaml.org,2002:str"
#: PyYAML's implicit resolvers (``yaml.resolver.Resolver``, YAML 1.1), in its order: the
#: tag, the characters a plain scalar of that type may start with, the pattern and its
#: flags. Copied, so that front matter of the plain shape is read without importing
#: PyYAML (some 5 ms of a cold check's start); ``tests/unit/test_yamlfast.py`` holds the
#: copy to PyYAML's own table.
_RESOLVERS: tuple[tuple[str, str | tuple[str, ...], str, int], ...] = (
    ("tag:yaml.org,2002:bool", "yYnNtTfFoO",
     r"""^(?:yes|Yes|YES|no|No|NO
                    |true|True|TRUE|false|False|FALSE
                    |on|On|ON|off|Off|OFF)$""", re.X),
    ("tag:yaml.org,2002:float", "-+0123456789.",
     r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
                    |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
                    |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
                    |[-+]?\.(?:inf|Inf|INF)
                    |\.(?:nan|NaN|NAN))$""", re.X),
    ("tag:yaml.org,2002:int", "-+0123456789",
     r"""^(?:[-+]?0b[0-1_]+
                    |[-+]?0[0-7_]+
                    |[-+]?(?:0|[1-9][0-9_]*)
                    |[-+]?0x[0-9a-fA-F_]+
                    |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$""", re.X),
    ("tag:yaml.org,2002:merge", "<", r"^(?:<<)$", 0),
    ("tag:yaml.org,2002:null", ("~", "n", "N", ""),  # "": the empty scalar
     r"""^(?: ~
                    |null|Null|NULL
                    | )$""", re.X),
    ("tag:yaml.org,2002:timestamp", "0123456789",
     r"""^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
                    |[0-9][0-9][0-9][0-9] -[0-9][0-9]? -[0-9][0-9]?
                     (?:[Tt]|[ \t]+)[0-9][0-9]?
                     :[0-9][0-9] :[0-9][0-9] (?:\.[0-9]*)?
                     (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$""", re.X),
    ("tag:yaml.org,2002:value", "=", r"^(?:=)$", 0),
    ("tag:yaml.org,2002:yaml", "!&*", r"^(?:!|&|\*)$", 0),
)
#: Implicit types by the first character of a plain scalar (``y`` may start a boolean, a
#: digit a number, ``~`` a null): the resolvers to try, in order. A scalar that none
#: claims, or a quoted one, is a string.
def _by_start() -> dict[str, list[tuple[str, str, int]]]:
    table: dict[str, list[tuple[str, str, int]]] = {}
    for tag, starts, pattern, flags in _RESOLVERS:
        for start in starts:
            table.setdefault(start, []).append((tag, pattern, flags))
    return table


_IMPLICIT = _by_start()


#: A scalar: its text, style (None when plain, else the quote), tag, 0-based line, column.
Scalar = tuple[str, "str | None", str, int, int]
#: A flow sequence of plain words (``[rube]``, ``[a, b]``): its items, 0-based line and
#: column of its ``[``; or a block list of scalars: its items, line and column of its
#: first ``-``.
Flow = tuple[list[Scalar], int, int]
#: A key (its text, tag, 0-based line and column) and its value: a scalar, a mapping or a
#: flow sequence.
Pair = tuple[str, str, int, int, "Scalar | list[Pair] | Flow"]
#: Longer flow sequences are left to the parser (which counts values against alias bombs).
MAX_FLOW_ITEMS = 64
# One item of a flow sequence of the plain shape: no space, no flow indicator, no quote,
# no ":" or "#" (the parser reads those in ways this module does not try to follow).
_FLOW_ITEM = re.compile(r"[^,\[\]{}#:'\"\s]+")


def parse(text: str) -> list[Pair] | None:
    """The pairs of the mapping ``text`` holds, or None when it is not of the plain shape.
    A nested mapping starts where its first key does, the root where its first key does
    (in column 0), a block list (a Flow of its items) where its first ``-`` does."""
    reader = _Reader()
    for number, line in enumerate(text.split("\n")):
        if not line or line[0] == "#":
            continue  # a blank line or a comment line (no other comment is accepted)
        # An item has "- " after its indent (a key line seldom holds one at all).
        entry = _ENTRY.fullmatch(line) if "- " in line else None
        if not (reader.item(entry, number) if entry is not None
                else reader.pair(line, number)):
            return None
    if not reader.root or reader.open_key is not None:
        return None  # nothing, or a last "key:" with nothing under it (an empty value)
    return reader.root


class _Reader:
    """Where :func:`parse` is, line after line."""

    __slots__ = ("root", "nested", "indent", "open_key", "items", "items_at")

    def __init__(self) -> None:
        self.root: list[Pair] = []
        #: The mapping under the last root key without a value, and its keys' column.
        self.nested: list[Pair] | None = None
        self.indent = 0
        #: A key without a value on its line, until the next line says what its value is:
        #: the list it goes into, its text, 0-based line and column.
        self.open_key: tuple[list[Pair], str, int, int] | None = None
        #: The block list being read, and its items' column.
        self.items: list[Scalar] | None = None
        self.items_at = 0

    def item(self, entry: re.Match[str], number: int) -> bool:
        """``- value``: the next item of a block list, or the first one of an open key."""
        spaces = len(entry.group(1))
        if self.open_key is not None and spaces >= self.open_key[3]:
            into, key, key_line, key_column = self.open_key
            self.open_key, self.items, self.items_at = None, [], spaces
            into.append((key, _key_tag(key), key_line, key_column,
                         (self.items, number, spaces)))
        elif self.items is None or spaces != self.items_at:
            return False  # an item under a key with a value, or misaligned
        value = _value(entry.group(2), number, entry.start(2))
        if value is None or len(value) != 5:
            return False  # not a scalar of the plain shape
        self.items.append(cast(Scalar, value))
        return True

    def pair(self, line: str, number: int) -> bool:
        """``key: value`` or ``key:``, at the root or in the nested mapping."""
        found = _LINE.fullmatch(line)
        if found is None:
            return False
        indent, key, rest = found.groups()
        spaces = len(indent)
        self.items = None
        if self.open_key is not None:  # a nested mapping starts, or the key had no value
            into, key_text, key_line, key_column = self.open_key
            if key_column or not spaces:
                return False  # "key:" with nothing under it: an empty value
            self.nested, self.indent, self.open_key = [], spaces, None
            into.append((key_text, _key_tag(key_text), key_line, 0, self.nested))
        if not spaces:
            into, self.nested = self.root, None
        elif self.nested is None or spaces != self.indent:
            return False  # indented under a key that has a value, or misaligned
        else:
            into = self.nested
        if rest is None:
            self.open_key = (into, key, number, spaces)
            return True
        value = _value(rest, number, found.start(3)) if rest else None
        if value is None:
            return False  # not a value of the plain shape
        into.append((key, _key_tag(key), number, spaces, value))
        return True


def _value(rest: str, line: int, column: int) -> Scalar | Flow | None:
    if not rest.isprintable() or rest[-1] == " ":
        return None
    first = rest[0]
    if first == "[":
        return _flow(rest, line, column)
    if first in "\"'":
        inner = rest[1:-1]
        if len(rest) < 2 or rest[-1] != first or first in inner or "\\" in inner:
            return None
        return inner, first, _tag(inner, False), line, column
    # "-" opens a plain scalar when no space follows it (else it is a list's item).
    if ((first in _NOT_PLAIN_START and (first != "-" or rest[1:2] in ("", " ")))
            or ": " in rest or " #" in rest or rest[-1] == ":"):
        return None
    return rest, None, _tag(rest, True), line, column


def _flow(rest: str, line: int, column: int) -> Flow | None:
    """``[a, b]``: plain words, each after ", " (the form people write), else None."""
    if len(rest) < 3 or rest[-1] != "]":
        return None
    words = rest[1:-1].split(", ")
    if len(words) > MAX_FLOW_ITEMS:
        return None
    items: list[Scalar] = []
    at = column + 1
    for word in words:
        if not _FLOW_ITEM.fullmatch(word) or not _PLAIN_START.match(word):
            return None
        items.append((word, None, _tag(word, True), line, at))
        at += len(word) + 2
    return items, line, column


@lru_cache(maxsize=1024)
def _key_tag(key: str) -> str:
    """The tag of a plain key: the same few keys come back in every file."""
    return _tag(key, True)


def _tag(value: str, plain: bool) -> str:
    """The tag PyYAML's resolver gives a scalar (``Resolver.resolve``)."""
    if plain:
        for tag, pattern, flags in _IMPLICIT.get(value[:1], ()):
            if _compiled(pattern, flags).match(value):
                return tag
    return _STR


@cache
def _compiled(pattern: str, flags: int) -> re.Pattern[str]:
    """A resolver's pattern, compiled when a scalar first starts as its type may."""
    return re.compile(pattern, flags)
