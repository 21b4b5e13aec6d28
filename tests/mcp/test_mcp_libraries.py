"""Several libraries over MCP (``skillsite mcp --dist wiki=... --dist ops=...``), with the
real SDK client over stdio and streamable HTTP: search and recommend take ``library``,
every result names its library and carries an ``@<library>/<id>`` ref that the other tools
take, resources/list covers every library with unique URIs, and a damaged library is
refused by name while the other serves."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from mcp_helpers import call, error_shape, served, skills_list, tool_error
from mcp_types import ResourceTemplateReference

from skillsite.builder.pipeline import build

OPS = Path(__file__).resolve().parents[1] / "fixtures" / "ops-library"
TRANSPORTS = ["stdio", "http"]


@pytest.fixture(scope="module")
def ops_dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ops") / "dist"
    build(OPS, out)
    return out


@pytest.mark.anyio
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_two_libraries_with_filters_and_prefixed_refs(dist: Path, ops_dist: Path,
                                                            transport: str) -> None:
    async with served([f"wiki={dist}", f"ops={ops_dist}"], transport) as client:
        assert "@<library>/<id>" in (client.instructions or "")
        found = await call(client, "search", query="drain a kubernetes node", limit=5)
        assert found["libraries"] == ["wiki", "ops"]
        assert (found["results"][0]["ref"], found["results"][0]["library"]) == (
            "@ops/node-drain", "ops")
        assert {hit["library"] for hit in found["results"]} == {"wiki", "ops"}
        for library, expected in (("ops", {"ops"}), (["wiki"], {"wiki"}), ("*", {"wiki", "ops"})):
            listed = await call(client, "search", query="", limit=50, library=library)
            assert {hit["library"] for hit in listed["results"]} == expected
        recommended = await call(client, "recommend", task="fill a pdf form", library="ops")
        assert [hit["ref"] for hit in recommended["results"]][0] == "@ops/pdf-forms"

        opened = await call(client, "open", ref="@ops/pdf-forms")
        assert (opened["library"], opened["ref"]) == ("ops", "@ops/pdf-forms")
        passage = await call(client, "read", ref="@wiki/pdf-forms", file="references/FORMS.md")
        assert passage["library"] == "wiki" and passage["text"].startswith("# AcroForm")
        related = await call(client, "related", ref="@ops/node-drain")
        assert "@wiki/deploy-rollback" in {n["ref"] for n in related["results"]}
        assert (await call(client, "open", ref="kafka-lag"))["ref"] == "@ops/kafka-lag"
        ambiguous = error_shape(await tool_error(client, "open", ref="pdf-forms"))
        assert ambiguous["error"] == "ambiguous-name"
        assert ambiguous["candidates"] == ["@wiki/pdf-forms", "@ops/pdf-forms"]
        unknown = error_shape(await tool_error(client, "search", query="x", library="nope"))
        assert unknown["error"] == "invalid-argument" and "wiki, ops" in unknown["message"]
        context = await call(client, "context")
        assert [entry["library"] for entry in context["libraries"]] == ["wiki", "ops"]


@pytest.mark.anyio
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_resources_cover_every_library_with_unique_uris(dist: Path, ops_dist: Path,
                                                              transport: str) -> None:
    async with served([f"wiki={dist}", f"ops={ops_dist}"], transport) as client:
        uris: list[str] = []
        cursor = None
        while True:
            page = await client.list_resources(cursor=cursor)
            uris += [str(resource.uri) for resource in page.resources]
            cursor = page.next_cursor
            if not cursor:
                break
        assert len(uris) == len(set(uris)) == 19 + 3
        assert {"skill://@wiki/pdf-forms/SKILL.md", "skill://@ops/pdf-forms/SKILL.md"} <= set(uris)
        ops_text = (await client.read_resource("skill://@ops/pdf-forms/SKILL.md")).contents[0]
        wiki_text = (await client.read_resource("skill://@wiki/pdf-forms/SKILL.md")).contents[0]
        assert "ops team" in ops_text.text and "AcroForm" in wiki_text.text  # type: ignore[union-attr]
        forms = await client.read_resource("skill://@wiki/pdf-forms/references/FORMS.md")
        assert forms.contents[0].text.startswith("# AcroForm")  # type: ignore[union-attr]
        entries = (await skills_list(client))["skills"]
        listed = [entry["uri"] for entry in entries]
        assert len(listed) == len(set(listed))
        assert "skill://@ops/kafka-lag/SKILL.md" in listed


@pytest.mark.anyio
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_damaged_library_is_refused_while_the_other_serves(
        dist: Path, ops_dist: Path, tmp_path: Path, transport: str) -> None:
    bad = Path(shutil.copytree(ops_dist, tmp_path / "bad"))
    shard = next(p for p in sorted((bad / "content").glob("*.db")) if p.stat().st_size)
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0xFF  # the same size: only the server's hashing sees it
    shard.write_bytes(bytes(data))
    async with served([f"wiki={dist}", f"bad={bad}"], transport) as client:
        found = await call(client, "search", query="fill a pdf form")
        assert found["libraries"] == ["wiki"]
        assert found["results"][0]["ref"] == "@wiki/pdf-forms"
        [refusal] = found["refused"]
        assert (refusal["library"], refusal["error"]) == ("bad", "damaged-dist")
        assert "library 'bad' is refused" in refusal["message"]
        assert "rebuild" in refusal["message"]
        for tool, arguments in (("search", {"query": "pdf", "library": "bad"}),
                                ("open", {"ref": "@bad/kafka-lag"})):
            refused = error_shape(await tool_error(client, tool, **arguments))
            assert refused["error"] == "damaged-dist" and refused["library"] == "bad"
            assert "rebuild" in refused["message"]
        assert (await call(client, "open", ref="pdf-forms"))["ref"] == "@wiki/pdf-forms"
        uris = [str(r.uri) for r in (await client.list_resources()).resources]
        assert uris and all(uri.startswith("skill://@wiki/") for uri in uris)


@pytest.mark.anyio
async def test_a_template_name_completes_library_prefixes(dist: Path, ops_dist: Path) -> None:
    template = ResourceTemplateReference(type="ref/resource", uri="skill://{name}/SKILL.md")
    async with served([f"wiki={dist}", f"ops={ops_dist}"], "stdio") as client:
        async def complete(value: str) -> list[str]:
            found = await client.complete(template, {"name": "name", "value": value})
            return list(found.completion.values)

        ops = ["@ops/kafka-lag", "@ops/node-drain", "@ops/pdf-forms"]
        assert await complete("@o") == ops
        assert await complete("@ops/") == ops
        assert await complete("@ops/pdf") == ["@ops/pdf-forms"]
        assert await complete("@ops/node") == ["@ops/node-drain"]
        wiki = await complete("@w")
        assert len(wiki) == 19 and all(value.startswith("@wiki/") for value in wiki)
        assert await complete("@") == sorted(ops + wiki)
        assert await complete("pdf") == ["@ops/pdf-forms", "@wiki/pdf-forms"]
        assert await complete("pd") == ["@ops/pdf-forms", "@wiki/pdf-forms"]
        assert await complete("kaf") == ["@ops/kafka-lag"]
        assert await complete("@nope/") == [] and await complete("@x") == []
        for value in await complete("@ops/"):  # each one names its SKILL.md
            assert (await client.read_resource(f"skill://{value}/SKILL.md")).contents
