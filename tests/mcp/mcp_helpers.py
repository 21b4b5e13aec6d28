"""Helpers for the MCP server tests: a real SDK client's calls, the SEP-2640 methods (the SDK
has no client helper for them) and ``skillsite mcp`` subprocesses."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

import mcp_types
from mcp import Client, StdioServerParameters
from pydantic import ConfigDict

REPO = Path(__file__).resolve().parents[2]


class ListSkillsParams(mcp_types.RequestParams):
    cursor: str | None = None


class GetSkillParams(mcp_types.RequestParams):
    uri: str


class ListSkills(mcp_types.Request[ListSkillsParams, Literal["skills/list"]]):
    pass


class GetSkill(mcp_types.Request[GetSkillParams, Literal["skills/get"]]):
    pass


class AnyResult(mcp_types.Result):
    model_config = ConfigDict(extra="allow")


async def skills_list(client: Client, cursor: str | None = None) -> dict[str, Any]:
    request = ListSkills(method="skills/list", params=ListSkillsParams(cursor=cursor))
    result = await client.session.send_request(request, AnyResult)
    return result.model_dump(by_alias=True, exclude_none=True)


async def skills_get(client: Client, uri: str) -> dict[str, Any]:
    request = GetSkill(method="skills/get", params=GetSkillParams(uri=uri))
    result = await client.session.send_request(request, AnyResult)
    return result.model_dump(by_alias=True, exclude_none=True)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def skillsite_env() -> dict[str, str]:
    """The environment for a ``python -m skillsite`` subprocess of this checkout."""
    return {**os.environ, "PYTHONPATH": str(REPO)}


def dist_args(dist: Path | list[str]) -> list[str]:
    """``--dist`` for one plain dist/ or for several libraries (``["wiki=PATH", ...]``)."""
    return ["--dist", str(dist)] if isinstance(dist, Path) else [
        arg for value in dist for arg in ("--dist", value)]


def start_http(dist: Path | list[str], *args: str, host: str = "127.0.0.1", port: int = 0,
               preexec_fn: Callable[[], None] | None = None
               ) -> tuple[subprocess.Popen[bytes], int]:
    """``skillsite mcp --http HOST:<free port>``, once it accepts connections
    (``preexec_fn`` runs in the child before it starts, e.g. to set a limit)."""
    port = port or free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "skillsite", "mcp", *dist_args(dist),
         "--http", f"{host}:{port}", *args],
        env=skillsite_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        preexec_fn=preexec_fn)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"server exited: {process.stderr.read().decode()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return process, port
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise AssertionError("server did not start within 30 s")


@asynccontextmanager
async def served(dist: Path | list[str], transport: str, *args: str
                 ) -> AsyncIterator[Client]:
    """A real SDK client of ``skillsite mcp --dist DIST ARGS`` over ``stdio`` or ``http``
    (``dist``: one plain dist/, or ``["NAME=PATH", ...]`` for several libraries)."""
    if transport == "stdio":
        params = StdioServerParameters(command=sys.executable, args=[
            "-m", "skillsite", "mcp", *dist_args(dist), *args], env=skillsite_env())
        async with Client(params) as client:
            yield client
        return
    process, port = start_http(dist, *args)
    try:
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            yield client
    finally:
        process.terminate()
        process.wait(10)


async def call(client: Client, tool: str, **arguments: Any) -> Any:
    """A tool's JSON answer; fails the test if the tool reported an error."""
    result = await client.call_tool(tool, arguments)
    text = result.content[0].text  # type: ignore[union-attr]
    assert not result.is_error, text
    return json.loads(text)


async def tool_error(client: Client, tool: str, **arguments: Any) -> str:
    """The text of a tool error; fails the test if the tool succeeded."""
    result = await client.call_tool(tool, arguments)
    text = result.content[0].text  # type: ignore[union-attr]
    assert result.is_error, text
    return text


def error_shape(text: str) -> dict[str, Any]:
    """The reader's error JSON inside a tool error ("Error executing tool x: {...}")."""
    return json.loads(text[text.index("{"):])
