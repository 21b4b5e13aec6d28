"""Validate documents against the JSON Schemas in ``schemas/``.

The schemas are standard draft-07; jsonschema-rs runs them (about 40x faster than the
pure-Python validator, measured in ``bench/``). A subschema may name the rule its failures
belong to with ``x-skillsite-rule``; otherwise the failing keyword picks the rule.
"""
from __future__ import annotations

import datetime
import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

from skillsite.linter.pointer import child

SCHEMA_DIR = Path(__file__).parent.parent / "schemas"
SCHEMA_FILES = {
    "skill-md": "skill-md.schema.json",
    "skill-toml": "skill-toml.schema.json",
    "skill-json": "skill-json.schema.json",
    "virtual": "virtual-skill.schema.json",
}
_BY_KEYWORD = {"required": "required-field", "type": "field-type", "enum": "invalid-value",
               "const": "invalid-value"}


@cache
def load_schema(kind: str) -> dict[str, Any]:
    return json.loads((SCHEMA_DIR / SCHEMA_FILES[kind]).read_text(encoding="utf-8"))


@cache
def _validator(kind: str) -> Any:
    import jsonschema_rs  # a check answered from the results cache validates nothing

    return jsonschema_rs.validator_for(load_schema(kind))


@cache
def _schema(kind: str) -> dict[str, Any]:
    """:func:`load_schema`, read once: :func:`violations` only reads its annotations."""
    return load_schema(kind)


class Violation(NamedTuple):
    rule: str
    pointer: str
    message: str
    #: The dialects the failing constraint belongs to (``x-skillsite-dialect``); empty
    #: when it belongs to the format itself.
    dialects: tuple[str, ...] = ()


def violations(kind: str, data: Any) -> Iterator[Violation]:
    """Each way ``data`` breaks its schema."""
    validator = _validator(kind)
    if kind == "skill-toml":
        data = _json_shaped(data)
    if validator.is_valid(data):
        return
    schema = _schema(kind)
    for error in validator.iter_errors(data):
        path = list(error.schema_path)
        keyword = str(path[-1]) if path else ""
        pointer = "".join(child("", p) for p in error.instance_path)
        if keyword == "required":
            pointer = child(pointer, error.kind.property)
        rule, dialects = _annotations(schema, path, keyword)
        yield Violation(rule, pointer, error.message, dialects)


def _json_shaped(value: Any) -> Any:
    """TOML data as JSON types: a TOML date or time, which JSON has no type for, becomes
    an object, so that a schema asking for a string (or a number) refuses it as a loader
    would, instead of the validator failing on it."""
    if isinstance(value, dict):
        return {k: _json_shaped(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_shaped(v) for v in value]
    if isinstance(value, (datetime.date, datetime.time)):
        return {"toml-datetime": value.isoformat()}
    return value


def _annotations(schema: dict[str, Any], path: list[Any],
                 keyword: str) -> tuple[str, tuple[str, ...]]:
    """The rule of the failing keyword and the dialects of the nearest subschema that names
    them, both read along the schema path."""
    node: Any = schema
    dialects: tuple[str, ...] = ()
    for step in path[:-1]:
        node = node[step] if isinstance(node, (dict, list)) else None
        if isinstance(node, dict) and "x-skillsite-dialect" in node:
            dialects = tuple(node["x-skillsite-dialect"])
    note = node.get("x-skillsite-rule") if isinstance(node, dict) else None
    if isinstance(note, dict):
        note = note.get(keyword)
    return note or _BY_KEYWORD.get(keyword, "schema-violation"), dialects
