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
    """Up to :data:`COMPLETIONS` skill names A-Z that start with ``prefix``, for a client
    completing the ``name`` of a template: the ids that start with it (``@<library>/<id>``
    over several libraries, so ``@o`` completes to library ``ops``'s skills and
    ``@ops/pd`` to ``@ops/pdf-forms``), and the ids whose bare name starts with it
    (``acc`` gives ``telegram:access``, ``pd`` gives ``@ops/pdf-forms``)."""
    prefix = prefix[:ECHO_CHARS]
    try:
        found = list(library.names(limit=COMPLETIONS, prefix=prefix).names)
        if not prefix or prefix.startswith("@") or len(found) >= COMPLETIONS:
            return found
        every: list[str] = []
        cursor: str | None = None
        while True:  # the whole list is kept in memory: 100k names page in a few ms
            page = library.names(cursor=cursor, limit=1000)
            every += page.names
            if not (cursor := page.cursor):
                break
    except ReaderError:
        return []
    found += [name for name in every if name != _bare(name) and _bare(name).startswith(prefix)]
    return sorted(set(found))[:COMPLETIONS]


def _bare(name: str) -> str:
    """A skill id without its library and namespaces: ``@ops/kit:pdf`` -> ``pdf``."""
    return name.rsplit(":", 1)[-1].rsplit("/", 1)[-1]


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
