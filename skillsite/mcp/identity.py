"""Which client each request comes from, so that every client has its own budgets,
safe-mode counts and refs (the reader's ``Library.client``).

- **stdio, or a client in the same process:** one client, ``local``.
- **Streamable HTTP with a session** (the initialize handshake, protocol 2025-11-25 and
  earlier, on the stateful server ``serve_http`` always runs): one client per MCP
  session, keyed by the session id. The SDK generates that id and answers 404 to a
  request with an id it did not issue, before the request reaches this module, so a
  client cannot pick another's id. The budgets are dropped when the session ends (DELETE,
  or the SDK's idle timeout).
- **Streamable HTTP without a session** (a 2026-07-28 single-exchange request, or a
  stateless server): nothing ties two requests of one client together, so a server with
  budgets refuses the calls that spend one (every tool in safe mode; ``read`` and resource
  reads otherwise) with a clear error, serves the others, and declines
  ``server/discover`` so that a client negotiating automatically falls back to the
  handshake and gets a session.

- **Replicas sharing a store** (``skillsite mcp --shared redis://...``): the server runs
  sessionless, so that any replica can serve any request, and a :class:`ClientIdentity`
  names the client of each request: the hash of its bearer token, or of a header that
  the gateway in front sets. A request without one is refused when it spends a budget.

A Library without budgets needs no client ledger, but each client (session) still has
its own retrieval counters (``context`` reports them): kept in the session's own state,
they end with it. Sessionless, each replica keeps them per client identity (the
:data:`RETRIEVAL_CLIENTS` most recent): ``context`` counts the calls the answering
replica served.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections import OrderedDict
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_REQUEST, METHOD_NOT_FOUND, CallToolResult, TextContent
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from skillsite.reader import Library, ReaderError
from skillsite.reader.retrieval import Retrieval

LOCAL = "local"
BUDGETED = frozenset({"tools/call", "resources/read"})
SPENDING_TOOLS = frozenset({"read", "resolve", "use_skill"})  # and resources/read
FORGET_REGISTERED = "skillsite.forget-registered"
RETRIEVAL = "skillsite.retrieval"
NO_SESSION = ("this server keeps budgets per MCP session, and this request, which spends one, "
              "belongs to none "
              "(a 2026-07-28 single-exchange request, or a stateless server): connect with "
              "the initialize handshake, protocol 2025-11-25 (mode='legacy' in the Python "
              "SDK), which gives the client an Mcp-Session-Id")

#: Sessionless: the clients whose retrieval counters a replica keeps.
RETRIEVAL_CLIENTS = 4096
HEADER_NAME = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}")


@dataclass(frozen=True)
class ClientIdentity:
    """What names the client of a sessionless request: ``bearer`` (the token of its
    ``Authorization: Bearer`` header) or ``header`` (the value of the header ``name``,
    which the gateway in front sets). Only a hash of the value is kept."""

    kind: str
    name: str = "authorization"

    @classmethod
    def parse(cls, text: str) -> ClientIdentity:
        """``bearer`` or ``header:NAME``; ValueError with an example otherwise."""
        if text == "bearer":
            return cls("bearer")
        kind, _, name = text.partition(":")
        if kind == "header" and HEADER_NAME.fullmatch(name):
            return cls("header", name.lower())
        raise ValueError(f"{text[:100]!r} is not a client identity: use bearer (the hash of "
                         "the Authorization bearer token) or header:NAME (a header your "
                         "gateway sets), e.g. header:X-Client-Id")

    def describe(self) -> str:
        return ("an Authorization: Bearer token" if self.kind == "bearer"
                else f"the {self.name} header")

    def key(self, headers: Any) -> str | None:
        """The client's key from the request's headers (None: the request names none)."""
        value = headers.get(self.name) if headers is not None else None
        if not isinstance(value, str):
            return None
        if self.kind == "bearer":
            scheme, _, value = value.partition(" ")
            if scheme.lower() != "bearer":
                return None
        value = value.strip()
        if not value:
            return None
        digest = hashlib.sha256(value.encode("utf-8", "replace")).hexdigest()[:32]
        return f"{self.kind}:{digest}"


_current: ContextVar[Library | None] = ContextVar("skillsite_client_library", default=None)


def current(library: Library) -> Library:
    """The Library as the client of the request being served sees it (its budgets);
    ``library`` itself when it keeps no budgets."""
    view = _current.get()
    if view is not None or not library.limited:
        return view or library
    # Budgets must never fall back to one shared ledger: fail closed.
    raise MCPError(code=INVALID_REQUEST, message="no client is known for this call; "
                   "budgets are kept per client, so it is refused")


class ClientBudgets:
    """Server middleware: names the client of each tool call and resource read, and runs
    the request with that client's view of the Library."""

    def __init__(self, library: Library, tool_prefix: str = "",
                 identity: ClientIdentity | None = None) -> None:
        self.library = library
        self.spending = frozenset(tool_prefix + name for name in SPENDING_TOOLS)
        self.local_retrieval = Retrieval()
        self.identity = identity
        self.retrievals: OrderedDict[str, Retrieval] = OrderedDict()

    async def __call__(self, ctx: ServerRequestContext[Any, Any],
                       call_next: CallNext) -> HandlerResult:
        if not self.library.limited:
            if ctx.method not in BUDGETED:
                return await call_next(ctx)
            key = self._key(ctx) if self.identity else None
            return await self._run_as(self.library.counting(self._retrieval(ctx, key)), ctx,
                                      call_next)
        if (ctx.method == "server/discover" and ctx.request is not None
                and self.identity is None):
            raise MCPError(code=METHOD_NOT_FOUND, message=NO_SESSION)
        if ctx.method not in BUDGETED:
            return await call_next(ctx)
        key = self._key(ctx)
        try:
            return await self._run_for(key, ctx, call_next)
        except ReaderError as error:
            # too-many-clients; or, once the call is done, the store could not keep the
            # refs it issued (then they would not work: the answer is withheld)
            if ctx.method == "tools/call" and error.code != "too-many-clients":
                text = json.dumps(error.to_dict(), ensure_ascii=False, separators=(",", ":"))
                return CallToolResult(content=[TextContent(type="text", text=text)],
                                      is_error=True)
            raise MCPError(code=INVALID_REQUEST, message=error.message,
                           data=error.to_dict()) from None

    async def _run_for(self, key: str | None, ctx: ServerRequestContext[Any, Any],
                       call_next: CallNext) -> HandlerResult:
        with contextlib.ExitStack() as stack:
            if key is not None:
                view = stack.enter_context(self.library.client(key))
            elif self.spends_budget(ctx):
                raise MCPError(code=INVALID_REQUEST, message=self._anonymous())
            else:
                view = self.library  # touches no budget: the same for every client
            return await self._run_as(view.counting(self._retrieval(ctx, key)), ctx,
                                      call_next)

    def _anonymous(self) -> str:
        if self.identity is None:
            return NO_SESSION
        return (f"this server names each client by {self.identity.describe()}, and this "
                "request, which spends a budget, carries none: send it with every request "
                "(through a gateway that sets it)")

    @staticmethod
    async def _run_as(view: Library, ctx: ServerRequestContext[Any, Any],
                      call_next: CallNext) -> HandlerResult:
        token = _current.set(view)
        try:
            return await call_next(ctx)
        finally:
            _current.reset(token)

    def _retrieval(self, ctx: ServerRequestContext[Any, Any], key: str | None) -> Retrieval:
        """The retrieval counters of the request's client: its session's (kept in the
        session's state, so they end with it), the one local client's, its identity's on
        this replica, or fresh ones for a request without a session."""
        if ctx.request is None:
            return self.local_retrieval
        if self.identity is not None:
            return self._identity_retrieval(key) if key else Retrieval()
        connection = getattr(ctx.session, "_connection", None)
        state = getattr(connection, "state", None)
        if not isinstance(state, dict):
            return Retrieval()
        counters = state.get(RETRIEVAL)
        if counters is None:
            counters = state[RETRIEVAL] = Retrieval()
        return counters

    def _identity_retrieval(self, key: str) -> Retrieval:
        counters = self.retrievals.pop(key, None) or Retrieval()
        self.retrievals[key] = counters  # the most recent last
        while len(self.retrievals) > RETRIEVAL_CLIENTS:
            self.retrievals.popitem(last=False)
        return counters

    def spends_budget(self, ctx: ServerRequestContext[Any, Any]) -> bool:
        """Whether the request spends a client's budget: every tool in safe mode (each
        answer spends window counts and issues refs), else a body or a file."""
        if self.library.safe or ctx.method == "resources/read":
            return True
        return (ctx.params or {}).get("name") in self.spending

    def _key(self, ctx: ServerRequestContext[Any, Any]) -> str | None:
        """The client's key; None for an HTTP request without a session."""
        if ctx.request is None:
            return LOCAL  # stdio, or in-process: one client per server
        if self.identity is not None:
            return self.identity.key(getattr(ctx.request, "headers", None))
        # The SDK (2.3) offers the connection, which carries the session id the transport
        # checked and the teardown hook, only as ServerSession._connection.
        connection = getattr(ctx.session, "_connection", None)
        session_id = getattr(connection, "session_id", None)
        if (connection is None or not isinstance(session_id, str)
                or ctx.protocol_version not in HANDSHAKE_PROTOCOL_VERSIONS):
            return None
        if not connection.state.get(FORGET_REGISTERED):
            connection.state[FORGET_REGISTERED] = True
            connection.exit_stack.callback(self.library.forget_client, f"session:{session_id}")
        return f"session:{session_id}"
