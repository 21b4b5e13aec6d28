"""Issue #23 item 1: with the default settings ``skillsite mcp`` keeps no per-session
budget, so one session (the agent's whole run over stdio) reads six whole skills and a
supporting file; ``--max-skills`` turns a budget on. Real SDK client, real processes."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_helpers import call, error_shape, skillsite_env, start_http, tool_error

pytestmark = pytest.mark.anyio
SIX = ("pdf-forms", "git-bisect", "sql-review", "pr-review", "incident-triage",
       "terraform-plan-review")


def stdio(dist: Path, *args: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[
        "-m", "skillsite", "mcp", "--dist", str(dist), *args], env=skillsite_env())


async def _six_skills_and_a_file(client: Client) -> None:
    for name in SIX:
        opened = await call(client, "open", ref=name)
        passage = await call(client, "read", ref=name, max_chars=20000)
        assert passage["chars"] == opened["chars"] and not passage["truncated"], name
    forms = await client.read_resource("skill://pdf-forms/references/FORMS.md")
    assert forms.contents and forms.contents[0].text  # type: ignore[union-attr]
    budgets = (await call(client, "context"))["budgets"]
    assert budgets["max_skills"] is None and budgets["max_chars"] is None


async def test_one_stdio_session_reads_six_whole_skills_and_a_file(dist: Path) -> None:
    async with Client(stdio(dist)) as client:
        await _six_skills_and_a_file(client)


async def test_one_http_session_reads_six_whole_skills_and_a_file(dist: Path) -> None:
    process, port = start_http(dist)
    try:
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            await _six_skills_and_a_file(client)
    finally:
        process.terminate()
        process.wait(10)


async def test_max_skills_turns_a_budget_on(dist: Path) -> None:
    async with Client(stdio(dist, "--max-skills", "3", "--max-chars", "12000")) as client:
        for name in SIX[:3]:
            await call(client, "read", ref=name, max_chars=500)
        shape = error_shape(await tool_error(client, "read", ref=SIX[3]))
        assert shape["error"] == "budget-exceeded" and shape["limit"] == 3
