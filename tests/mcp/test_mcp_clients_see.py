"""Issue #23 item 2, with the real SDK client in process (both protocol modes), over
stdio and over HTTP: every SKILL.md is a concrete resource, listed a page at a time;
SEP-2640's ``resources/directory/read``; every tool declares an ``outputSchema`` and its
``structuredContent`` is valid against it and is the ``--json`` shape; bad arguments
answer with the reader's error JSON; the markdown preamble names a tool the server has."""
from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

import jsonschema
import mcp_types
import pytest
from click.testing import CliRunner
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_helpers import AnyResult, call, error_shape, served

from skillsite.cli import main
from skillsite.mcp import create_server
from skillsite.reader import Library

pytestmark = pytest.mark.anyio


class DirectoryParams(mcp_types.RequestParams):
    uri: str
    cursor: str | None = None


class ReadDirectory(mcp_types.Request[DirectoryParams, Literal["resources/directory/read"]]):
    pass


async def read_directory(client: Client, uri: str, cursor: str | None = None
                         ) -> dict[str, Any]:
    request = ReadDirectory(method="resources/directory/read",
                            params=DirectoryParams(uri=uri, cursor=cursor))
    result = await client.session.send_request(request, AnyResult)
    return result.model_dump(by_alias=True, exclude_none=True)


@asynccontextmanager
async def connected(dist: Path, how: str, page_size: int = 5) -> AsyncIterator[Client]:
    if how in ("direct", "legacy"):
        server = create_server(Library(dist), page_size=page_size)
        async with (Client(server) if how == "direct" else Client(server, mode="legacy")
                    ) as client:
            yield client
    else:
        async with served(dist, how) as client:
            yield client


