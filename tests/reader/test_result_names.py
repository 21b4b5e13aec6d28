"""Every result that names a skill carries ``id`` (what open and read take) and ``name``
(the bare name, the id without its collection and plugin), in the Python API, in
``--json`` and over MCP (a real SDK client), and its ``outputSchema`` requires both; the
``id``, the ``ref`` and a bare name that only one skill has are all taken back by open."""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner

from skillsite.builder.pipeline import build
from skillsite.cli import main
from skillsite.reader import Library, ReaderError

CORPUS = {
    "plugins/telegram/.claude-plugin/plugin.json": '{"name": "telegram"}',
    "plugins/telegram/skills/access/SKILL.md":
        "---\nname: access\ndescription: Manage the telegram access allowlist of who may "
        "message the bot. Use when pairing a telegram account.\n---\n# Access\n\nEdit the "
        "telegram allowlist, then pair the account.\n",
    "plugins/telegram/wiki/onboarding.md":
        "---\ntype: skill\nname: onboarding\ndescription: Onboard a telegram user, pair the "
        "account and grant access. Use when a new user joins.\ndepends_on:\n  - "
        "\"telegram:access\"\n---\n# Onboarding\n\nPair the telegram account, then edit the "
        "allowlist.\n",
    "plugins/discord/.claude-plugin/plugin.json": '{"name": "discord"}',
    "plugins/discord/skills/access/SKILL.md":
        "---\nname: access\ndescription: Manage the discord access allowlist of channels. "
        "Use when pairing a discord server.\n---\n# Access\n\nEdit the discord allowlist.\n",
}
BARE = {"telegram:access": "access", "discord:access": "access",
        "telegram:onboarding": "onboarding"}
#: Each operation's call, as Python (method, args), the CLI and the MCP tool.
CALLS: list[tuple[str, tuple[Any, ...], list[str], dict[str, Any]]] = [
    ("search", ("telegram allowlist",), ["search", "telegram allowlist"],
     {"query": "telegram allowlist"}),
    ("recommend", ("pair a telegram account",), ["recommend", "pair a telegram account"],
     {"task": "pair a telegram account"}),
    ("open", ("telegram:access",), ["open", "telegram:access"], {"ref": "telegram:access"}),
    ("read", ("telegram:access",), ["read", "telegram:access"], {"ref": "telegram:access"}),
    ("resolve", ("telegram:access",), ["resolve", "telegram:access"],
     {"ref": "telegram:access"}),
    ("related", ("telegram:access",), ["related", "telegram:access"],
     {"ref": "telegram:access"}),
    ("compose", ("onboarding",), ["compose", "onboarding"], {"ref": "onboarding"}),
]


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("names")
    for relative, text in CORPUS.items():
        path = base / "corpus" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    build(base / "corpus", base / "dist")
    return base / "dist"


def skills_named(shape: Any) -> Iterator[dict[str, Any]]:
    """Every object of a result that names a skill: each one with a ``ref``, but for a
    file reference (``{baseDir}/...`` in a passage)."""
    if isinstance(shape, dict):
        if "ref" in shape and "exists" not in shape:  # a FileRef names a file
            yield shape
        for value in shape.values():
            yield from skills_named(value)
    elif isinstance(shape, list):
        for value in shape:
            yield from skills_named(value)


def check_names(operation: str, shape: dict[str, Any]) -> int:
    found = list(skills_named(shape))
    for named in found:
        assert named.get("id") in BARE, (operation, named)
        assert named["name"] == BARE[named["id"]], (operation, named)
    return len(found)


def test_every_result_carries_the_id_and_the_bare_name(dist: Path) -> None:
    library = Library(dist)
    counts = {}
    for operation, args, _, _ in CALLS:
        shape = getattr(library, operation)(*args).to_dict()
        counts[operation] = check_names(operation, shape)
    # the nested skills too: candidates, neighbours and prerequisites
    assert counts["search"] >= 2 and counts["related"] >= 2 and counts["compose"] == 2
    onboarding = library.compose("onboarding")
    assert (onboarding.id, onboarding.name) == ("telegram:onboarding", "onboarding")
    assert [(c.id, c.name) for c in onboarding.depends_on] == [("telegram:access", "access")]


def test_open_and_read_take_back_the_id_the_ref_and_an_unambiguous_name(dist: Path) -> None:
    library = Library(dist)
    for operation, args, _, _ in CALLS:
        for named in skills_named(getattr(library, operation)(*args).to_dict()):
            assert library.open(named["id"]).id == named["id"]
            assert library.read(named["ref"], max_chars=200).id == named["id"]
            if named["name"] == "onboarding":
                assert library.open(named["name"]).id == named["id"]
            else:  # two plugins have an 'access': the name alone lists their ids
                with pytest.raises(ReaderError) as error:
                    library.open(named["name"])
                assert error.value.details["candidates"] == ["discord:access",
                                                             "telegram:access"]


def test_the_json_of_the_cli_is_the_same(dist: Path) -> None:
    library = Library(dist)
    for operation, args, command, _ in CALLS:
        done = CliRunner().invoke(main, [*command, "--dist", str(dist), "--json"])
        assert done.exit_code == 0, done.output
        shape = json.loads(done.stdout)
        check_names(operation, shape)
        assert shape == getattr(library, operation)(*args).to_dict()


def schema_objects(schema: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    yield schema.get("title", ""), schema
    yield from schema.get("$defs", {}).items()


def test_over_mcp_every_tool_declares_and_returns_the_id_and_the_name(dist: Path) -> None:
    from mcp import Client

    from skillsite.mcp import create_server

    async def run() -> None:
        async with Client(create_server(Library(dist))) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            naming = set()
            for tool in tools.values():
                for title, definition in schema_objects(tool.output_schema or {}):
                    if "ref" in definition.get("properties", {}) and title != "FileRef":
                        assert {"id", "name"} <= set(definition.get("required", ())), (
                            tool.name, title)
                        naming.add(title)
            assert naming >= {"Candidate", "SkillInfo", "Passage", "Resolved", "Related",
                              "Neighbour", "Composition", "Compact"}
            for operation, _, _, arguments in CALLS:
                result = await client.call_tool(operation, arguments)
                assert not result.is_error, result
                check_names(operation, result.structured_content or {})
            used = await client.call_tool("use_skill", {"name": "onboarding"})
            assert (used.structured_content or {})["id"] == "telegram:onboarding"
            assert (used.structured_content or {})["name"] == "onboarding"

    anyio.run(run)
