"""Budgets per client over streamable HTTP: real SDK client sessions against one real
``skillsite mcp --http`` process. Each MCP session has its own budgets, safe-mode counts
and refs; concurrent calls of one session never overshoot them; the ledger of clients is
capped with a clear error; a request without a session is refused, not shared."""
from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_helpers import call, error_shape, skillsite_env, start_http, tool_error

from skillsite.reader.safe import SafePolicy

pytestmark = pytest.mark.anyio
POLICY = SafePolicy()


def _serve(dist: Path, *args: str) -> Iterator[str]:
    process, port = start_http(dist, *args)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture(scope="module")
def safe_url(dist: Path) -> Iterator[str]:
    yield from _serve(dist, "--safe")


async def _searches_served(client: Client, attempts: int) -> int:
    served = 0
    for _ in range(attempts):
        result = await client.call_tool("search", {"query": "incident triage"})
        if result.is_error:
            shape = error_shape(result.content[0].text)  # type: ignore[union-attr]
            assert shape["error"] == "restricted-budget-exhausted", shape
        else:
            served += 1
    return served


async def _budgets(client: Client) -> dict[str, list[int]]:
    return (await call(client, "context"))["budgets"]["safe"]  # type: ignore[no-any-return]


async def test_one_session_spending_its_budget_leaves_the_other_its_own(
        safe_url: str) -> None:
    async with Client(safe_url) as greedy, Client(safe_url) as other:
        assert greedy.protocol_version == "2025-11-25"  # auto fell back to a session
        assert await _searches_served(greedy, POLICY.max_searches + 10) == POLICY.max_searches
        assert (await _budgets(greedy))["searches"] == [POLICY.max_searches,
                                                         POLICY.max_searches]
        assert (await _budgets(other))["searches"] == [0, POLICY.max_searches]
        found = await call(other, "search", query="bisect a regression")
        ref = found["results"][0]["ref"]
        # a ref belongs to the session it was issued to
        shape = error_shape(await tool_error(greedy, "open", ref=ref))
        assert shape["error"] == "invalid-or-expired-reference"
        assert (await call(other, "open", ref=ref))["name"] == "git-bisect"
        assert await _searches_served(other, POLICY.max_searches + 5) == POLICY.max_searches - 1


async def test_concurrent_calls_of_one_session_never_overshoot(safe_url: str) -> None:
    results = []
    async with Client(safe_url) as client:
        async def one() -> None:
            results.append(await client.call_tool("search", {"query": "rollback deploy"}))

        async with anyio.create_task_group() as group:
            for _ in range(POLICY.max_searches + 20):
                group.start_soon(one)
        assert sum(not r.is_error for r in results) == POLICY.max_searches
        assert (await _budgets(client))["searches"] == [POLICY.max_searches,
                                                         POLICY.max_searches]


async def test_skill_budgets_are_per_session_and_hold_under_concurrency(dist: Path) -> None:
    names = ["git-bisect", "certcheck", "incident-triage", "log-search", "pdf-forms",
             "changelog-writer"]
    for url in _serve(dist, "--max-skills", "2", "--max-chars", "0"):
        async with Client(url) as first, Client(url) as second:
            results: list[tuple[str, bool]] = []

            async def read(name: str) -> None:
                result = await first.call_tool("read", {"ref": name})
                results.append((name, not result.is_error))

            async with anyio.create_task_group() as group:
                for name in names * 3:
                    group.start_soon(read, name)
            loaded = {name for name, ok in results if ok}
            assert len(loaded) == 2, results
            budgets = (await call(first, "context"))["budgets"]
            assert set(budgets["skills_loaded"]) == loaded
            unread = next(name for name in names if name not in loaded)
            shape = error_shape(await tool_error(first, "read", ref=unread))
            assert shape["error"] == "budget-exceeded" and shape["budget"] == "skills"
            assert (await call(second, "read", ref=unread))["name"] == unread
            assert (await call(second, "context"))["budgets"]["skills_loaded"] == [unread]