@pytest.fixture(params=["direct", "legacy", "stdio", "http"])
def how(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def test_every_skill_md_is_a_concrete_resource_listed_by_pages(dist: Path,
                                                                     how: str) -> None:
    every = list(Library(dist).names(limit=1000).names)
    async with connected(dist, how) as client:
        listed, cursor, pages = [], None, 0
        while True:
            page = await client.list_resources(cursor=cursor)
            listed += page.resources
            pages += 1
            cursor = page.next_cursor
            if not cursor:
                break
        assert [r.name for r in listed] == every
        assert pages == (-(-len(every) // 5) if how in ("direct", "legacy") else 1)
        for resource in listed:
            assert resource.uri == f"skill://{resource.name}/SKILL.md"
            assert resource.mime_type == "text/markdown" and resource.description
        text = (await client.read_resource(listed[0].uri)).contents[0]
        assert len(text.text.encode()) == listed[0].size  # type: ignore[union-attr]
        templates = (await client.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["skill://{name}/SKILL.md",
                                                       "skill://{name}/{+path}"]
        with pytest.raises(MCPError) as bad:
            await client.list_resources(cursor="not-a-cursor")
        assert bad.value.error.code == -32602


async def test_directory_read(dist: Path, how: str) -> None:
    async with connected(dist, how) as client:
        declared = client.server_capabilities.extensions or client.server_capabilities.experimental
        assert declared is not None
        if how != "legacy":
            assert declared["io.modelcontextprotocol/skills"] == {"directoryRead": True}
        root = await read_directory(client, "skill://pdf-forms")
        assert root["resultType"] == "complete"
        kinds = {r["name"]: r["mimeType"] for r in root["resources"]}
        assert kinds["SKILL.md"] == "text/markdown" and kinds["references"] == "inode/directory"
        folder = await read_directory(client, "skill://pdf-forms/references")
        (forms,) = folder["resources"]
        assert forms["uri"] == "skill://pdf-forms/references/FORMS.md"
        data = (await client.read_resource(forms["uri"])).contents[0]
        assert len(data.text.encode()) == forms["size"]  # type: ignore[union-attr]
        for uri in ("skill://pdf-forms/SKILL.md", "skill://no-such-skill",
                    "skill://pdf-forms/no-folder", "https://example.com/x"):
            with pytest.raises(MCPError) as refused:
                await read_directory(client, uri)
            assert refused.value.error.code == -32602, uri


def cli_json(dist: Path, *args: str) -> Any:
    done = CliRunner().invoke(main, [*args, "--json", "--dist", str(dist)])
    assert done.exit_code == 0, done.output
    return json.loads(done.output)


CALLS: list[tuple[str, dict[str, Any], Callable[[Path], Any] | None]] = [
    ("context", {}, None),
    ("search", {"query": "fill a pdf form", "limit": 3},
     lambda dist: cli_json(dist, "search", "fill a pdf form", "--limit", "3")),
    ("recommend", {"task": "fill a pdf form"}, None),
    ("open", {"ref": "pdf-forms"}, lambda dist: cli_json(dist, "open", "pdf-forms")),
    ("read", {"ref": "pdf-forms", "max_chars": 500}, None),
    ("related", {"ref": "pdf-forms"}, None),
    ("compose", {"ref": "pdf-forms"}, None),
    ("prompt", {"style": "markdown"}, None),
    ("use_skill", {"name": "pdf-forms"}, None),
    ("resolve", {"ref": "pr-review", "args": ["1234"]},
     lambda dist: cli_json(dist, "resolve", "pr-review", "1234")),
]


async def test_every_tool_declares_its_output_and_returns_it_structured(dist: Path,
                                                                         how: str) -> None:
    async with connected(dist, how) as client:
        schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}
        assert set(schemas) == {name for name, _, _ in CALLS}
        for name, arguments, cli in CALLS:
            result = await client.call_tool(name, arguments)
            assert not result.is_error, result
            structured = result.structured_content
            jsonschema.validate(structured, schemas[name])
            assert structured == json.loads(result.content[0].text)  # type: ignore[union-attr]
            if cli is not None and how != "http":
                assert structured == cli(dist), name


@pytest.mark.parametrize("tool,arguments,argument", [
    ("search", {"query": "pdf", "limit": 500}, "limit"),
    ("search", {"query": "x" * 5000}, "query"),
    ("read", {"ref": "pdf-forms", "section": {"heading": 1}}, "section"),
    ("read", {"ref": "pdf-forms", "max_chars": "many"}, "max_chars"),
    ("open", {}, "ref"),
    ("compose", {"ref": "pdf-forms", "limit": 0}, "limit"),
    ("prompt", {"style": "html"}, "style"),
    ("resolve", {"ref": "pr-review", "args": ["x"] * 51}, "args"),
    ("read", {"ref": "pdf-forms", "file": ""}, "file"),
])
async def test_bad_arguments_answer_with_the_readers_error_json(
        dist: Path, tool: str, arguments: dict[str, Any], argument: str) -> None:
    async with connected(dist, "direct") as client:
        result = await client.call_tool(tool, arguments)
        text = result.content[0].text  # type: ignore[union-attr]
        assert result.is_error
        shape = error_shape(text)
        assert shape["error"] == "invalid-argument" and argument in shape["message"]
        assert [p["argument"] for p in shape["arguments"]][0] == argument
        assert "pydantic" not in text and "https://" not in text and "x" * 300 not in text


async def test_bad_arguments_over_http(dist: Path) -> None:
    async with connected(dist, "http") as client:
        result = await client.call_tool("search", {"query": "pdf", "limit": 500})
        assert result.is_error
        assert error_shape(result.content[0].text)["error"] == "invalid-argument"  # type: ignore[union-attr]


async def test_the_markdown_preamble_names_a_tool_the_server_has(dist: Path,
                                                                 how: str) -> None:
    async with connected(dist, how) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        preamble = (await call(client, "prompt", style="markdown"))["text"]
        named = re.findall(r"call the `([a-z_]+)` tool", preamble)
        assert named and set(named) <= tools
        body = await call(client, named[0], name="pdf-forms")
        assert body["name"] == "pdf-forms" and body["text"]
