"""Replicas of ``skillsite mcp --http --shared redis://...`` on 127.0.0.1, and a real SDK
client that sends each of its HTTP requests to the next replica in turn (a load balancer
without sticky sessions), for ``bench_replicas.py`` and ``tests/mcp/test_mcp_replicas.py``.
"""
from __future__ import annotations

import contextlib
import subprocess
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path

import httpx2
from load import start_server
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

TIMEOUT = httpx2.Timeout(30, read=300)


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/", 1)[0])


@contextlib.contextmanager
def replicas(dist: Path, redis_url: str, count: int = 2,
             *extra: str) -> Iterator[list[tuple[subprocess.Popen[bytes], str]]]:
    """``count`` servers on ``dist`` sharing ``redis_url``: (process, url) each, stopped
    at the end."""
    started: list[tuple[subprocess.Popen[bytes], str]] = []
    try:
        for _ in range(count):
            started.append(start_server(dist, "--shared", redis_url, *extra))
        yield started
    finally:
        for process, _ in started:
            process.terminate()
        for process, _ in started:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()


class RoundRobin(httpx2.AsyncBaseTransport):
    """Sends each request to the next of ``ports`` (same host), and counts them."""

    def __init__(self, ports: Sequence[int]) -> None:
        self.ports = list(ports)
        self.sent = [0] * len(self.ports)
        self.turn = 0
        self.inner = httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        number = self.turn % len(self.ports)
        self.turn += 1
        self.sent[number] += 1
        request.url = request.url.copy_with(port=self.ports[number])
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


@contextlib.asynccontextmanager
async def round_robin_client(urls: Sequence[str], headers: dict[str, str],
                             mode: str = "legacy") -> AsyncIterator[tuple[Client, RoundRobin]]:
    """A real SDK client whose requests go to each of ``urls`` in turn, with ``headers``
    (the client's identity) on every one."""
    transport = RoundRobin([port_of(url) for url in urls])
    http = httpx2.AsyncClient(transport=transport, headers=headers, timeout=TIMEOUT)
    async with http, Client(streamable_http_client(urls[0], http_client=http),
                            mode=mode) as client:  # type: ignore[arg-type]
        yield client, transport


@contextlib.asynccontextmanager
async def pinned_client(url: str, headers: dict[str, str],
                        mode: str = "legacy") -> AsyncIterator[Client]:
    """A real SDK client of the one replica at ``url``."""
    http = httpx2.AsyncClient(headers=headers, timeout=TIMEOUT)
    async with http, Client(streamable_http_client(url, http_client=http),
                            mode=mode) as client:  # type: ignore[arg-type]
        yield client
