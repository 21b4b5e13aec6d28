"""The node tree of the plainest front matter, built without the YAML parser.

Most front matter is a mapping of keys to one-line values, with at most one level of
nested mapping (``metadata:``). For such text this module builds the very nodes
``yaml.compose`` would (same values, tags, styles and positions), several times faster
than starting a parser per file. Anything it is not sure about (a list, a block or
multi-line scalar, an escape, a tab, a ``: `` or `` #`` inside a plain value, a comment
after a value, an unusual character) makes it return None, and the YAML parser reads the
text as before; so it never decides what is valid YAML, it only recognizes a subset that
certainly is. ``tests/unit/test_yamlfast.py`` compares both on every shape it takes.
"""
from __future__ import annotations

import re

import yaml

# A key at the start of a line (after ``indent`` spaces), then the rest of the line.
_LINE = re.compile(r"( *)([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?")
# What may open a plain scalar: not an indicator, a quote, a space or a tab.
_PLAIN_START = re.compile(r"[^-?:,\[\]{}#&*!|>'\"%@` \t]")
_RESOLVER = yaml.resolver.Resolver()
_MAP = "tag:yaml.org,2002:map"
_PLAIN = (True, False)
_QUOTED = (False, True)
# Implicit types by the first character of a plain scalar (``y`` may start a boolean, a
# digit a number, ``~`` a null); a scalar that no resolver claims, or a quoted one, is a
# string, unless resolvers that match any character or any path were added.
_IMPLICIT = yaml.resolver.Resolver.yaml_implicit_resolvers
_STR = yaml.resolver.Resolver.DEFAULT_SCALAR_TAG
_PLAIN_TEXT = None not in _IMPLICIT and not yaml.resolver.Resolver.yaml_path_resolvers


def compose(text: str) -> yaml.MappingNode | None:
    """The root node of ``text``, or None when it is not of the plain shape."""
    root = yaml.MappingNode(_MAP, [], None, None, False)
    nested: yaml.MappingNode | None = None  # under the last key without a value
    for number, line in enumerate(text.split("\n")):
        if not line or line[0] == "#":
            continue  # a blank line or a comment line (no other comment is accepted)
        found = _LINE.fullmatch(line)
        if found is None:
            return None
        spaces, key, rest = len(found.group(1)), found.group(2), found.group(3)
        if not spaces:
            if nested is not None and not nested.value:
                return None  # "key:" with nothing under it: an empty value
            into, nested = root, None
        elif nested is None or nested.value and spaces != nested.start_mark.column:
            return None  # indented under a key that has a value, or misaligned
        else:
            into = nested
        key_node = _scalar(key, number, spaces, _PLAIN)
        if into.start_mark is None:
            into.start_mark = key_node.start_mark  # a mapping starts at its first key
        if rest is None and not spaces:
            nested = yaml.MappingNode(_MAP, [], None, None, False)
            root.value.append((key_node, nested))
            continue
        value = _value(rest, number, found.start(3)) if rest else None
        if value is None:
            return None  # an empty nested value, or not a value of the plain shape
        into.value.append((key_node, value))
    if root.start_mark is None or nested is not None and not nested.value:
        return None
    return root


def _value(rest: str, line: int, column: int) -> yaml.ScalarNode | None:
    if not rest.isprintable() or rest[-1] == " ":
        return None
    first = rest[0]
    if first in "\"'":
        inner = rest[1:-1]
        if len(rest) < 2 or rest[-1] != first or first in inner or "\\" in inner:
            return None
        return _scalar(inner, line, column, _QUOTED, first)
    if (not _PLAIN_START.match(first) or ": " in rest or " #" in rest
            or rest[-1] == ":"):
        return None
    return _scalar(rest, line, column, _PLAIN)


def _scalar(value: str, line: int, column: int, implicit: tuple[bool, bool],
            style: str | None = None) -> yaml.ScalarNode:
    if _PLAIN_TEXT and (implicit is _QUOTED or value and value[0] not in _IMPLICIT):
        tag = _STR  # what the resolver answers when no implicit type can start so
    else:
        tag = _RESOLVER.resolve(yaml.ScalarNode, value, implicit)
    return yaml.ScalarNode(tag, value, yaml.Mark("", 0, line, column, None, 0), None, style)
