"""The MCP skills extension (SEP-2640, ``io.modelcontextprotocol/skills``): ``skills/list``
and ``skills/get``, served from the reader through the SDK's extension hooks.

An entry carries the verbatim front matter, and the ``sha256:`` digest and size of every
file the resources serve. A TOML, JSON or virtual skill is served through a generated
SKILL.md view, which its entry says under ``_meta`` (our own prefix: the spec reserves
``io.modelcontextprotocol.skills/``)."""
from __future__ import annotations

import re
from typing import Any

import anyio.to_thread
from mcp.server.mcpserver import Extension, MethodBinding
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, PaginatedRequestParams, RequestParams

from skillsite.mcp.listing import ReadDirectoryParams, read_directory
from skillsite.mcp.uris import ECHO_CHARS, file_uri, resolve, skill_md_uri, skill_name
from skillsite.reader import Library, ReaderError
from skillsite.reader.results import FileInfo

IDENTIFIER = "io.modelcontextprotocol/skills"
GENERATED_NOTE = ("This skill is not written as a SKILL.md: skillsite serves a SKILL.md view "
                  "generated from its own file, which is listed verbatim next to it.")
VIEW_KEY = "dev.skillsite/generated-view"
PAGE_SIZE = 50
SETTINGS = {"directoryRead": True}  # resources/directory/read is served (mcp.listing)
# SEP-2640 limits per skill: a host need not load more.
MAX_FILES = 512
MAX_BYTES = 16 * 1024 * 1024
# The URI's last segment is the skill name, which must follow the Agent Skills rule.
AGENT_SKILLS_NAME = re.compile(r"[a-z0-9](?:-?[a-z0-9])*")


class GetSkillParams(RequestParams):
    uri: str


def view_meta(files: list[FileInfo]) -> dict[str, Any]:
    """``_meta`` saying that the skill's SKILL.md is a generated view, or {} if it is not."""
    generated = any(f.path == "SKILL.md" and f.generated for f in files)
    return {VIEW_KEY: {"generated": True, "note": GENERATED_NOTE}} if generated else {}


class SkillsExtension(Extension):
    """Declares the extension and serves its two methods. dist/ is immutable, so the
    results are public and their TTL long."""

    identifier = IDENTIFIER

    def __init__(self, library: Library, *, ttl_ms: int, page_size: int = PAGE_SIZE) -> None:
        self.library = library
        self.page_size = page_size
        self.cache = {"ttlMs": ttl_ms, "cacheScope": "public"}

    def settings(self) -> dict[str, Any]:
        return dict(SETTINGS)

    def methods(self) -> list[MethodBinding]:
        return [MethodBinding("skills/list", PaginatedRequestParams, self._list),
                MethodBinding("skills/get", GetSkillParams, self._get),
                MethodBinding("resources/directory/read", ReadDirectoryParams,
                              self._read_directory)]

    async def _list(self, ctx: Any, params: PaginatedRequestParams) -> dict[str, Any]:
        return await anyio.to_thread.run_sync(self.list_page, params.cursor)

    async def _get(self, ctx: Any, params: GetSkillParams) -> dict[str, Any]:
        return await anyio.to_thread.run_sync(self.get, params.uri)

    async def _read_directory(self, ctx: Any, params: ReadDirectoryParams) -> dict[str, Any]:
        return await anyio.to_thread.run_sync(read_directory, self.library, params.uri,
                                              params.cursor)

    def list_page(self, cursor: str | None) -> dict[str, Any]:
        try:
            page = self.library.names(cursor=cursor, limit=self.page_size)
        except ReaderError as error:
            raise MCPError(code=INVALID_PARAMS, message=f"Bad cursor: {error}") from None
        entries = [entry for name in page.names if (entry := self.entry(name)) is not None]
        result: dict[str, Any] = {"resultType": "complete", "skills": entries, **self.cache}
        if page.cursor:
            result["nextCursor"] = page.cursor
        return result

    def get(self, uri: str) -> dict[str, Any]:
        path = skill_name(uri)
        found = resolve(self.library.has_skill, f"{path}/SKILL.md") if path else None
        entry = self.entry(found[0]) if found is not None else None
        if entry is None:
            raise MCPError(code=INVALID_PARAMS,
                           message=f"No skill is served at {uri[:ECHO_CHARS]}; skills/list "
                                   "lists them, as skill://<path>/SKILL.md")
        return {"resultType": "complete", "skill": entry, **self.cache}

    def entry(self, name: str) -> dict[str, Any] | None:
        """The SEP-2640 entry for ``name``; None when it is unknown, its name breaks the
        Agent Skills rule, it is over the per-skill limits, or ``dist/`` lacks a file.
        ``name`` is the skill's id; the URI's last segment is its bare name."""
        bare = name.replace(":", "/").rpartition("/")[2]
        if len(bare) > 64 or not AGENT_SKILLS_NAME.fullmatch(bare):
            return None
        try:
            front_matter = self.library.front_matter_data(name)
            files = self.library.skill_files(name)
        except ReaderError:
            return None
        if (len(files) > MAX_FILES or sum(f.size for f in files) > MAX_BYTES
                or not all(f.stored and f.sha256 for f in files)):
            return None  # a host could not load it whole
        if front_matter.get("name") != bare or not front_matter.get("description"):
            return None  # the spec requires both, the name equal to the URI's
        entry: dict[str, Any] = {
            "uri": skill_md_uri(name),
            "frontmatter": front_matter,
            "resources": [{"uri": file_uri(name, f.path), "digest": f"sha256:{f.sha256}",
                           "size": f.size} for f in files],
        }
        if meta := view_meta(files):
            entry["_meta"] = meta
        return entry


class LegacyDeclaration:
    """Server middleware: a 2025-11-25 ``initialize`` result has no ``extensions`` field
    (the SDK drops it there), so the extension is also declared under ``experimental``,
    where handshake-era hosts look for it."""

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        result = await call_next(ctx)
        if ctx.method == "initialize" and isinstance(result, dict):
            capabilities = result.setdefault("capabilities", {})
            experimental = capabilities.setdefault("experimental", {}) or {}
            capabilities["experimental"] = {**experimental, IDENTIFIER: dict(SETTINGS)}
        return result
