"""``skillsite mcp``: serve a built dist/ to MCP clients over stdio or streamable HTTP."""
from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

import click

from skillsite.errors import SkillsiteError

SESSIONS_PER_CLIENT = 4  # open MCP sessions allowed per --max-clients
# MCP tool names are 1-128 of these characters; a prefix leaves room for the operation.
TOOL_PREFIX = re.compile(r"[A-Za-z0-9_.\-]{0,64}")

if TYPE_CHECKING:
    from skillsite.mcp.identity import ClientIdentity
    from skillsite.reader import Library
    from skillsite.reader.shared_redis import RedisStore


@click.command("mcp")
@click.option("--dist", "dist", multiple=True,
              default=lambda: (os.environ.get("SKILLSITE_DIST", "dist"),),
              show_default="$SKILLSITE_DIST or ./dist",
              help="The built artifacts to serve; repeat it as NAME=PATH to serve several "
                   "libraries, whose refs are then @NAME/<id> and whose search takes "
                   "library. Examples: --dist public/skills; --dist wiki=dist-wiki "
                   "--dist ops=dist-ops")
@click.option("--http", "address", metavar="HOST:PORT",
              help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio; a bare "
                   "PORT binds to 127.0.0.1. Example: --http 127.0.0.1:8000")
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="HOST[:PORT]",
              help="A Host header value clients may send (repeatable; PORT may be *). "
                   "Required to serve on a non-loopback address. Example: "
                   "--allow-host skills.example.com:8000")
@click.option("--allow-origin", "allow_origins", multiple=True, metavar="ORIGIN",
              help="A browser Origin allowed to call the server (repeatable). Requests "
                   "without an Origin are always served. Example: --allow-origin "
                   "https://app.example.com")
@click.option("--max-skills", type=click.IntRange(min=0), default=0, show_default=True,
              help="Bound each client (an MCP session over HTTP, the whole run over stdio) "
                   "to this many distinct skills (bodies and files); 0: no limit. Mini-A "
                   "bounds an agent run at 3. Example: --max-skills 3")
@click.option("--max-chars", type=click.IntRange(min=0), default=0, show_default=True,
              help="Bound each client to this many characters served in all; 0: no "
                   "limit. Mini-A bounds a run at 12000. Example: --max-chars 12000")
@click.option("--max-clients", type=click.IntRange(min=1), default=256, show_default=True,
              help="Clients (MCP sessions) holding budgets at once; one more is refused "
                   "with too-many-clients until a session ends or stays idle for an hour.")
@click.option("--tool-prefix", default="", metavar="PREFIX",
              help="Put PREFIX before every tool's name, so that a client that already has "
                   "a search tool can hold these too (letters, digits, _ . -). Example: "
                   "--tool-prefix skills_ (skills_search, skills_read, ...)")
@click.option("--safe", is_flag=True,
              help="Safe mode for untrusted clients: single-use refs, per-window budgets, "
                   "no raw paths or whole bodies (so no resources or skills/list).")
@click.option("--shared", "shared_url", metavar="redis://HOST:PORT/DB",
              help="Keep budgets, safe-mode counts and refs in this Redis, shared by every "
                   "replica, and serve sessionless, so that any replica serves any request "
                   "(needs --http and skillsite[shared]). Example: --shared "
                   "redis://10.0.0.5:6379/0")
@click.option("--client-identity", default="bearer", show_default=True,
              metavar="bearer|header:NAME",
              help="With --shared, what names a client: its Authorization bearer token, or "
                   "the header NAME your gateway sets (only a hash is kept). Example: "
                   "--client-identity header:X-Client-Id")
