"""One MCP tool per reader operation. Each translates its arguments, calls the Library and
returns the reader's JSON shape as compact text; a reader error becomes a ``ToolError`` the
model can read and recover from.

Plain ``def`` tools run on the SDK's worker threads; the Library is safe there. Each call
runs on the Library as its client sees it (``clients.current``): that client's budgets."""
from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from skillsite.entries import Format, Risk
from skillsite.mcp.arguments import ToolArguments
from skillsite.mcp.identity import current
from skillsite.reader import Library, ReaderError
from skillsite.reader.errors import LIST_NAMES

#: An agent lists the skills with the search tool, not the CLI.
AGENT_LIST_NAMES = "the search tool (query '' lists skills A-Z)"

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)

Ref = Annotated[str, Field(min_length=1, max_length=512, description=(
    "A skill's id or name, skill:<name>, a skill:// URI, or a ref from a result"))]
Query = Annotated[str, Field(max_length=2000,
                             description="Words to look for; empty lists skills A-Z")]
Words = Annotated[list[Annotated[str, Field(max_length=200)]] | None, Field(max_length=20)]
Section = Annotated[str, Field(max_length=300)] | Annotated[int, Field(ge=0, le=100_000)]
LibraryName = Annotated[str, Field(min_length=1, max_length=64)]
Libraries = Annotated[LibraryName | Annotated[list[LibraryName], Field(min_length=1,
                                                                        max_length=64)],
                      Field(description="Which libraries to search: '*' for all, one "
                                        "library's name, or a list of names")]


def to_text(result: Any) -> str:
    """The reader's JSON shape of a result (or of a ``ReaderError``), compact."""
    return json.dumps(result.to_dict(), ensure_ascii=False, separators=(",", ":"))


def answer(operation: Callable[..., Any], *args: Any, **kwargs: Any) -> CallToolResult:
    """``operation``'s result as ``structuredContent`` (the reader's JSON shape) and as the
    same JSON in text, for clients that read only text; a reader error as a tool error
    carrying the reader's error JSON (``{"error": code, "message": ...}``), so that a
    model can branch on the code."""
    try:
        result = operation(*args, **kwargs)
    except ReaderError as error:
        shape = error.to_dict()
        shape["message"] = error.message.replace(LIST_NAMES, AGENT_LIST_NAMES)
        raise ToolError(json.dumps(shape, ensure_ascii=False, separators=(",", ":"))) from None
    shape = result.to_dict()
    text = json.dumps(shape, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content=shape)


def register_tools(server: MCPServer, library: Library, prefix: str = "") -> None:
    """Register every reader operation on ``server`` as a read-only tool that declares the
    JSON Schema of its result, and check every call's arguments before it runs. Each
    tool's name is ``prefix`` + the operation (``skills_search`` for ``skills_``), so that
    a client that already has a ``search`` tool can hold these too."""
    tools = _tools(library, prefix)
    for tool in tools:
        server.add_tool(tool, name=prefix + tool.__name__, annotations=READ_ONLY,
                        structured_output=False)
    server.middleware.append(ToolArguments(tools, prefix))


