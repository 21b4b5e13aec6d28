"""Safe mode through a real client: tools only, single-use refs, budgets across calls."""
from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_helpers import call, error_shape, skills_list, tool_error

from skillsite.mcp import create_server, warm_up
from skillsite.reader import Library
from skillsite.reader.safe import SafePolicy

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["direct", "legacy"])
def client(request: pytest.FixtureRequest, dist: Path) -> Client:
    server = create_server(Library(dist, safe=True))
    return Client(server) if request.param == "direct" else Client(server, mode="legacy")


async def test_only_the_tools_are_served(client: Client) -> None:
    async with client:
        assert not (client.server_capabilities.extensions or {})
        assert not (client.server_capabilities.experimental or {})
        assert (await client.list_resource_templates()).resource_templates == []
        assert "single-use" in (client.instructions or "")
        with pytest.raises(MCPError):
            await skills_list(client)
        with pytest.raises(MCPError):
            await client.read_resource("skill://git-bisect/SKILL.md")


async def test_a_ref_is_single_use_and_each_answer_brings_a_fresh_one(client: Client) -> None:
    async with client:
        found = await call(client, "search", query="bisect a regression")
        ref = found["results"][0]["ref"]
        assert ref.startswith("r-") and found["results"][0]["name"] == "git-bisect"
        opened = await call(client, "open", ref=ref)
        assert opened["path"] is None and opened["ref"] != ref
        shape = error_shape(await tool_error(client, "open", ref=ref))
        assert shape["error"] == "invalid-or-expired-reference"
        section = next(h["heading"] for h in opened["headings"] if h["heading"])
        passage = await call(client, "read", ref=opened["ref"], section=section)
        assert passage["text"] and passage["ref"] != opened["ref"]
        shape = error_shape(await tool_error(client, "read", ref="git-bisect"))
        assert shape["error"] == "invalid-or-expired-reference"  # names are not refs


async def test_short_and_wildcard_queries_are_rejected(client: Client) -> None:
    async with client:
        for query in ("*", "ab", "**"):
            shape = error_shape(await tool_error(client, "search", query=query))
            assert shape["error"] == "restricted-query-rejected"


async def test_the_search_budget_holds_across_calls(client: Client) -> None:
    async with client:
        served = 0
        while True:
            result = await client.call_tool("search", {"query": "incident triage"})
            if result.is_error:
                break
            served += 1
            assert served < 1000
        shape = error_shape(result.content[0].text)  # type: ignore[union-attr]
        assert shape["error"] == "restricted-budget-exhausted"
        assert shape["retry_after_seconds"] > 0
        assert served == SafePolicy().max_searches
        shape = error_shape(await tool_error(client, "search", query="rollback deploy"))
        assert shape["error"] == "restricted-budget-exhausted"


async def test_a_ref_used_by_concurrent_calls_serves_one(client: Client) -> None:
    async with client:
        ref = (await call(client, "search", query="bisect a regression"))["results"][0]["ref"]
        results = []

        async def one() -> None:
            results.append(await client.call_tool("open", {"ref": ref}))

        async with anyio.create_task_group() as group:
            for _ in range(8):
                group.start_soon(one)
    assert sum(not result.is_error for result in results) == 1


def test_warming_up_spends_nothing_of_a_safe_budget(dist: Path) -> None:
    safe = Library(dist, safe=True)
    assert warm_up(safe) is None
    assert safe.ledger is not None and safe.ledger.searches == 0
    thread = warm_up(Library(dist))
    assert thread is not None
    thread.join(30)
    assert not thread.is_alive()
