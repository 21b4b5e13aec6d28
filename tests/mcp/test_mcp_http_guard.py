"""``mcp --http`` against hostile connections (issue #20, items 14 and 15), on a real
server process: Host and Origin are compared exactly, not by prefix; connections that never
finish their headers are closed; a flood past the file-descriptor limit does not stop the
server, and a real SDK client is served afterwards."""
from __future__ import annotations

import http.client
import json
import resource
import socket
import subprocess
import time
from pathlib import Path

import pytest
from mcp import Client
from mcp_helpers import call, free_port, start_http

from skillsite.mcp.http_guard import HEADER_SECONDS, matches

pytestmark = pytest.mark.anyio
INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "test", "version": "1"}}})


def post(port: int, **headers: str) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("POST", "/mcp", body=INITIALIZE, headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        **headers})
    status = connection.getresponse().status
    connection.close()
    return status


@pytest.mark.parametrize("value,allowed", [
    ("127.0.0.1:8000", True), ("127.0.0.1:8000@evil.com", False), ("127.0.0.1:", False),
    ("127.0.0.1:8000.evil.com", False), ("127.0.0.1:८०००", False), ("127.0.0.1", False)])
def test_a_wildcard_port_is_digits_only(value: str, allowed: bool) -> None:
    assert matches(value, ["127.0.0.1:*"]) is allowed


def test_host_and_origin_are_compared_exactly(dist: Path) -> None:
    process, port = start_http(dist)
    try:
        assert post(port) == 200
        assert post(port, Host=f"127.0.0.1:{port}@evil.com") == 421
        assert post(port, Host=f"localhost:{port}.evil.com") == 421
        assert post(port, Origin=f"http://127.0.0.1:{port}.evil.com") == 403
        assert post(port, Origin=f"http://localhost:{port}@evil.com") == 403
        assert post(port, Origin=f"http://127.0.0.1:{port}") == 200
    finally:
        process.terminate()
        process.wait(10)


def test_an_allow_listed_wildcard_port_is_exact_too(dist: Path) -> None:
    port = free_port()
    process, port = start_http(dist, "--allow-host", "skills.example:*", "--allow-origin",
                               "https://app.example:*", host="0.0.0.0", port=port)
    try:
        assert post(port, Host=f"skills.example:{port}") == 200
        assert post(port, Host=f"skills.example:{port}@evil.com") == 421
        assert post(port, Host=f"skills.example:{port}",
                    Origin="https://app.example:443.evil.com") == 403
    finally:
        process.terminate()
        process.wait(10)


def start_limited(dist: Path, descriptors: int) -> tuple[subprocess.Popen[bytes], int]:
    """``skillsite mcp --http`` with at most ``descriptors`` open files."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (descriptors, descriptors))

    return start_http(dist, preexec_fn=limit)


def half_requests(port: int, count: int) -> list[socket.socket]:
    """``count`` connections that start a request and never finish its headers."""
    held = []
    for _ in range(count):
        try:
            connection = socket.create_connection(("127.0.0.1", port), timeout=5)
            connection.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1")
            held.append(connection)
        except OSError:
            pass  # refused or reset: the cap at work
    return held


def closed_by_server(connection: socket.socket) -> bool:
    connection.settimeout(0.5)
    try:
        return connection.recv(1024) == b""
    except TimeoutError:
        return False
    except OSError:
        return True  # reset


async def test_idle_connections_past_the_descriptor_limit_do_not_stop_the_server(
        dist: Path) -> None:
    process, port = start_limited(dist, 256)
    held = half_requests(port, 300)
    try:
        time.sleep(1)
        assert process.poll() is None, process.stderr.read().decode()  # type: ignore[union-attr]
        time.sleep(HEADER_SECONDS + 2)
        assert all(closed_by_server(connection) for connection in held)  # the deadline
        assert process.poll() is None
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            found = await call(client, "search", query="terraform plan")
            assert found["results"]
    finally:
        for connection in held:
            connection.close()
        process.terminate()
        process.wait(10)
    assert b"Traceback" not in process.stderr.read()  # type: ignore[union-attr]
