"""YAML to plain values plus a source map, through the composed node tree.

Scalars are resolved the YAML 1.2 way (only ``true``/``false`` are booleans, no dates).
Where a YAML 1.1 loader would read a plain scalar differently (``yes``, ``on``,
``2024-01-01``, ``010``, ``1:30``) the value stays a string and a ``yaml-implicit-type``
warning says so: the surprise is made explicit, never silent.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from skillsite.linter.parse import yamlfast
from skillsite.linter.parse.limits import MAX_DEPTH, MAX_FRONT_MATTER, MAX_NODES
from skillsite.linter.pointer import child as pointer_child
from skillsite.models import Issue, Position

# PyYAML is imported only for front matter that yamlfast does not read (and the
# cold check of plain skills never loads it).
if TYPE_CHECKING:
    import yaml

# The C composer recurses on the C stack and crashes on very deep input; past this rough
# bound we compose in Python, where depth raises RecursionError instead.
_C_SAFE_NESTING = 200
_LEADING = re.compile(r"^[ \-?]*", re.MULTILINE)
_CORE_INT = re.compile(r"[-+]?(0|[1-9][0-9]*)$")
_CORE_HEX = re.compile(r"0x[0-9a-fA-F]+$")
_CORE_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_SPECIAL_FLOATS = {".inf": float("inf"), "+.inf": float("inf"), "-.inf": float("-inf"),
                   ".nan": float("nan")}
_TAG = "tag:yaml.org,2002:"
_STR_TAG = f"{_TAG}str"
# PyYAML (YAML 1.1) also breaks lines at NEL, LS and PS; YAML 1.2, editors and every
# location skillsite reports count only "\n". While composing, they are swapped for
# private-use stand-ins, which every scalar then gets back.
_BREAKS = {"\x85": "\U000F0085", "\u2028": "\U000F2028", "\u2029": "\U000F2029"}
_HIDE = str.maketrans(_BREAKS)
_SHOW = str.maketrans({stand_in: char for char, stand_in in _BREAKS.items()})


class _TooComplex(Exception):
    pass


@dataclass
class Loaded:
    data: Any = None
    positions: dict[str, Position] = field(default_factory=dict)
    key_positions: dict[str, Position] = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)


def load(text: str, *, first_line: int = 1) -> Loaded:
    """Parse ``text`` (which starts on line ``first_line`` of its file)."""
    out = Loaded()
    if len(text) > MAX_FRONT_MATTER:
        out.issues.append(Issue("too-complex", first_line, 1,
                                f"front matter is {len(text)} characters, over the "
                                f"{MAX_FRONT_MATTER} limit; move long content into the body"))
        return out
    hidden = not text.isascii() and any(char in text for char in _BREAKS)
    plain = None if hidden else yamlfast.parse(text)
    if plain is not None:  # the plain shape: the same result, without the parser
        walker = _Walker(out, first_line)
        out.positions[""] = (plain[0][2] + first_line, 1)
        try:
            out.data = walker.plain(plain, "")
        except _TooComplex as exc:
            out.data = None
            out.issues.append(Issue("too-complex", first_line, 1, str(exc)))
        return out
    import yaml

    try:
        root = _compose(text.translate(_HIDE) if hidden else text)
    except yaml.MarkedYAMLError as exc:
        out.issues.append(_syntax_issue(exc, text, first_line))
        return out
    except yaml.YAMLError as exc:
        out.issues.append(Issue("yaml-syntax", first_line, 1, f"invalid YAML: {exc}"))
        return out
    except RecursionError:
        out.issues.append(Issue("too-complex", first_line, 1,
                                f"front matter nests deeper than {MAX_DEPTH} levels"))
        return out
    if root is None:
        out.data = {}
        return out
    walker = _Walker(out, first_line, hidden)
    try:
        out.data = walker.value(root, "", 0)
    except _TooComplex as exc:
        out.data = None
        out.issues.append(Issue("too-complex", first_line, 1, str(exc)))
    return out


def _compose(text: str) -> yaml.Node | None:
    import yaml

    bound = text.count("[") + text.count("{")
    bound += max((len(m) for m in _LEADING.findall(text)), default=0)
    fast = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader = fast if bound <= _C_SAFE_NESTING else yaml.SafeLoader
    return yaml.compose(text, Loader=loader)


def _syntax_issue(exc: yaml.MarkedYAMLError, text: str, first_line: int) -> Issue:
    mark = exc.problem_mark or exc.context_mark
    line, column = (mark.line, mark.column) if mark else (0, 0)
    message = f"invalid YAML: {exc.problem or exc.context}"
    lines = text.split("\n")
    if 0 <= line < len(lines) and "\t" in lines[line]:
        message += "; YAML does not allow tabs for indentation, use spaces"
    elif exc.context:
        message += f" ({exc.context})"
    return Issue("yaml-syntax", line + first_line, column + 1, message)


class _Walker:
    def __init__(self, out: Loaded, first_line: int, hidden: bool = False) -> None:
        self.out = out
        self.offset = first_line
        self.count = 0
        self.hidden = hidden  # line-break stand-ins to put back (see _BREAKS)

    def at(self, node: yaml.Node) -> Position:
        return (node.start_mark.line + self.offset, node.start_mark.column + 1)

    def value(self, node: yaml.Node, pointer: str, depth: int) -> Any:
        import yaml

        self.count += 1
        if self.count > MAX_NODES:
            raise _TooComplex(f"front matter expands to more than {MAX_NODES} values "
                              "(an alias bomb?); remove the repeated aliases")
        if depth > MAX_DEPTH:
            raise _TooComplex(f"front matter nests deeper than {MAX_DEPTH} levels")
        self.out.positions[pointer] = self.at(node)
        if isinstance(node, yaml.MappingNode):
            return self.mapping(node, pointer, depth)
        if isinstance(node, yaml.SequenceNode):
            return [self.value(item, f"{pointer}/{i}", depth + 1)
                    for i, item in enumerate(node.value)]
        assert isinstance(node, yaml.ScalarNode)
        return self.scalar(node)

    def mapping(self, node: yaml.MappingNode, pointer: str, depth: int) -> dict[str, Any]:
        import yaml

        result: dict[str, Any] = {}
        first_seen: dict[str, Position] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                self.out.issues.append(Issue("yaml-syntax", *self.at(key_node),
                                             "a mapping key must be a plain string"))
                continue
            key = self.text(key_node)
            self.scalar(key_node)  # warns on keys too: "on:" is True to a YAML 1.1 loader
            child = pointer_child(pointer, key)
            self.key(key, self.at(key_node), child, first_seen)
            result[key] = self.value(value_node, child, depth + 1)
        return result

    def key(self, key: str, where: Position, child: str,
            first_seen: dict[str, Position]) -> None:
        if key in first_seen:
            self.out.issues.append(Issue(
                "duplicate-key", *where,
                f"key {key!r} is repeated (first on line {first_seen[key][0]}); "
                "loaders disagree on which value wins, so keep only one"))
        first_seen[key] = where
        self.out.key_positions[child] = where

    def plain(self, pairs: list[yamlfast.Pair], pointer: str) -> dict[str, Any]:
        """:meth:`mapping` over what :func:`yamlfast.parse` read: the same values,
        positions and issues, in the same order, without node objects."""
        result: dict[str, Any] = {}
        first_seen: dict[str, Position] = {}
        positions, key_positions, offset = self.out.positions, self.out.key_positions, \
            self.offset
        for key, tag, line, column, value in pairs:
            where = (line + offset, column + 1)
            if tag != _STR_TAG:  # a string needs no conversion and gives no warning
                self.convert(key, None, tag, where)  # warns on keys too, as mapping() does
            # A plain key holds neither "~" nor "/": its pointer token is the key itself.
            child = f"{pointer}/{key}"
            if key in first_seen:
                self.key(key, where, child, first_seen)  # reports it
            else:  # what key() does for a key met first
                first_seen[key] = key_positions[child] = where
            if isinstance(value, list):
                positions[child] = (value[0][2] + offset, value[0][3] + 1)
                result[key] = self.plain(value, child)
            elif len(value) == 3:  # a flow sequence of plain words
                items, line, column = value
                positions[child] = (line + offset, column + 1)
                result[key] = [self.item(item, f"{child}/{index}")
                               for index, item in enumerate(items)]
            else:
                text, style, value_tag, value_line, value_column = value
                positions[child] = at = (value_line + offset, value_column + 1)
                result[key] = (text if value_tag == _STR_TAG
                               else self.convert(text, style, value_tag, at))
        return result

    def item(self, item: yamlfast.Scalar, pointer: str) -> Any:
        text, style, tag, line, column = item
        self.out.positions[pointer] = at = (line + self.offset, column + 1)
        return self.convert(text, style, tag, at)

    def text(self, node: yaml.ScalarNode) -> str:
        return str(node.value).translate(_SHOW) if self.hidden else str(node.value)

    def scalar(self, node: yaml.ScalarNode) -> Any:
        return self.convert(self.text(node), node.style, node.tag, node)

    def convert(self, text: str, style: str | None, tag: str,
                where: yaml.Node | Position) -> Any:
        """The value of a scalar; ``where`` (its node or position) locates a warning."""
        if style not in (None, "") or not tag.startswith(_TAG):
            return text
        kind = tag[len(_TAG):]
        if kind == "str":
            return text
        if kind == "null":
            return None
        if kind == "bool" and text.lower() in ("true", "false"):
            return text.lower() == "true"
        if kind == "int" and _CORE_INT.match(text):
            return _decimal(text)
        if kind == "int" and _CORE_HEX.match(text):
            return int(text, 16)
        if kind == "float" and _CORE_FLOAT.match(text):
            return float(text)
        if kind == "float" and text.lower() in _SPECIAL_FLOATS:
            return _SPECIAL_FLOATS[text.lower()]
        self.surprise(text, where if isinstance(where, tuple) else self.at(where), kind)
        return text

    def surprise(self, value: str, where: Position, kind: str) -> None:
        reading = {"bool": "a boolean", "timestamp": "a date", "int": "a number",
                   "float": "a number"}.get(kind, kind)
        self.out.issues.append(Issue(
            "yaml-implicit-type", *where,
            f"loaders disagree on {value!r}: YAML 1.1 reads it as {reading}, YAML 1.2 "
            f"does not; skillsite keeps the text. Quote it (\"{value}\") so every "
            "loader reads the same value"))


def _decimal(text: str) -> int:
    try:
        return int(text)
    except ValueError:  # past Python's int_max_str_digits, a guard against slow parsing
        raise _TooComplex(f"front matter holds a number of {len(text)} digits; "
                          "quote it if it is meant as text") from None
