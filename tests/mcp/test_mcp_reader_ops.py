"""Issue #23 item 6 over MCP, with the real SDK client and real ``skillsite mcp``
processes over stdio and HTTP: ``resolve`` with arguments, ``--tool-prefix``, and each
session's retrieval counters in ``context``, which, like the server's log, never hold
what was asked or read."""
from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client
from mcp_helpers import call, error_shape, served, start_http, tool_error

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["stdio", "http"])
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def test_resolve_with_arguments(dist: Path, transport: str) -> None:
    async with served(dist, transport) as client:
        resolved = await call(client, "resolve", ref="pr-review", args=["4711"])
        assert resolved["placeholders"] == ["$ARGUMENTS"] and resolved["arguments"] == ["4711"]
        assert "gh pr view 4711 --json" in resolved["template"]
        assert "$ARGUMENTS" not in resolved["template"]
        assert resolved["front_matter"].startswith("name: pr-review\n")
        part = await call(client, "resolve", ref="pr-review", args=["4711"], max_chars=500)
        assert part["truncated"] and part["chars"] <= 500
        rest = await call(client, "resolve", ref="pr-review", args=["4711"],
                          cursor=part["cursor"], max_chars=20000)
        assert not rest["truncated"] and rest["template"] in resolved["template"]
        other = error_shape(await tool_error(client, "resolve", ref="pr-review", args=["1"],
                                             cursor=part["cursor"]))
        assert other["error"] == "invalid-argument"


async def test_tool_prefix_names_every_tool(dist: Path, transport: str) -> None:
    async with served(dist, transport, "--tool-prefix", "skills_") as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert names == {f"skills_{name}" for name in (
            "context", "search", "recommend", "open", "read", "related", "compose",
            "prompt", "resolve", "use_skill")}
        assert all(tool.output_schema for tool in (await client.list_tools()).tools)
        found = await call(client, "skills_search", query="fill a pdf form", limit=2)
        assert found["results"][0]["name"] == "pdf-forms"
        assert (await call(client, "skills_read", ref="pdf-forms", max_chars=300))["text"]
        preamble = await call(client, "skills_prompt", style="markdown")
        assert "`skills_use_skill`" in preamble["text"]
        assert (await call(client, "skills_use_skill", name="pdf-forms"))["chars"] > 0
        missing = await client.call_tool("search", {"query": "pdf"})
        assert missing.is_error
        bad = error_shape(await tool_error(client, "skills_search", query="pdf", limit=500))
        assert bad["error"] == "invalid-argument" and bad["arguments"][0]["argument"] == "limit"
        guide = client.instructions or ""
        assert "skills_search(query)" in guide and "skills_read(ref" in guide


async def test_a_prefix_keeps_budgets_per_session(dist: Path) -> None:
    async with served(dist, "http", "--tool-prefix", "p.", "--max-skills", "1") as client:
        await call(client, "p.read", ref="pdf-forms", max_chars=300)
        spent = error_shape(await tool_error(client, "p.resolve", ref="git-bisect"))
        assert spent["error"] == "budget-exceeded"


def test_a_bad_prefix_is_a_usage_error(dist: Path) -> None:
    from click.testing import CliRunner

    from skillsite.cli import main

    result = CliRunner().invoke(main, ["mcp", "--dist", str(dist), "--tool-prefix", "a b"])
    assert result.exit_code == 2 and "--tool-prefix" in result.output


async def test_each_http_session_counts_its_own_calls(dist: Path) -> None:
    process, port = start_http(dist)
    try:
        async with Client(f"http://127.0.0.1:{port}/mcp", mode="legacy") as first, \
                Client(f"http://127.0.0.1:{port}/mcp", mode="legacy") as second:
            await call(first, "search", query="pdf")
            await call(first, "search", query="bisect")
            passage = await call(first, "read", ref="pdf-forms", max_chars=700)
            await first.read_resource("skill://pdf-forms/references/FORMS.md")
            forms = (Path(__file__).parents[2] / "corpus" / "skills" / "pdf-forms"
                     / "references" / "FORMS.md").read_bytes()
            await call(second, "open", ref="git-bisect")
            mine = (await call(first, "context"))["retrieval"]
            theirs = (await call(second, "context"))["retrieval"]
        assert mine == {"calls": {"context": 1, "read": 1, "search": 2, "skill_file": 1},
                        "chars_served": passage["chars"] + len(forms)}
        assert theirs == {"calls": {"context": 1, "open": 1}, "chars_served": 0}
    finally:
        process.terminate()
        process.wait(10)


async def test_the_log_never_holds_bodies_or_arguments(dist: Path) -> None:
    secret_query = "zebra-quokka-7781 form"
    process, port = start_http(dist)
    try:
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            await call(client, "search", query=secret_query)
            passage = await call(client, "read", ref="pdf-forms", max_chars=2000)
            resolved = await call(client, "resolve", ref="pr-review", args=["arg-9931-x"])
            await tool_error(client, "read", ref="no-such-skill-5510")
            await tool_error(client, "search", query="q", limit=900)
    finally:
        process.terminate()
        process.wait(10)
    log = process.stderr.read().decode("utf-8", "replace")  # type: ignore[union-attr]
    assert "serving" in log  # the log is there, and holds none of these
    lines = [line for line in passage["text"].splitlines() if len(line) > 30]
    for text in (secret_query, "zebra-quokka", "arg-9931-x", "no-such-skill-5510", "900",
                 *lines[:5], resolved["template"][:60]):
        assert text not in log, text
