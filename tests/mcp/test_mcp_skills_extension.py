"""The SEP-2640 skills extension against its rules: the capability, paginated skills/list
with ttlMs and cacheScope, verbatim front matter, digests and sizes that match the bytes
resources/read serves, and -32602 for anything that is not a served skill."""
from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_helpers import REPO, skills_get, skills_list

from skillsite.builder.pipeline import build
from skillsite.mcp import create_server
from skillsite.mcp.skills import IDENTIFIER, VIEW_KEY
from skillsite.reader import Library

pytestmark = pytest.mark.anyio
AGENT_SKILLS_NAMES = {"flaky-test-hunter", "pr-review", "k8s-rollout-debug",
                      "terraform-plan-review", "certcheck", "rnaseq-qc",
                      "single-cell-clustering", "variant-annotation", "changelog-writer",
                      "git-bisect", "pdf-forms", "sql-review", "deploy-rollback",
                      "incident-triage", "log-search", "postmortem-draft"}


@pytest.fixture(params=["direct", "legacy"])
def client(request: pytest.FixtureRequest, dist: Path) -> Client:
    server = create_server(Library(dist, max_skills=None, max_chars=None), page_size=5)
    return Client(server) if request.param == "direct" else Client(server, mode="legacy")


async def every_entry(client: Client) -> list[dict[str, Any]]:
    entries, cursor, pages = [], None, 0
    while True:
        page = await skills_list(client, cursor)
        assert page["resultType"] == "complete"
        assert page["cacheScope"] == "public" and page["ttlMs"] >= 3_600_000
        assert len(page["skills"]) <= 5
        entries += page["skills"]
        pages += 1
        cursor = page.get("nextCursor")
        if not cursor:
            assert pages > 1, "a single page: pagination is untested"
            return entries


def front_matter(text: str) -> Any:
    """The YAML front matter as JSON holds it (a YAML date becomes its ISO text)."""
    data = yaml.safe_load(text.split("---\n", 2)[1])
    return json.loads(json.dumps(data, default=lambda value: value.isoformat()))


async def read_bytes(client: Client, uri: str) -> bytes:
    content = (await client.read_resource(uri)).contents[0]
    text = getattr(content, "text", None)
    return text.encode("utf-8") if text is not None else base64.b64decode(content.blob)  # type: ignore[union-attr]


async def test_the_extension_and_resources_are_declared(client: Client) -> None:
    async with client:
        capabilities = client.server_capabilities
        assert capabilities.resources is not None
        declared = {**(capabilities.extensions or {}), **(capabilities.experimental or {})}
        assert declared.get(IDENTIFIER) == {"directoryRead": True}


async def test_the_listing_pages_through_every_skill_once(client: Client) -> None:
    async with client:
        entries = await every_entry(client)
    uris = [entry["uri"] for entry in entries]
    assert len(uris) == len(set(uris))
    assert {uri.split("/")[2] for uri in uris} == AGENT_SKILLS_NAMES


async def test_entries_match_the_bytes_served(client: Client) -> None:
    async with client:
        for entry in await every_entry(client):
            name = entry["uri"].removeprefix("skill://").removesuffix("/SKILL.md")
            assert entry["frontmatter"]["name"] == name
            assert entry["uri"] in [r["uri"] for r in entry["resources"]]
            for resource in entry["resources"]:
                data = await read_bytes(client, resource["uri"])
                assert resource["size"] == len(data), resource["uri"]
                assert resource["digest"] == "sha256:" + hashlib.sha256(data).hexdigest()
            skill_md = (await read_bytes(client, entry["uri"])).decode("utf-8")
            assert entry["frontmatter"] == front_matter(skill_md), name


async def test_front_matter_is_verbatim_and_generated_views_say_so(client: Client) -> None:
    async with client:
        real = (await skills_get(client, "skill://pdf-forms/SKILL.md"))["skill"]
        view = (await skills_get(client, "skill://variant-annotation/SKILL.md"))["skill"]
    written = (REPO / "corpus/skills/pdf-forms/SKILL.md").read_text(encoding="utf-8")
    assert real["frontmatter"] == front_matter(written)
    assert VIEW_KEY not in real.get("_meta", {})
    assert view["_meta"][VIEW_KEY]
    files = [r["uri"] for r in view["resources"]]
    assert "skill://variant-annotation/variant-annotation.skill.toml" in files


async def test_get_returns_the_listed_entry(client: Client) -> None:
    async with client:
        listed = (await every_entry(client))[0]
        got = await skills_get(client, listed["uri"])
    assert got["skill"] == listed
    assert got["resultType"] == "complete" and got["cacheScope"] == "public"
    assert "nextCursor" not in got


@pytest.mark.parametrize("uri", ["skill://no-such-skill/SKILL.md",
                                 "skill://pdf-forms/references/FORMS.md",
                                 "skill://pdf-forms", "skill://disk_usage/SKILL.md",
                                 "skill://../SKILL.md", "file:///etc/passwd", "",
                                 "skill://" + "x" * 100_000 + "/SKILL.md"])
async def test_anything_but_a_served_skill_is_invalid_params(client: Client, uri: str) -> None:
    async with client:
        with pytest.raises(MCPError) as caught:
            await skills_get(client, uri)
        assert caught.value.error.code == -32602
        assert len(caught.value.error.message) < 400
        with pytest.raises(MCPError) as caught:
            await skills_list(client, "not-a-cursor")
        assert caught.value.error.code == -32602
        assert (await skills_list(client))["skills"]


ODD_FILES: dict[str, bytes] = {
    "SKILL.md": b"---\nname: odd-names\ndescription: Files with odd names. Use it to test URIs."
                b"\nallowed-tools: Read Grep\nmetadata:\n  owner: \"x: y\"\n  reviewed: 2024-01-05"
                b"\n---\n# Odd\n",
    "references/my notes.md": b"a space\n", "assets/a#b.md": b"a hash\n",
    "assets/\u00fc.md": b"not ascii\n", "assets/100%.md": b"a percent\n",
    "assets/a+b.md": b"a plus\n", "assets/blob.bin": b"\x00\x01\xff\xfe",
}


@pytest.fixture(scope="module")
def odd_dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("odd")
    for path, data in ODD_FILES.items():
        target = root / "corpus" / "odd-names" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    build(root / "corpus", root / "dist")
    return root / "dist"


async def test_odd_file_names_get_uris_that_read_back(odd_dist: Path) -> None:
    server = create_server(Library(odd_dist, max_skills=None, max_chars=None))
    async with Client(server) as client:
        entry = (await skills_get(client, "skill://odd-names/SKILL.md"))["skill"]
        assert entry["frontmatter"] == front_matter(ODD_FILES["SKILL.md"].decode())
        assert len(entry["resources"]) == len(ODD_FILES)
        for resource in entry["resources"]:
            assert resource["uri"].isascii() and not {" ", "#"} & set(resource["uri"])
            data = await read_bytes(client, resource["uri"])
            assert resource["digest"] == "sha256:" + hashlib.sha256(data).hexdigest()
        blob = (await client.read_resource("skill://odd-names/assets/blob.bin")).contents[0]
        assert blob.mime_type == "application/octet-stream"
