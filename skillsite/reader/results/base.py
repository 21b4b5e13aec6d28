"""The base of every reader result: ``to_dict()`` for JSON (see :mod:`skillsite.reader.results`)."""
from __future__ import annotations

from dataclasses import fields
from typing import Any


class Result:
    """``to_dict()`` for the dataclasses below: nested results and tuples become plain
    dictionaries and lists, in field order."""

    def to_dict(self) -> dict[str, Any]:
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}  # type: ignore[arg-type]


def _plain(value: Any) -> Any:
    if isinstance(value, Result):
        return value.to_dict()
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value
