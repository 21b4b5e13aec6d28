"""What keeps ``mcp --http`` up against hostile connections, in front of the SDK's app:

- **Host and Origin compared exactly.** The SDK matches ``127.0.0.1:*`` by prefix, so
  ``Host: 127.0.0.1:8000@evil.com`` and ``Origin: http://127.0.0.1:8000.evil.com`` passed;
  here a ``:*`` pattern stands for a port of digits and nothing else.
- **A header deadline.** A connection that has not finished a request's headers within
  :data:`HEADER_SECONDS` is closed (uvicorn waits for ever before the first request).
- **A connection cap** below the file-descriptor limit: one more connection is closed at
  once, so ``accept()`` never runs out of descriptors for the server's own files.
- **EMFILE survived.** asyncio pauses ``accept()`` by itself when descriptors run out; its
  report went through a logging handler that imports a module (a file to open) and raised
  out of the event loop. Reports of exhausted descriptors are written as one plain line.
"""
from __future__ import annotations

import asyncio
import errno
import resource
import sys
from typing import Any

import h11
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_SECONDS = 10.0
MAX_CONNECTIONS = 1024
FD_RESERVE = 64  # descriptors kept for dist/ files, threads' pipes and logs
# asyncio accepts up to the listen backlog in one go before any connection is counted, so
# the backlog is what the cap may be overshot by: well inside the reserve.
BACKLOG = FD_RESERVE // 2
OUT_OF_DESCRIPTORS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})


def matches(value: str, patterns: list[str]) -> bool:
    """Whether ``value`` equals a pattern, or a ``BASE:*`` pattern as ``BASE:<digits>``."""
    for pattern in patterns:
        if value == pattern:
            return True
        if pattern.endswith(":*"):
            base = pattern[:-1]
            port = value[len(base):]
            if value.startswith(base) and port.isascii() and port.isdigit() and len(port) <= 5:
                return True
    return False


class ExactHosts:
    """ASGI middleware: 421 for a Host, 403 for an Origin (when sent) that is not allowed."""

    def __init__(self, app: ASGIApp, hosts: list[str], origins: list[str]) -> None:
        self.app = app
        self.hosts = hosts
        self.origins = origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = Headers(scope=scope)
            origin = headers.get("origin")
            if not matches(headers.get("host", ""), self.hosts):
                await Response("Invalid Host header", status_code=421)(scope, receive, send)
                return
            if origin and not matches(origin, self.origins):
                await Response("Invalid Origin header", status_code=403)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def connection_cap(limit: int = MAX_CONNECTIONS) -> int:
    """At most ``limit`` connections, and :data:`FD_RESERVE` descriptors fewer than the
    process may open."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return limit
    return max(8, min(limit, soft - FD_RESERVE))


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with the connection cap and the header deadline."""

    cap = MAX_CONNECTIONS
    header_seconds = HEADER_SECONDS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.cap:
            transport.abort()  # frees the descriptor now; connection_lost follows
            return
        self._arm_deadline()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is h11.IDLE:
            self._arm_deadline()  # a new request has begun: its headers have a deadline
        else:
            self._disarm_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_deadline()
        super().connection_lost(exc)

    def _arm_deadline(self) -> None:
        if self.header_deadline is None:
            self.header_deadline = self.loop.call_later(self.header_seconds, self._too_slow)

    def _disarm_deadline(self) -> None:
        if self.header_deadline is not None:
            self.header_deadline.cancel()
            self.header_deadline = None

    def _too_slow(self) -> None:
        self.header_deadline = None
        if self.conn.their_state is h11.IDLE and (self.cycle is None
                                                   or self.cycle.response_complete):
            self.transport.abort()


def survive_descriptor_exhaustion(loop: asyncio.AbstractEventLoop) -> None:
    """Report an ``accept()`` out of descriptors as one line on stderr instead of through
    logging (which may need to open a file); asyncio retries the accept by itself."""
    default = loop.get_exception_handler()

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        if isinstance(error, OSError) and error.errno in OUT_OF_DESCRIPTORS:
            print(f"skillsite mcp: out of file descriptors ({error.strerror}); new "
                  "connections wait until others close", file=sys.stderr, flush=True)
            return
        try:
            if default is None:
                loop.default_exception_handler(context)
            else:
                default(loop, context)
        except Exception:  # noqa: BLE001 - a failing report must not stop the server
            print(f"skillsite mcp: {context.get('message', 'error')}", file=sys.stderr)

    loop.set_exception_handler(handle)