async def test_the_ledger_of_clients_is_capped_with_a_clear_error(dist: Path) -> None:
    for url in _serve(dist, "--safe", "--max-clients", "2"):
        async with Client(url) as one, Client(url) as two, Client(url) as three:
            await call(one, "search", query="incident triage")
            await call(two, "search", query="incident triage")
            with pytest.raises(Exception) as refused:
                await three.call_tool("search", {"query": "incident triage"})
            error = _mcp_error(refused.value)
            assert "--max-clients 2" in error.message and "retry in" in error.message
            assert error.data["error"] == "too-many-clients"
            assert error.data["retry_after_seconds"] > 0
            await call(one, "search", query="rollback deploy")  # those inside keep going
        async with Client(url) as four:  # the three sessions ended (DELETE): room again
            await call(four, "search", query="incident triage")


async def test_open_sessions_are_capped_too(dist: Path) -> None:
    """Sessions that never call a tool hold no budgets, but the SDK's memory (about 100 KB
    each): at most 4 per --max-clients are open at once."""
    for url in _serve(dist, "--safe", "--max-clients", "1"):
        async with contextlib.AsyncExitStack() as stack:
            for _ in range(4):
                await stack.enter_async_context(Client(url))
            with pytest.raises(Exception) as refused:
                await stack.enter_async_context(Client(url))
            assert "Too many open sessions" in _mcp_error(refused.value).message


async def test_a_request_without_a_session_is_refused_not_shared(safe_url: str) -> None:
    with pytest.raises(Exception) as refused:
        async with Client(safe_url, mode="2026-07-28") as client:
            await client.call_tool("search", {"query": "incident triage"})
    error = _mcp_error(refused.value)
    assert "per MCP session" in error.message and "mode='legacy'" in error.message


async def test_without_a_session_what_spends_no_budget_is_still_served(dist: Path) -> None:
    for url in _serve(dist, "--max-skills", "3", "--max-chars", "12000"):  # Mini-A budgets
        async with Client(url, mode="2026-07-28") as client:
            found = await call(client, "search", query="bisect a regression")
            assert found["results"][0]["name"] == "git-bisect"
            assert (await call(client, "open", ref="git-bisect"))["name"] == "git-bisect"
            with pytest.raises(Exception) as refused:
                await client.call_tool("read", {"ref": "git-bisect"})
            assert "per MCP session" in _mcp_error(refused.value).message
        async with Client(url) as client:  # negotiating: a session, and reads
            assert client.protocol_version == "2025-11-25"
            assert (await call(client, "read", ref="git-bisect"))["name"] == "git-bisect"


async def test_without_budgets_every_protocol_is_served(dist: Path) -> None:
    for url in _serve(dist, "--max-skills", "0", "--max-chars", "0"):
        async with Client(url) as client:
            assert client.protocol_version == "2026-07-28"
            passage = await call(client, "read", ref="git-bisect")
            assert passage["name"] == "git-bisect"
            assert json.dumps(await call(client, "context"))


async def test_stdio_is_one_client_whose_budget_holds_across_calls(dist: Path) -> None:
    parameters = StdioServerParameters(
        command=sys.executable, env=skillsite_env(),
        args=["-m", "skillsite", "mcp", "--dist", str(dist), "--max-skills", "1"])
    async with Client(parameters) as client:
        assert (await call(client, "read", ref="git-bisect"))["name"] == "git-bisect"
        shape = error_shape(await tool_error(client, "read", ref="certcheck"))
        assert shape["error"] == "budget-exceeded"
        assert (await call(client, "context"))["budgets"]["skills_loaded"] == ["git-bisect"]


def _mcp_error(error: BaseException) -> MCPError:
    """The MCPError inside the SDK client's exception groups."""
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    assert isinstance(error, MCPError), repr(error)
    return error
