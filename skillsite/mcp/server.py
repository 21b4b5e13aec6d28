"""Assemble the MCP server: instructions, tools, resources and the skills extension."""
from __future__ import annotations

import contextlib
import threading
from importlib.metadata import PackageNotFoundError, version

from mcp.server.caching import CacheHint
from mcp.server.mcpserver import MCPServer

from skillsite.mcp.identity import ClientBudgets, ClientIdentity
from skillsite.mcp.resources import register_resources
from skillsite.mcp.skills import PAGE_SIZE, LegacyDeclaration, SkillsExtension
from skillsite.mcp.tools import register_tools
from skillsite.reader import Library, ReaderError

# dist/ never changes under a running server (a rebuild swaps in a new folder), so the
# listings and file reads stay true for as long as the process serves them.
CACHE_TTL_MS = 24 * 60 * 60 * 1000

GUIDE = """\
This server is a library of agent skills. Never try to load the whole catalog.
1. {p}search(query) returns compact candidates (ref, name, description, tags); never bodies.
2. {p}open(ref) returns one skill's headings with their sizes, links, depends_on and files.
3. {p}read(ref, section="<heading>") returns that one section, bounded by max_chars; when the
   result says truncated, call {p}read again with its cursor.
Also: {p}recommend(task) ranks skills for a task, {p}related(ref) and {p}compose(ref) give
neighbours and one level of prerequisites, {p}context() gives counts, tags and this
session's calls.
Results are JSON. If the server keeps budgets (distinct skills and characters served to
each client, an MCP session), {p}context() shows yours.
"""

SAFE_GUIDE = """
Safe mode: every ref is single-use. Each result carries a fresh ref for the next step;
use it, not the old one. Queries that are too short or wildcards are refused."""

FILES_GUIDE = """
Each skill's files are also resources: resources/list lists every skill://<name>/SKILL.md,
and skill://<name>/<path> reads a supporting file; skills/list gives each skill's files
with digests, and resources/directory/read a folder's (the io.modelcontextprotocol/skills
extension). {p}prompt() gives a bounded listing for a system prompt; {p}use_skill(name)
returns a skill's whole body; {p}resolve(ref, args) the skill as a local SKILL.md with its
arguments rendered in."""


LIBRARIES_GUIDE = """
This server holds several libraries: {names}. Every result names its library, and its ref
is prefixed with it: @<library>/<id> (resources: skill://@<library>/<id>/SKILL.md). A bare
name serves when one library holds it. {p}search and {p}recommend take library: '*' (all,
the default), one name, or a list. A library that cannot be read is listed in refused."""


def create_server(library: Library, *, page_size: int = PAGE_SIZE,
                  tool_prefix: str = "", identity: ClientIdentity | None = None) -> MCPServer:
    """An ``MCPServer`` over ``library``. A safe-mode Library gets the tools only: files and
    skills/list would hand out raw paths and whole bodies, which safe mode never does.
    ``page_size`` is the number of skills per skills/list and resources/list page;
    ``tool_prefix`` is put before every tool's name (``skills_search``); ``identity``
    names the client of each request of a sessionless server (replicas sharing a store).
    """
    safe = library.safe
    hint = CacheHint(ttl_ms=CACHE_TTL_MS, scope="public")
    skills = SkillsExtension(library, ttl_ms=CACHE_TTL_MS, page_size=page_size)
    server = MCPServer(
        "skillsite",
        instructions=_instructions(library, tool_prefix),
        version=_version(),
        extensions=[] if safe else [skills],
        cache_hints={"tools/list": hint, "resources/list": hint,
                     "resources/templates/list": hint, "resources/read": hint},
        log_level="WARNING",
    )
    server.middleware.append(ClientBudgets(library, tool_prefix, identity))
    register_tools(server, library, tool_prefix)
    if not safe:
        register_resources(server, library, ttl_ms=CACHE_TTL_MS, page_size=page_size)
        server.middleware.append(LegacyDeclaration())
    return server


def _instructions(library: Library, tool_prefix: str) -> str:
    guide = GUIDE + (SAFE_GUIDE if library.safe else FILES_GUIDE)
    names = [name for name in library.libraries if name]
    if names:
        guide += LIBRARIES_GUIDE.replace("{names}", ", ".join(names))
    return guide.format(p=tool_prefix)


def warm_up(library: Library) -> threading.Thread | None:
    """Load the search index and its caches on a background thread (returned), so that
    the first search of a session does not pay for it (about 0.3 s). Not in safe mode,
    where every search counts against the window's budget."""
    if library.safe:
        return None
    thread = threading.Thread(target=_search_once, args=(library,), daemon=True)
    thread.start()
    return thread


def _search_once(library: Library) -> None:
    with contextlib.suppress(ReaderError):  # the first real call reports it
        library.search("warm up the index")


def _version() -> str:
    try:
        return version("skillsite")
    except PackageNotFoundError:
        return "0"
