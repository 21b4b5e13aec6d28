"""Safe mode through a real client: tools only, single-use refs, budgets across calls."""
from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_helpers import call, error_shape, skills_list, tool_error

from skillsite.mcp import create_server, warm_up
from skillsite.reader import Library, ReaderError
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


async def test_tools_safe_mode_refuses_are_neither_listed_nor_named(client: Client) -> None:
    async with client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        assert "search" in tools and "read" in tools
        assert not tools & {"prompt", "use_skill", "resolve"}
        for name in ("prompt(", "use_skill(", "resolve("):
            assert name not in (client.instructions or "")


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


def _forged(cursor: str, mode: str, at: int, section: int, end: int) -> list[str]:
    """``cursor`` rewritten to another mode and range: unsigned, and with its old MAC."""
    import base64
    import json

    payload, _, mac = cursor.partition(".")
    name, version, *_ = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    blob = json.dumps([name, version, mode, at, section, end], separators=(",", ":"))
    rewritten = base64.urlsafe_b64encode(blob.encode()).decode().rstrip("=")
    return [rewritten, f"{rewritten}.{mac}"]


async def test_a_rewritten_cursor_is_refused(client: Client) -> None:
    """Issue #20 item 6: an unsigned cursor rewritten to body mode, or to lines 1-100000,
    read a whole body in one call. Cursors are signed; only the server's own resume."""
    async with client:
        found = await call(client, "search", query="bisect a regression")
        passage = await call(client, "read", ref=found["results"][0]["ref"], start_line=1,
                             end_line=40, max_chars=200)
        assert passage["truncated"] and passage["cursor"]
        ref, cursor = passage["ref"], passage["cursor"]
        for forged in [*_forged(cursor, "body", 0, -1, 0),
                       *_forged(cursor, "lines", 0, 1, 100_000)]:
            shape = error_shape(await tool_error(client, "read", ref=ref, cursor=forged,
                                                 max_chars=20000))
            assert shape["error"] == "invalid-argument"
            ref = (await call(client, "search", query="bisect a regression"))["results"][0]["ref"]
        again = await call(client, "read", ref=ref, cursor=cursor)
        assert again["text"] and again["end_line"] <= 40  # the original range holds


async def test_a_cursor_of_one_client_is_refused_to_another(dist: Path) -> None:
    library = Library(dist, safe=True)
    with library.client("a") as first, library.client("b") as second:
        ref = first.search("bisect a regression").results[0].ref
        cut = first.read(ref, start_line=1, end_line=40, max_chars=200)
        other = second.search("bisect a regression").results[0].ref
        with pytest.raises(ReaderError) as refused:
            second.read(other, cursor=cut.cursor)
        assert refused.value.code == "invalid-argument"
