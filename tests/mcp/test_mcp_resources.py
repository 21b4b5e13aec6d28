"""Skill files as resources through the two templates: verbatim bytes, their own MIME
types, -32602 for anything that is not a file of a served skill."""
from __future__ import annotations

import base64
from pathlib import Path

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_helpers import REPO
from mcp_types import ResourceTemplateReference

from skillsite.mcp import create_server
from skillsite.mcp.skills import VIEW_KEY
from skillsite.reader import Library

pytestmark = pytest.mark.anyio
CORPUS = REPO / "corpus"


def raw(contents: object) -> bytes:
    text = getattr(contents, "text", None)
    return text.encode("utf-8") if text is not None else base64.b64decode(contents.blob)  # type: ignore[attr-defined]


@pytest.fixture(params=["direct", "legacy"])
def client(request: pytest.FixtureRequest, dist: Path) -> Client:
    server = create_server(Library(dist, max_skills=None, max_chars=None))
    return Client(server) if request.param == "direct" else Client(server, mode="legacy")


async def test_two_templates_skill_md_first_and_one_resource_per_skill(client: Client) -> None:
    async with client:
        templates = (await client.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["skill://{name}/SKILL.md",
                                                      "skill://{name}/{+path}"]
        listed = (await client.list_resources()).resources  # SKILL.md only, never files
        assert listed and all(r.uri.endswith("/SKILL.md") for r in listed)


@pytest.mark.parametrize("name,path,mime", [
    ("git-bisect", "skills/git-bisect/SKILL.md", "text/markdown"),
    ("pdf-forms", "skills/pdf-forms/scripts/list_fields.py", "text/x-python"),
    ("pdf-forms", "skills/pdf-forms/references/FORMS.md", "text/markdown"),
    ("git-bisect", "skills/git-bisect/scripts/bisect-test.sh", "text/x-sh"),
])
async def test_files_are_served_verbatim_with_their_own_type(client: Client, name: str,
                                                           path: str, mime: str) -> None:
    relative = path.split(f"{name}/", 1)[1]
    async with client:
        read = await client.read_resource(f"skill://{name}/{relative}")
    assert raw(read.contents[0]) == (CORPUS / path).read_bytes()
    assert read.contents[0].mime_type == mime


async def test_a_toml_skill_is_served_as_a_generated_skill_md(client: Client) -> None:
    async with client:
        read = await client.read_resource("skill://rnaseq-qc/SKILL.md")
        own = await client.read_resource("skill://rnaseq-qc/rnaseq-qc.skill.toml")
    content = read.contents[0]
    assert content.text.startswith("---\nname: ")  # type: ignore[union-attr]
    assert content.meta and content.meta[VIEW_KEY]
    assert raw(own.contents[0]) == (CORPUS / "oxo-flow/rnaseq-qc.skill.toml").read_bytes()


@pytest.mark.parametrize("uri", [
    "skill://no-such-skill/SKILL.md",
    "skill://pdf-forms/references/NOPE.md",
    "skill://pdf-forms/../../../etc/passwd",
    "skill://pdf-forms/%2e%2e/%2e%2e/etc/passwd",
    "skill://pdf-forms//etc/passwd",
    "skill://pdf-forms/a%00b",
    "other://pdf-forms/SKILL.md",
])
async def test_anything_else_is_invalid_params(client: Client, uri: str) -> None:
    async with client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource(uri)
        assert caught.value.error.code == -32602
        assert (await client.read_resource("skill://git-bisect/SKILL.md")).contents


async def test_files_count_against_the_budget(dist: Path) -> None:
    async with Client(create_server(Library(dist, max_skills=3, max_chars=None))) as client:
        for name in ("git-bisect", "pdf-forms", "sql-review"):
            await client.read_resource(f"skill://{name}/SKILL.md")
        with pytest.raises(MCPError) as caught:
            await client.read_resource("skill://pr-review/SKILL.md")
        assert caught.value.error.code == -32600
        assert caught.value.error.data["error"] == "budget-exceeded"
        assert (await client.read_resource("skill://pdf-forms/references/FORMS.md")).contents


async def test_a_template_name_completes_from_the_skill_names(client: Client) -> None:
    template = ResourceTemplateReference(type="ref/resource", uri="skill://{name}/SKILL.md")
    async with client:
        assert client.server_capabilities.completions is not None
        found = await client.complete(template, {"name": "name", "value": "pdf"})
        assert found.completion.values == ["pdf-forms"]
        every = await client.complete(template, {"name": "name", "value": ""})
        assert every.completion.values == sorted(every.completion.values)
        assert len(every.completion.values) == 19
        assert (await client.complete(template, {"name": "name", "value": "zzz"})
                ).completion.values == []
