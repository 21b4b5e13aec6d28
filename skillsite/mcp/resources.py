"""Each skill's files as MCP resources, through two templates (never one static resource
per file): ``skill://{name}/SKILL.md`` first, then ``skill://{name}/{+path}``.

An unknown skill or file is ``ResourceNotFoundError``, which the SDK sends as -32602. The
SDK also refuses ``..``, absolute paths and NUL in ``{+path}`` before the reader sees it."""
from __future__ import annotations

from typing import Any

import anyio.to_thread
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_REQUEST, Completion, CompletionArgument, ResourceTemplateReference

from skillsite.mcp.identity import current
from skillsite.mcp.listing import LIST_PAGE, ConcreteResources
from skillsite.mcp.skills import view_meta
from skillsite.mcp.uris import ECHO_CHARS, mime_type, resolve, skill_name
from skillsite.reader import Library, ReaderError

SKILL_MD = "skill://{name}/SKILL.md"
SKILL_FILE = "skill://{name}/{+path}"
COMPLETIONS = 100  # the most values a completion may carry


def register_resources(server: MCPServer, library: Library, *, ttl_ms: int,
                       page_size: int = LIST_PAGE) -> None:
    """The two templates, the middleware that gives each file its own MIME type, and the
    concrete listing of every SKILL.md (``page_size`` a page, cacheable ``ttl_ms``)."""

    def skill_md(name: str) -> str | bytes:
        return _content(library, name, "SKILL.md")

    def skill_file(name: str, path: str) -> str | bytes:
        return _content(library, name, path)

    server.resource(SKILL_MD, name="skill", mime_type="text/markdown",
                    description="A skill's SKILL.md (a generated view for TOML, JSON and "
                                "virtual skills)")(skill_md)
    server.resource(SKILL_FILE, name="skill-file",
                    description="A supporting file of a skill, by its path in the skill")(
        skill_file)
    server.middleware.append(FileTypes(library))
    server.middleware.append(ConcreteResources(library, ttl_ms=ttl_ms, page_size=page_size))

    @server.completion()
    async def complete_name(ref: Any, argument: CompletionArgument,
                            context: Any) -> Completion | None:
        if not isinstance(ref, ResourceTemplateReference) or argument.name != "name":
            return None
        names = await anyio.to_thread.run_sync(names_starting, library, argument.value)
        return Completion(values=names, has_more=len(names) == COMPLETIONS)


def names_starting(library: Library, prefix: str) -> list[str]:
    """Up to :data:`COMPLETIONS` skill names that start with ``prefix`` (A-Z when empty),
    for a client completing the ``name`` of a template. Over several libraries a name is
    ``@<library>/<id>``: ``@`` and the start of a library's name complete to that
    library's skills, ``@<library>/`` and the start of an id or a name to its matching
    skills, and a bare start to the matching skills of every library."""
    if not prefix:
        return list(library.names(limit=COMPLETIONS).names)
    if "" in library.libraries:  # one plain dist/: bare names
        return sorted(hit.name for hit in _hits(library, prefix)
                      if hit.name.startswith(prefix))[:COMPLETIONS]
    if not prefix.startswith("@"):
        return _qualified(_hits(library, prefix), prefix)
    named, slash, rest = prefix[1:].partition("/")
    if not slash:
        chosen = [name for name in library.libraries if name.startswith(named)]
        return _qualified(_hits(library, "", chosen), "") if chosen else []
    if named not in library.libraries:
        return []
    return _qualified(_hits(library, rest, [named]), rest)


def _hits(library: Library, query: str, libraries: list[str] | None = None
          ) -> tuple[Any, ...]:
    """Search candidates for a completion (A-Z by id for an empty query), or none when
    the query cannot be searched."""
    try:
        return library.search(query[:ECHO_CHARS], limit=50,
                              library=libraries or "*").results
    except ReaderError:
        return ()


def _qualified(hits: tuple[Any, ...], start: str) -> list[str]:
    """``@<library>/<id>`` of the hits whose id or bare name begins with ``start``."""
    return sorted(f"@{hit.library}/{hit.id}" for hit in hits
                  if hit.id.startswith(start) or hit.name.startswith(start))[:COMPLETIONS]


def _content(library: Library, name: str, path: str) -> str | bytes:
    """The file ``path`` of a skill; a plugin's or collection's skill spans several URI
    segments (``skill://telegram/access/SKILL.md``), so the template's ``name`` may be
    only the first of them."""
    found = resolve(library.has_skill, f"{name}/{path}")
    if found is not None:
        name, path = found
    try:
        data = current(library).skill_file(name, path)
    except ReaderError as error:
        if error.code in ("not-found", "invalid-argument"):
            raise ResourceNotFoundError(f"No file {path[:ECHO_CHARS]!r} in skill "
                                        f"{name[:ECHO_CHARS]!r}: {error.message}") from None
        # a spent budget: the request was fine, this client will not be served more
        raise MCPError(code=INVALID_REQUEST, message=error.message,
                       data=error.to_dict()) from None
    try:
        return data.decode("utf-8")  # exact bytes: strict UTF-8 round-trips
    except UnicodeDecodeError:
        return data


class FileTypes:
    """Server middleware: the SDK gives every read the template's one MIME type, so this
    sets each file's own, and marks a generated SKILL.md view in its ``_meta``."""

    def __init__(self, library: Library) -> None:
        self.library = library

    async def __call__(self, ctx: ServerRequestContext[Any, Any],
                       call_next: CallNext) -> HandlerResult:
        result = await call_next(ctx)
        if ctx.method == "resources/read" and isinstance(result, dict):
            for content in result.get("contents", ()):
                self._describe(content)
        return result

    def _describe(self, content: dict[str, Any]) -> None:
        uri = str(content.get("uri", ""))
        if (name := skill_name(uri)) is not None:
            found = resolve(self.library.has_skill, f"{name}/SKILL.md")
            try:
                meta = view_meta(self.library.skill_files(found[0] if found else name))
            except ReaderError:
                meta = {}
            if meta:
                content["_meta"] = {**(content.get("_meta") or {}), **meta}
            return
        if "blob" in content and mime_type(uri) == "text/plain":
            return  # binary of an unknown kind keeps application/octet-stream
        content["mimeType"] = mime_type(uri)
