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

A Library without budgets needs no client ledger, but each client (session) still has
its own retrieval counters (``context`` reports them): kept in the session's own state,
they end with it.
"""
from __future__ import annotations

import contextlib
from contextvars import ContextVar
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_REQUEST, METHOD_NOT_FOUND
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

    def __init__(self, library: Library, tool_prefix: str = "") -> None:
        self.library = library
        self.spending = frozenset(tool_prefix + name for name in SPENDING_TOOLS)
        self.local_retrieval = Retrieval()

    async def __call__(self, ctx: ServerRequestContext[Any, Any],
                       call_next: CallNext) -> HandlerResult:
        if not self.library.limited:
            if ctx.method not in BUDGETED:
                return await call_next(ctx)
            return await self._run_as(self.library.counting(self._retrieval(ctx)), ctx,
                                      call_next)
        if ctx.method == "server/discover" and ctx.request is not None:
            raise MCPError(code=METHOD_NOT_FOUND, message=NO_SESSION)
        if ctx.method not in BUDGETED:
            return await call_next(ctx)
        key = self._key(ctx)
        with contextlib.ExitStack() as stack:
            if key is not None:
                try:
                    view = stack.enter_context(self.library.client(key))
                except ReaderError as error:  # too-many-clients
                    raise MCPError(code=INVALID_REQUEST, message=error.message,
                                   data=error.to_dict()) from None
            elif self.spends_budget(ctx):
                raise MCPError(code=INVALID_REQUEST, message=NO_SESSION)
            else:
                view = self.library  # touches no budget: the same for every client
            return await self._run_as(view.counting(self._retrieval(ctx)), ctx, call_next)

    @staticmethod
    async def _run_as(view: Library, ctx: ServerRequestContext[Any, Any],
                      call_next: CallNext) -> HandlerResult:
        token = _current.set(view)
        try:
            return await call_next(ctx)
        finally:
            _current.reset(token)

    def _retrieval(self, ctx: ServerRequestContext[Any, Any]) -> Retrieval:
        """The retrieval counters of the request's client: its session's (kept in the
        session's state, so they end with it), the one local client's, or fresh ones for
        a request without a session."""
        if ctx.request is None:
            return self.local_retrieval
        connection = getattr(ctx.session, "_connection", None)
        state = getattr(connection, "state", None)
        if not isinstance(state, dict):
            return Retrieval()
        counters = state.get(RETRIEVAL)
        if counters is None:
            counters = state[RETRIEVAL] = Retrieval()
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
