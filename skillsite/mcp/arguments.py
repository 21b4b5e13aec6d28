"""Server middleware between a client and the tools: each tool's ``outputSchema`` in
``tools/list`` (and ``additionalProperties: false`` in its ``inputSchema``), and each
call's arguments checked before the tool runs; an argument the tool does not take is
refused, not silently dropped.

The SDK answers bad arguments with pydantic's own text (every error, the value sent and
a link to pydantic's site). Here they are answered as every other reader error is: a tool
error whose text is the reader's error JSON, ``{"error": "invalid-argument", "message":
..., "arguments": [{"argument", "problem"}]}``, which a model can branch on."""
from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import Any, get_type_hints

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from skillsite.mcp.schemas import output_schema

ECHO_CHARS = 200  # of a client's value quoted back


def arguments_model(tool: Callable[..., Any]) -> type[BaseModel]:
    """A pydantic model of ``tool``'s parameters, with their constraints; any other
    argument is refused."""
    hints = get_type_hints(tool, include_extras=True)
    fields: dict[str, Any] = {}
    for parameter in inspect.signature(tool).parameters.values():
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        fields[parameter.name] = (hints[parameter.name], default)
    return create_model(f"{tool.__name__}_arguments", __config__=ConfigDict(extra="forbid"),
                        **fields)


def invalid_arguments(tool: str, error: ValidationError) -> dict[str, Any]:
    """The reader's error JSON for arguments that fail ``tool``'s schema."""
    problems = []
    for item in error.errors(include_url=False, include_input=False):
        where = ".".join(str(part) for part in item["loc"] if not str(part).startswith(
            ("function-", "constrained-", "list[", "int", "str", "literal")))
        problems.append({"argument": where or "arguments", "problem": item["msg"]})
    listed = "; ".join(f"{p['argument']}: {p['problem']}" for p in problems[:5])
    return {"error": "invalid-argument",
            "message": f"{tool} was called with invalid arguments ({listed[:4 * ECHO_CHARS]}); "
                       "tools/list gives each argument's type and range",
            "arguments": problems[:20]}


class ToolArguments:
    """Adds ``outputSchema`` to ``tools/list``, and refuses a ``tools/call`` whose
    arguments fail the tool's parameters with the reader's error JSON."""

    def __init__(self, tools: list[Callable[..., Any]], prefix: str = "") -> None:
        self.prefix = prefix
        self.models = {prefix + tool.__name__: arguments_model(tool) for tool in tools}

    async def __call__(self, ctx: ServerRequestContext[Any, Any],
                       call_next: CallNext) -> HandlerResult:
        if ctx.method == "tools/call" and isinstance(ctx.params, dict):
            refusal = self.check(ctx.params)
            if refusal is not None:
                return refusal
        result = await call_next(ctx)
        if ctx.method == "tools/list":
            self.describe(result)
        return result

    def check(self, params: dict[str, Any]) -> CallToolResult | None:
        name, arguments = params.get("name"), params.get("arguments") or {}
        model = self.models.get(name) if isinstance(name, str) else None
        if model is None or not isinstance(arguments, dict):
            return None  # unknown tool or malformed request: the SDK answers those
        try:
            model.model_validate(arguments)
        except ValidationError as error:
            shape = invalid_arguments(str(name), error)
            text = json.dumps(shape, ensure_ascii=False, separators=(",", ":"))
            return CallToolResult(content=[TextContent(type="text", text=(
                f"Error executing tool {name}: {text}"))], is_error=True)
        return None

    def describe(self, result: HandlerResult) -> None:
        tools = result.get("tools") if isinstance(result, dict) else getattr(
            result, "tools", None)
        for tool in tools or ():
            name = tool.get("name") if isinstance(tool, dict) else tool.name
            if name not in self.models:
                continue
            schema = output_schema(name[len(self.prefix):])
            if isinstance(tool, dict):
                tool["outputSchema"] = schema
                tool.setdefault("inputSchema", {})["additionalProperties"] = False
            else:
                tool.output_schema = schema
                tool.input_schema["additionalProperties"] = False