def mcp(dist: tuple[str, ...], address: str | None, allow_hosts: tuple[str, ...],
        allow_origins: tuple[str, ...], max_skills: int, max_chars: int, max_clients: int,
        tool_prefix: str, safe: bool, shared_url: str | None, client_identity: str) -> None:
    """Serve DIST to coding agents over the Model Context Protocol.

    One tool per reader operation (context, search, recommend, open, read, related,
    compose, prompt), every skill file as a skill://<name>/<path> resource, and the
    io.modelcontextprotocol/skills extension (skills/list, skills/get). stdio by default;
    --http binds to the address given, with Host/Origin checks always on.

    \b
    Examples:
      skillsite mcp                                 stdio, ./dist
      skillsite mcp --dist public/skills --safe     stdio, safe mode
      skillsite mcp --http 127.0.0.1:8000           http://127.0.0.1:8000/mcp
      skillsite mcp --http 0.0.0.0:8000 --allow-host skills.example.com:8000
      skillsite mcp --http 127.0.0.1:8001 --safe --shared redis://127.0.0.1:6379/0
      skillsite mcp --dist wiki=dist-wiki --dist ops=dist-ops
    """
    from skillsite.mcp.transport import (
        AddressError,
        check_can_listen,
        http_security,
        parse_address,
    )

    if not TOOL_PREFIX.fullmatch(tool_prefix):
        raise click.BadParameter(f"{tool_prefix[:80]!r} is not a tool-name prefix: use at "
                                 "most 64 letters, digits, _, . and -, e.g. skills_",
                                 param_hint="--tool-prefix")
    try:
        where = parse_address(address) if address else None
        security = http_security(where[0], allow_hosts, allow_origins) if where else None
        if where:
            check_can_listen(*where)
    except AddressError as error:
        raise SkillsiteError(str(error)) from None
    store, identity = (_shared(shared_url, client_identity, bool(where)) if shared_url
                       else (None, None))
    library = _open_library(dist, safe=safe, max_skills=max_skills or None,
                            max_chars=max_chars or None, max_clients=max_clients,
                            shared=store)
    served = _describe(library)
    from skillsite.mcp import create_server, serve_http, serve_stdio, warm_up

    warm_up(library)
    server = create_server(library, tool_prefix=tool_prefix, identity=identity)
    if where is None or security is None:
        click.echo(f"skillsite mcp: serving {served} over stdio", err=True)
        serve_stdio(server)
        return
    host, port = where
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"skillsite mcp: serving {served} at http://{shown}:{port}/mcp", err=True)
    # Sessions that never call a tool hold no budgets: room for a few of them per client.
    serve_http(server, host, port, security, max_sessions=SESSIONS_PER_CLIENT * max_clients,
               sessionless=store is not None)


def _shared(url: str, identity_text: str, http: bool) -> tuple[RedisStore, ClientIdentity]:
    """The store in Redis and the client identity of ``--shared``; Redis not answering
    yet is a warning (budget-spending calls are refused until it does)."""
    from skillsite.mcp.identity import ClientIdentity
    from skillsite.reader import ReaderError
    from skillsite.reader.shared_redis import RedisStore

    if not http:
        raise click.BadParameter("replicas share a store over HTTP only: add --http "
                                 "HOST:PORT", param_hint="--shared")
    try:
        identity = ClientIdentity.parse(identity_text)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--client-identity") from None
    try:
        store = RedisStore(url)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--shared") from None
    try:
        store.check()
    except ReaderError:
        click.echo(f"skillsite mcp: warning: Redis at {store.where} does not answer yet; calls "
                   "that spend a budget are refused (shared-store-unavailable) until it does",
                   err=True)
    return store, identity


def _open_library(dist: tuple[str, ...], **options: Any) -> Library:
    """The Library over ``dist`` (one PATH, or NAME=PATH each), every file hashed first
    (a long-lived process can afford it). A missing or damaged dist/ ends the command with
    exit code 2; of several libraries, one damaged is refused and the others served."""
    from skillsite.reader import Library, ReaderError
    from skillsite.reader.mounts import parse_dists

    try:
        return Library(parse_dists(dist), verify=True, **options)
    except ReaderError as error:
        raise SkillsiteError(error.message) from None  # exit code 2, whatever the code


def _describe(library: Library) -> str:
    """What the server serves, for its first line; each refused library is reported."""
    if list(library.libraries) == [""]:
        return str(library.dist)
    for problem in library.refused():
        click.echo(f"skillsite mcp: {problem.message}", err=True)
    return ", ".join(f"{name}={path}" for name, path in library.libraries.items())
