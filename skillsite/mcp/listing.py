"""Skills as resources a client can see without templates, and SEP-2640's directory reads.

- ``resources/list`` lists every skill's SKILL.md as a concrete resource, A-Z, a page at
  a time with a cursor (clients such as Claude Code never read resource templates, so
  they saw no skill at all). Supporting files stay behind the templates and in
  ``skills/get``: listing every file would flood a client that loads whole listings.
- ``resources/directory/read`` lists the direct children of a skill's root
  (``skill://<skill>``) or of a folder in it, files with their MIME type and size and
  folders as ``inode/directory``, paginated the same way.

Every URI is made and parsed by :mod:`skillsite.mcp.uris`."""
from __future__ import annotations

from typing import Any

import anyio.to_thread
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, RequestParams

from skillsite.mcp.uris import ECHO_CHARS, file_uri, mime_type, parse_directory, skill_md_uri
from skillsite.reader import Library, ReaderError

DIRECTORY = "inode/directory"
LIST_PAGE = 100
DIRECTORY_PAGE = 100


class ReadDirectoryParams(RequestParams):
    uri: str
    cursor: str | None = None


def list_page(library: Library, cursor: str | None, page_size: int = LIST_PAGE,
              ttl_ms: int = 0) -> dict[str, Any]:
    """One page of ``resources/list``: each skill's SKILL.md, A-Z (``ttl_ms``: how long
    a client may cache it)."""
    try:
        page = library.names(cursor=cursor, limit=page_size)
    except ReaderError as error:
        raise MCPError(code=INVALID_PARAMS, message=f"Bad cursor: {error.message}") from None
    resources = []
    for name in page.names:
        try:
            info = library.open(name)
            files = library.skill_files(name)
        except ReaderError:
            continue  # dist/ lacks it: skills/list leaves it out the same way
        size = next((f.size for f in files if f.path == "SKILL.md"), None)
        resource: dict[str, Any] = {
            "uri": skill_md_uri(name), "name": name, "title": info.title,
            "description": info.description, "mimeType": "text/markdown"}
        if size is not None:
            resource["size"] = size
        resources.append(resource)
    result: dict[str, Any] = {"resultType": "complete", "resources": resources,
                              "ttlMs": ttl_ms, "cacheScope": "public"}
    if page.cursor:
        result["nextCursor"] = page.cursor
    return result


class ConcreteResources:
    """Server middleware: answers ``resources/list`` with :func:`list_page` (the SDK
    would list only static resources, of which there are none)."""

    def __init__(self, library: Library, *, ttl_ms: int, page_size: int = LIST_PAGE) -> None:
        self.library = library
        self.page_size = page_size
        self.ttl_ms = ttl_ms

    async def __call__(self, ctx: ServerRequestContext[Any, Any],
                       call_next: CallNext) -> HandlerResult:
        if ctx.method != "resources/list":
            return await call_next(ctx)
        cursor = (ctx.params or {}).get("cursor") if isinstance(ctx.params, dict) else None
        if cursor is not None and not isinstance(cursor, str):
            raise MCPError(code=INVALID_PARAMS, message="Bad cursor: it must be a string")
        return await anyio.to_thread.run_sync(list_page, self.library, cursor,
                                              self.page_size, self.ttl_ms)


def read_directory(library: Library, uri: str, cursor: str | None,
                   page_size: int = DIRECTORY_PAGE) -> dict[str, Any]:
    """``resources/directory/read`` of ``uri``: its direct children, a page at a time."""
    parsed = parse_directory(uri, library.has_skill)
    if parsed is None:
        raise _not_found(uri, "is not a skill:// URI")
    key, folder = parsed
    try:
        files = library.skill_files(key)
    except ReaderError:
        raise _not_found(uri, "names no skill this server serves") from None
    children = _children(key, folder, files)
    if children is None:
        is_file = any(f.path == folder for f in files)
        raise _not_found(uri, "is not a directory resource" if is_file else
                         "names no folder of the skill")
    start = _offset(cursor, len(children))
    result: dict[str, Any] = {"resultType": "complete",
                              "resources": children[start:start + page_size]}
    if start + page_size < len(children):
        result["nextCursor"] = str(start + page_size)
    return result


def _children(key: str, folder: str, files: list[Any]) -> list[dict[str, Any]] | None:
    prefix = f"{folder}/" if folder else ""
    found: dict[str, dict[str, Any]] = {}
    for info in files:
        if not info.path.startswith(prefix) or info.path == folder:
            continue
        rest = info.path[len(prefix):]
        child, _, deeper = rest.partition("/")
        path = prefix + child
        if deeper:
            found.setdefault(child, {"uri": file_uri(key, path), "name": child,
                                     "mimeType": DIRECTORY})
        else:
            uri = file_uri(key, path)
            found[child] = {"uri": uri, "name": child, "mimeType": mime_type(uri),
                            "size": info.size}
    if folder and not found:
        return None
    return [found[name] for name in sorted(found)]


def _offset(cursor: str | None, total: int) -> int:
    if cursor is None:
        return 0
    if not (isinstance(cursor, str) and cursor.isascii() and cursor.isdigit()
            and int(cursor) <= total):
        raise MCPError(code=INVALID_PARAMS, message="Bad cursor: pass back the nextCursor "
                       "of the last result unchanged")
    return int(cursor)


def _not_found(uri: str, why: str) -> MCPError:
    return MCPError(code=INVALID_PARAMS, message=f"{uri[:ECHO_CHARS]} {why}; a skill's "
                    "root is skill://<skill>, its folders skill://<skill>/<folder>")
