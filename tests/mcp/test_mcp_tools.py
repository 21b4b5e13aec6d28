"""The tools, through a real in-process client: direct dispatch and ``mode="legacy"``
(real JSON-RPC over in-memory streams). The server only translates, so every answer must be
the reader's own JSON for the same call."""
from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp_helpers import call, error_shape, tool_error

from skillsite.mcp import create_server
from skillsite.reader import Budget, Library

pytestmark = pytest.mark.anyio
TOOLS = {"context", "search", "recommend", "open", "read", "related", "compose", "prompt",
         "resolve", "use_skill"}


@pytest.fixture(params=["direct", "legacy"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def connect(dist: Path, mode: str, **options: object) -> Client:
    server = create_server(Library(dist, **options))  # type: ignore[arg-type]
    return Client(server) if mode == "direct" else Client(server, mode="legacy")


async def test_one_read_only_tool_per_operation_with_bounded_arguments(dist: Path,
                                                                       mode: str) -> None:
    async with connect(dist, mode) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(tools) == TOOLS
        for tool in tools.values():
            assert tool.annotations is not None
            assert tool.annotations.read_only_hint is True
            assert tool.annotations.open_world_hint is False
            assert tool.description
        limit = tools["search"].input_schema["properties"]["limit"]
        assert (limit["minimum"], limit["maximum"]) == (1, 50)
        assert tools["compose"].input_schema["properties"]["limit"]["maximum"] == 8
        guide = client.instructions or ""
        assert guide.index("search") < guide.index("open") < guide.index("read")


async def test_an_argument_a_tool_does_not_take_is_refused(dist: Path, mode: str) -> None:
    async with connect(dist, mode) as client:
        tools = (await client.list_tools()).tools
        assert all(tool.input_schema.get("additionalProperties") is False for tool in tools)
        shape = error_shape(await tool_error(client, "read", ref="pdf-forms", lines="1-3"))
        assert shape["error"] == "invalid-argument"
        assert shape["arguments"][0]["argument"] == "lines"
        shape = error_shape(await tool_error(client, "context", verbose=True))
        assert shape["error"] == "invalid-argument"


async def test_answers_are_the_readers_json(dist: Path, mode: str) -> None:
    reader = Library(dist)
    async with connect(dist, mode) as client:
        found = await call(client, "search", query="rollback a deployment", limit=3)
        assert found == reader.search("rollback a deployment", limit=3).to_dict()
        ref = found["results"][0]["ref"]
        opened = await call(client, "open", ref=ref)
        assert opened == reader.open(ref).to_dict()
        heading = next(h for h in opened["headings"] if h["heading"])
        passage = await call(client, "read", ref=ref, section=heading["heading"])
        assert passage == reader.read(ref, heading["heading"]).to_dict()
        assert passage["text"] and passage["chars"] <= 4000
        by_index = await call(client, "read", ref=ref, section=heading["index"])
        assert by_index == reader.read(ref, heading["index"]).to_dict() == passage
        assert await call(client, "context") == reader.context().to_dict()
        assert await call(client, "compose", ref="incident-triage") == \
            reader.compose("incident-triage").to_dict()
        assert await call(client, "related", ref="incident-triage", limit=3) == \
            reader.related("incident-triage", limit=3).to_dict()
        assert await call(client, "recommend", task="a deploy went wrong, undo it",
                          environment="kubernetes", capabilities=["kubectl"]) == \
            reader.recommend("a deploy went wrong, undo it", environment="kubernetes",
                             capabilities=["kubectl"]).to_dict()
        assert await call(client, "prompt", style="markdown", max_chars=1000) == \
            reader.prompt(None, style="markdown", max_chars=1000).to_dict()
        assert await call(client, "search", query="", tags=["git"], format="skill-md") == \
            reader.search("", tags=["git"], format="skill-md").to_dict()


async def test_an_exact_name_comes_first(dist: Path, mode: str) -> None:
    async with connect(dist, mode) as client:
        found = await call(client, "search", query="git-bisect")
        assert found["results"][0]["name"] == "git-bisect"
        assert all("text" not in hit and "body" not in hit for hit in found["results"])


@pytest.mark.parametrize("ref", ["../../etc/passwd", "/etc/passwd", "skill:nope", "a\0b",
                                 "ﬁ\u202e\u200b", "skill:" + "x" * 400])
async def test_a_hostile_ref_is_a_tool_error_and_the_next_call_is_served(
        dist: Path, mode: str, ref: str) -> None:
    async with connect(dist, mode) as client:
        for tool in ("open", "read", "related", "compose"):
            shape = error_shape(await tool_error(client, tool, ref=ref))
            assert shape["error"] in {"not-found", "invalid-argument"}, shape
        assert (await call(client, "search", query="pdf"))["results"]


async def test_not_found_tells_the_agent_to_call_search_not_the_cli(dist: Path,
                                                                     mode: str) -> None:
    async with connect(dist, mode) as client:
        shape = error_shape(await tool_error(client, "open", ref="no-such-skill"))
        assert shape["error"] == "not-found"
        assert "skillsite search" not in shape["message"]
        assert "the search tool" in shape["message"]


async def test_arguments_out_of_bounds_are_refused_before_the_reader(dist: Path,
                                                                     mode: str) -> None:
    async with connect(dist, mode) as client:
        assert "limit" in await tool_error(client, "search", query="pdf", limit=51)
        assert "ref" in await tool_error(client, "open", ref="x" * 100_000)
        assert "style" in await tool_error(client, "prompt", style="html")
        assert (await call(client, "search", query="pdf", limit=50))["limit"] == 50


async def test_an_unknown_section_lists_the_headings(dist: Path, mode: str) -> None:
    async with connect(dist, mode) as client:
        shape = error_shape(await tool_error(client, "read", ref="git-bisect",
                                             section="No such heading"))
        assert shape["error"] == "section-not-found"
        opened = await call(client, "open", ref="git-bisect")
        assert all(h["heading"] in shape["message"] for h in opened["headings"]
                   if h["heading"])


async def test_the_budget_holds_across_calls(dist: Path, mode: str) -> None:
    async with connect(dist, mode, budget=Budget()) as client:
        for name in ("git-bisect", "pdf-forms", "sql-review"):
            await call(client, "read", ref=name, max_chars=500)
        shape = error_shape(await tool_error(client, "read", ref="pr-review", max_chars=500))
        assert shape["error"] == "budget-exceeded"
        await call(client, "read", ref="git-bisect", max_chars=500)  # a loaded skill still is


async def test_concurrent_calls_on_worker_threads_agree(dist: Path, mode: str) -> None:
    answers: list[object] = []
    async with connect(dist, mode) as client:
        async def one() -> None:
            answers.append(await call(client, "search", query="incident triage", limit=5))

        async with anyio.create_task_group() as group:
            for _ in range(16):
                group.start_soon(one)
    assert len(answers) == 16 and all(answer == answers[0] for answer in answers)


async def test_the_budget_holds_across_concurrent_calls(dist: Path, mode: str) -> None:
    names = ["git-bisect", "pdf-forms", "sql-review", "pr-review", "changelog-writer",
             "certcheck", "flaky-test-hunter", "k8s-rollout-debug", "incident-triage"]
    served: list[str] = []
    async with connect(dist, mode, budget=Budget()) as client:
        async def one(name: str) -> None:
            result = await client.call_tool("read", {"ref": name, "max_chars": 500})
            if not result.is_error:
                served.append(name)

        async with anyio.create_task_group() as group:
            for name in names:
                group.start_soon(one, name)
        budgets = (await call(client, "context"))["budgets"]
    assert len(served) == 3 and sorted(budgets["skills_loaded"]) == sorted(served)