def _tools(reader: Library, prefix: str = "") -> list[Callable[..., CallToolResult]]:
    def context() -> CallToolResult:
        """Counts (skills, per format), tags with counts, artifact version and build time,
        and a hint on how to use the other tools. Call it first if unsure."""
        return answer(current(reader).context)

    def search(query: Query = "",
               limit: Annotated[int, Field(ge=1, le=50)] = 10,
               tags: Words = None,
               applies_to: Words = None,
               format: Format | None = None,
               compatibility: Annotated[str | None, Field(max_length=200)] = None,
               max_risk: Risk | None = None,
               plugin: Annotated[str | None, Field(max_length=200)] = None,
               collection: Annotated[str | None, Field(max_length=200)] = None,
               library: Libraries = "*", semantic: bool = False) -> CallToolResult:
        """Find skills. Returns compact candidates (ref, id, name, title, description,
        tags, score, matched fields, library, via), never a body. An exact name comes
        first. ``plugin`` and ``collection`` keep one Claude Code plugin's or one
        collection's skills; ``library`` chooses among the libraries the server holds;
        ``semantic`` also finds skills by meaning (when the dist/ has vectors)."""
        return answer(current(reader).search, query, limit=limit, tags=tags or (),
                      applies_to=applies_to or (), format=format, compatibility=compatibility,
                      max_risk=max_risk, plugin=plugin, collection=collection,
                      library=library, semantic=semantic)

    def recommend(task: Annotated[str, Field(min_length=1, max_length=2000)],
                  environment: Annotated[str | None, Field(max_length=500)] = None,
                  capabilities: Words = None,
                  limit: Annotated[int, Field(ge=1, le=20)] = 5,
                  library: Libraries = "*") -> CallToolResult:
        """Rank skills for a task described in words, with its environment and the
        capabilities at hand. Intent and applies_to matches rank above bare word matches;
        with vectors in the dist/, skills alike in meaning are fused in (each says via
        which half: lexical, semantic). ``library`` chooses among the server's libraries."""
        return answer(current(reader).recommend, task, environment=environment,
                      capabilities=capabilities, limit=limit, library=library)

    def open(ref: Ref) -> CallToolResult:
        """One skill's metadata, headings with their sizes in characters, links,
        depends_on, supporting files and lint warnings. No body: use read for that."""
        return answer(current(reader).open, ref)

    def read(ref: Ref,
             section: Section | None = None,
             start_line: Annotated[int | None, Field(ge=1)] = None,
             end_line: Annotated[int | None, Field(ge=1)] = None,
             max_chars: Annotated[int, Field(ge=200, le=20000)] = 4000,
             cursor: Annotated[str | None, Field(max_length=512)] = None,
             file: Annotated[str | None, Field(min_length=1, max_length=1024)] = None
             ) -> CallToolResult:
        """Read one section (its heading, or its index from open), a line range, or the
        whole body, at most max_chars; or, with file (a path that open lists), one of the
        skill's files. A cut is explicit: truncated is true, and passing its cursor back
        continues where it stopped. references lists the {baseDir}/... files the text
        names, each with a ref that read takes."""
        return answer(current(reader).read, ref, section, start_line=start_line,
                      end_line=end_line, max_chars=max_chars, cursor=cursor, file=file)

    def resolve(ref: Ref,
                args: Annotated[list[Annotated[str, Field(max_length=2000)]], Field(
                    max_length=50, description="The skill's arguments, in order")] | None = None,
                max_chars: Annotated[int, Field(ge=200, le=20000)] = 12000,
                cursor: Annotated[str | None, Field(max_length=512)] = None
                ) -> CallToolResult:
        """A skill as a local SKILL.md: its metadata and front matter, and its body as a
        template with args rendered in ({{args}}, {{argv}}, {{arg1}}; $ARGUMENTS,
        $ARGUMENTS[N], $N). Nothing is installed or run. When truncated, pass the cursor
        back with the same args to read on."""
        return answer(current(reader).resolve, ref, args or [], max_chars=max_chars,
                      cursor=cursor)

    def related(ref: Ref, limit: Annotated[int, Field(ge=1, le=50)] = 10) -> CallToolResult:
        """Skills related by links, shared tags and dependencies, each with its reason."""
        return answer(current(reader).related, ref, limit=limit)

    def compose(ref: Ref, limit: Annotated[int, Field(ge=1, le=8)] = 4) -> CallToolResult:
        """Exactly one level of depends_on: compact metadata of each prerequisite and the
        references that did not resolve. Never bodies."""
        return answer(current(reader).compose, ref, limit=limit)

    def prompt(refs: Annotated[list[Annotated[str, Field(max_length=512)]] | None,
                               Field(max_length=50)] = None,
               style: Literal["xml", "markdown"] = "xml",
               max_chars: Annotated[int, Field(ge=200, le=50000)] = 8000) -> CallToolResult:
        """A listing of skills (the given refs, or the catalog) for a system prompt, at
        most max_chars; it says what it left out."""
        return answer(_naming(current(reader).prompt, prefix), refs, style=style,
                      max_chars=max_chars)

    def use_skill(name: Ref,
                  max_chars: Annotated[int, Field(ge=200, le=20000)] = 20000,
                  cursor: Annotated[str | None, Field(max_length=512)] = None
                  ) -> CallToolResult:
        """Activate a skill by name: its whole body (the tool prompt(style="markdown")
        names), at most max_chars; when truncated, pass its cursor back to read on."""
        return answer(current(reader).read, name, max_chars=max_chars, cursor=cursor)

    tools: list[Callable[..., CallToolResult]] = [
        context, search, recommend, open, read, related, compose]
    return tools if reader.safe else [*tools, prompt, resolve, use_skill]


def _naming(prompt: Callable[..., Any], prefix: str) -> Callable[..., Any]:
    """``prompt`` whose markdown preamble names the tool by the name this server gives it
    (``skills_use_skill`` under ``--tool-prefix skills_``)."""
    if not prefix:
        return prompt

    def renamed(*args: Any, **kwargs: Any) -> Any:
        result = prompt(*args, **kwargs)
        text = result.text.replace("`use_skill`", f"`{prefix}use_skill`")
        return dataclasses.replace(result, text=text, chars=len(text))
    return renamed
