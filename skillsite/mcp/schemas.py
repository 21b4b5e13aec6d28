"""The ``outputSchema`` of each tool: the JSON Schema of the reader result it returns,
derived from the result's dataclass, so that a tool's ``structuredContent`` (the result's
``to_dict()``, the same shape as ``--json``) is described by construction."""
from __future__ import annotations

from functools import cache
from importlib import import_module
from typing import Any

from pydantic import TypeAdapter

from skillsite.reader.results import MODULES

#: Tool -> the result class it returns.
RESULTS = {"context": "Context", "search": "SearchResult", "recommend": "SearchResult",
           "open": "SkillInfo", "read": "Passage", "use_skill": "Passage",
           "related": "Related", "resolve": "Resolved", "compose": "Composition",
           "prompt": "Prompt"}


@cache
def output_schema(tool: str) -> dict[str, Any]:
    """The JSON Schema of what ``tool`` returns."""
    name = RESULTS[tool]
    result = getattr(import_module(f"skillsite.reader.results.{MODULES[name]}"), name)
    return TypeAdapter(result).json_schema(mode="serialization")
