"""Run the server over stdio or streamable HTTP, with DNS-rebinding protection always on.

The SDK turns the Host/Origin checks on by itself only for 127.0.0.1, localhost and ::1,
and silently leaves them off for any other bind address such as 0.0.0.0. So the settings
are always built here: the loopback names on loopback, and only an explicit allow-list
anywhere else (``http_security`` refuses to go without one)."""
from __future__ import annotations

import asyncio
import ipaddress
import socket

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

from skillsite.mcp.http_guard import (
    BACKLOG,
    ExactHosts,
    GuardedH11,
    connection_cap,
    survive_descriptor_exhaustion,
)

LOOPBACK_HOSTS = ("127.0.0.1:*", "localhost:*", "[::1]:*")
LOOPBACK_ORIGINS = tuple(f"http://{host}" for host in LOOPBACK_HOSTS)


class AddressError(ValueError):
    """``--http`` or the allow-list does not describe a safe address to serve on."""


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT``, ``[IPv6]:PORT``, or ``:PORT`` and ``PORT`` (127.0.0.1) -> (host, port)."""
    host, _, port_text = text.rpartition(":")
    bracketed = host.startswith("[") and host.endswith("]")
    if (not port_text.isdigit() or not 0 < int(port_text) < 65536
            or (":" in host and not bracketed)):
        raise AddressError(f"--http {text!r} is not HOST:PORT with a port from 1 to 65535 "
                           "(an IPv6 host in brackets); example: --http 127.0.0.1:8000")
    host = host[1:-1] if bracketed else host
    return host or "127.0.0.1", int(port_text)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def http_security(host: str, allow_hosts: tuple[str, ...] = (),
                  allow_origins: tuple[str, ...] = ()) -> TransportSecuritySettings:
    """Host/Origin checks for serving on ``host``; refuses a non-loopback host without an
    explicit ``allow_hosts`` list."""
    if is_loopback(host):
        hosts, origins = (*LOOPBACK_HOSTS, *allow_hosts), (*LOOPBACK_ORIGINS, *allow_origins)
    elif allow_hosts:
        hosts, origins = allow_hosts, allow_origins
    else:
        raise AddressError(
            f"refusing to serve on {host}, which is not a loopback address, without an "
            "allow-list: any web page could reach the server through DNS rebinding. Name "
            "the Host values clients will send, e.g. --allow-host skills.example.com:8000 "
            "(and --allow-origin https://app.example.com for browsers), or serve on "
            "127.0.0.1")
    return TransportSecuritySettings(enable_dns_rebinding_protection=True,
                                     allowed_hosts=list(hosts), allowed_origins=list(origins))


def check_can_listen(host: str, port: int) -> None:
    """Fail now, with a message, when ``host:port`` cannot be listened on (in use, no such
    address), rather than after start-up with a server log line."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as error:
        raise AddressError(f"cannot listen on {host}:{port}: {error.strerror or error}; "
                           "pick another port, e.g. --http 127.0.0.1:8765") from None


def serve_stdio(server: MCPServer) -> None:
    server.run("stdio")


def serve_http(server: MCPServer, host: str, port: int,
               security: TransportSecuritySettings, *, max_sessions: int = 1024,
               sessionless: bool = False) -> None:
    """Stateful by default: budgets are kept per MCP session (see ``clients``). The SDK
    holds at most ``max_sessions`` open sessions (about 100 KB each; a new one beyond gets
    HTTP 503) and closes a session idle for 30 minutes. ``sessionless`` (replicas that
    share their budgets in a store, and name clients by a header) keeps no session, so
    that any replica can serve any request. uvicorn is run here rather than by the SDK
    so that the guards of ``http_guard`` (exact Host/Origin, header deadline, connection
    cap) sit in front."""
    anyio.run(_serve_http, server, host, port, security, max_sessions, sessionless)


async def _serve_http(server: MCPServer, host: str, port: int,
                      security: TransportSecuritySettings, max_sessions: int,
                      sessionless: bool) -> None:
    import uvicorn

    app = server.streamable_http_app(stateless_http=sessionless, max_sessions=max_sessions,
                                     transport_security=security, host=host)
    guarded = ExactHosts(app, security.allowed_hosts, security.allowed_origins)
    GuardedH11.cap = connection_cap()
    config = uvicorn.Config(guarded, host=host, port=port, http=GuardedH11, backlog=BACKLOG,
                            log_level=server.settings.log_level.lower())
    survive_descriptor_exhaustion(asyncio.get_running_loop())
    await uvicorn.Server(config).serve()
