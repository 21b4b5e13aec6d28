"""Issue #19: every skill a client would load has an id and reaches dist/ - plugin
namespaces, collections, byte-identical copies, git provenance - and every face resolves
it by id or by an unambiguous bare name."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillsite.builder.pipeline import build
from skillsite.cli import main
from skillsite.reader import Library, ReaderError

ACCESS_TG = "Manage the telegram access allowlist for who may message you. Use when pairing."
ACCESS_DC = "Manage the discord access list of channels. Use when pairing a server."


def skill(name: str, description: str, body: str = "# Body\n\nText.\n") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}"


def write(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def marketplace(root: Path, plugins: list[dict[str, object]] | str) -> None:
    text = plugins if isinstance(plugins, str) else json.dumps(
        {"name": "market", "owner": {"name": "Acme"}, "plugins": plugins})
    write(root, {".claude-plugin/marketplace.json": text})


@pytest.fixture
def market(tmp_path: Path) -> Path:
    """A marketplace with two local plugins that share skill names, and a remote one."""
    root = write(tmp_path / "market", {
        "plugins/telegram/skills/access/SKILL.md": skill("access", ACCESS_TG),
        "plugins/telegram/skills/configure/SKILL.md": skill(
            "configure", "Configure the telegram bot token. Use when setting up telegram."),
        "plugins/discord/.claude-plugin/plugin.json": json.dumps(
            {"name": "discord", "version": "2.0.0", "author": {"name": "Dee"},
             "keywords": ["chat"]}),
        "plugins/discord/skills/access/SKILL.md": skill("access", ACCESS_DC),
        "plugins/discord/skills/configure/SKILL.md": skill(
            "configure", "Configure the discord bot. Use when setting up discord."),
        "skills/standalone/SKILL.md": skill("standalone", "A plain skill. Use when testing."),
    })
    marketplace(root, [
        {"name": "telegram", "source": "./plugins/telegram", "description": "Telegram",
         "category": "chat", "keywords": ["tg"], "homepage": "https://example.org/tg"},
        {"name": "discord", "source": "./plugins/discord"},
        {"name": "remote", "source": {"source": "github", "repo": "acme/remote"},
         "description": "Listed, never fetched"}])
    return root


def catalog(dist: Path) -> dict[str, object]:
    return json.loads((dist / "catalog.json").read_text(encoding="utf-8"))


def ids(dist: Path) -> list[str]:
    return [s["id"] for s in catalog(dist)["skills"]]  # type: ignore[index]


def test_plugins_namespace_their_skills_as_claude_code_does(market: Path, tmp_path: Path) -> None:
    result = build(market, tmp_path / "dist")
    assert ids(tmp_path / "dist") == ["discord:access", "discord:configure", "telegram:access",
                                      "telegram:configure", "standalone"]
    assert "duplicate-name" not in {p.rule for p in result.problems}
    plugins = {p["name"]: p for p in catalog(tmp_path / "dist")["plugins"]}  # type: ignore[index, union-attr]
    assert plugins["telegram"]["category"] == "chat" and plugins["telegram"]["skills"] == 2
    assert plugins["telegram"]["homepage"] == "https://example.org/tg"
    assert plugins["discord"]["version"] == "2.0.0" and plugins["discord"]["author"] == "Dee"
    assert plugins["remote"] == {"name": "remote", "collection": "", "skills": 0,
                                 "source": "github:acme/remote",
                                 "description": "Listed, never fetched",
                                 "marketplace": "market"}
    assert plugins["telegram"]["marketplace"] == "market"     # /plugin install telegram@market


def test_search_filters_and_ranks_by_plugin(market: Path, tmp_path: Path) -> None:
    build(market, tmp_path / "dist")
    library = Library(tmp_path / "dist")
    first = library.search("telegram access allowlist").results[0]
    assert (first.id, first.name) == ("telegram:access", "access")
    only = library.search("access", plugin="discord").results
    assert [hit.id for hit in only] == ["discord:access"]
    context = library.context()
    assert {p["name"] for p in context.plugins} == {"telegram", "discord", "remote"}


@pytest.mark.parametrize("ref", ["telegram:access", "skill:telegram:access"])
def test_open_read_related_by_id(market: Path, tmp_path: Path, ref: str) -> None:
    build(market, tmp_path / "dist")
    library = Library(tmp_path / "dist")
    info = library.open(ref)
    assert (info.id, info.name, info.plugin) == ("telegram:access", "access", "telegram")
    assert "Text." in library.read(ref).text
    related = library.related(ref)
    assert (related.id, related.name) == ("telegram:access", "access")


def test_a_bare_name_resolves_when_unique_and_lists_the_ids_when_not(market: Path,
                                                                       tmp_path: Path) -> None:
    build(market, tmp_path / "dist")
    library = Library(tmp_path / "dist")
    assert library.open("standalone").id == "standalone"
    for operation in (library.open, library.read, library.related):
        with pytest.raises(ReaderError) as error:
            operation("access")
        assert error.value.code == "ambiguous-name"
        assert error.value.details["candidates"] == ["discord:access", "telegram:access"]
    done = CliRunner().invoke(main, ["open", "configure", "--dist", str(tmp_path / "dist")])
    assert done.exit_code == 2
    assert "discord:configure, telegram:configure" in done.output


def test_a_duplicate_name_inside_one_plugin_is_still_an_error(market: Path,
                                                              tmp_path: Path) -> None:
    write(market, {"plugins/telegram/skills/access-two/SKILL.md": skill("access", ACCESS_TG)})
    result = build(market, tmp_path / "dist")
    found = [p for p in result.problems if p.rule == "duplicate-name"]
    assert [p.path for p in found] == ["plugins/telegram/skills/access/SKILL.md"]
    assert "plugin 'telegram'" in found[0].message
    assert "plugins/telegram/skills/access/SKILL.md" in result.excluded  # shadowed, not silent


def test_a_damaged_marketplace_is_a_located_problem_and_the_skills_build(market: Path,
                                                                         tmp_path: Path) -> None:
    marketplace(market, '{"name": "market",\n  "plugins": [oops]}')
    result = build(market, tmp_path / "dist")
    broken = [p for p in result.problems if p.rule == "plugin-manifest-invalid"]
    assert [(p.path, p.line) for p in broken] == [(".claude-plugin/marketplace.json", 2)]
    # discord still has its plugin.json; telegram, listed only there, is plain now
    assert "discord:access" in ids(tmp_path / "dist") and "access" in ids(tmp_path / "dist")
    write(market, {"plugins/discord/.claude-plugin/plugin.json": "[1, 2"})
    result = build(market, tmp_path / "dist")
    assert "plugins/discord/.claude-plugin/plugin.json" in {
        p.path for p in result.problems if p.rule == "plugin-manifest-invalid"}
    assert "discord:access" in ids(tmp_path / "dist")  # the folder's name stands in


def test_mcp_resources_by_id_and_bare_name(market: Path, tmp_path: Path) -> None:
    import anyio
    from mcp import Client
    from mcp.shared.exceptions import MCPError

    from skillsite.mcp import create_server

    build(market, tmp_path / "dist")

    async def run() -> None:
        server = create_server(Library(tmp_path / "dist", max_skills=None, max_chars=None))
        async with Client(server) as client:
            read = await client.read_resource("skill://telegram/access/SKILL.md")
            assert "telegram access allowlist" in read.contents[0].text  # type: ignore[union-attr]
            read = await client.read_resource("skill://standalone/SKILL.md")
            assert "plain skill" in read.contents[0].text  # type: ignore[union-attr]
            with pytest.raises(MCPError) as error:
                await client.read_resource("skill://access/SKILL.md")
            assert "discord:access, telegram:access" in error.value.error.message

    anyio.run(run)


def test_mcp_completes_a_template_name_to_ids(market: Path, tmp_path: Path) -> None:
    import anyio
    from mcp import Client
    from mcp_types import ResourceTemplateReference

    from skillsite.mcp import create_server

    build(market, tmp_path / "dist")
    template = ResourceTemplateReference(type="ref/resource", uri="skill://{name}/SKILL.md")

    async def run() -> None:
        async with Client(create_server(Library(tmp_path / "dist"))) as client:
            async def complete(value: str) -> list[str]:
                found = await client.complete(template, {"name": "name", "value": value})
                return list(found.completion.values)

            assert await complete("tele") == ["telegram:access", "telegram:configure"]
            assert await complete("access") == ["discord:access", "telegram:access"]
            # a bare name's first letters, as typed (search matches whole words only)
            assert await complete("acc") == ["discord:access", "telegram:access"]
            assert await complete("conf") == ["discord:configure", "telegram:configure"]
            assert await complete("stand") == ["standalone"]
            for value in await complete(""):  # each one names its SKILL.md
                assert (await client.read_resource(f"skill://{value}/SKILL.md")).contents

    anyio.run(run)


def test_two_repositories_under_one_root_and_a_byte_identical_copy(tmp_path: Path) -> None:
    root = tmp_path / "clones"
    text = skill("pdf", "Fill PDF forms. Use when a form must be filled.")
    write(root, {"anthropic/skills/pdf/SKILL.md": text, "aggregator/pdf/SKILL.md": text,
                 "aggregator/other/SKILL.md": skill("other", "Other. Use when testing.")})
    for repo in ("anthropic", "aggregator"):
        _git(root / repo, "init", "-q")
    result = build(root, tmp_path / "dist")
    assert "duplicate-name" not in {p.rule for p in result.problems}
    records = {s["id"]: s for s in catalog(tmp_path / "dist")["skills"]}  # type: ignore[index, union-attr]
    assert set(records) == {"aggregator/other", "aggregator/pdf", "anthropic/pdf"}
    assert records["aggregator/pdf"]["copies"] == ["anthropic/pdf"]
    assert records["anthropic/pdf"]["copies"] == ["aggregator/pdf"]
    assert "copies" not in records["aggregator/other"]
    library = Library(tmp_path / "dist")
    assert library.open("anthropic/pdf").copies == ("aggregator/pdf",)
    assert library.open("other").collection == "aggregator"
    assert [hit.id for hit in library.search("pdf", collection="anthropic").results] == \
        ["anthropic/pdf"]
    with pytest.raises(ReaderError, match="aggregator/pdf, anthropic/pdf"):
        library.open("pdf")


def _git(folder: Path, *args: str, when: int | None = None) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"@{when} +0000"
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", *args], cwd=folder, check=True, env=env, capture_output=True)


def _head(folder: Path) -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=folder, check=True,
                          capture_output=True, text=True).stdout.strip()


def test_git_links_and_last_changed_times(tmp_path: Path) -> None:
    root = tmp_path / "clones"
    for repo, remote in (("https-repo", "https://user:secret@github.com/acme/https-repo.git"),
                         ("ssh-repo", "git@github.com:acme/ssh-repo.git")):
        folder = root / repo
        write(folder, {"skills/one/SKILL.md": skill("one", "One. Use when testing."),
                       "skills/two/SKILL.md": skill("two", "Two. Use when testing.")})
        _git(folder, "init", "-q")
        _git(folder, "remote", "add", "origin", remote)
        _git(folder, "add", "-A")
        _git(folder, "commit", "-qm", "first", when=1_700_000_000)
        write(folder, {"skills/two/SKILL.md": skill("two", "Two, changed. Use when testing.")})
        _git(folder, "commit", "-qam", "second", when=1_700_086_400)
    build(root, tmp_path / "dist")
    records = {s["id"]: s for s in catalog(tmp_path / "dist")["skills"]}  # type: ignore[index, union-attr]
    head = _head(root / "https-repo")
    assert records["https-repo/one"]["source_url"] == \
        f"https://github.com/acme/https-repo/blob/{head}/skills/one/SKILL.md"
    assert records["ssh-repo/two"]["source_url"] == \
        f"https://github.com/acme/ssh-repo/blob/{_head(root / 'ssh-repo')}/skills/two/SKILL.md"
    assert records["https-repo/one"]["changed"] == "2023-11-14T22:13:20Z"
    assert records["https-repo/two"]["changed"] == "2023-11-15T22:13:20Z"
    manifest = json.loads((tmp_path / "dist/manifest.json").read_text())
    repos = {r["folder"]: r for r in manifest["repositories"]}
    assert repos["https-repo"]["commit"] == head and repos["https-repo"]["modified"] is False
    assert repos["https-repo"]["web_url"] == "https://github.com/acme/https-repo"
    assert "secret" not in (tmp_path / "dist/manifest.json").read_text()
    assert Library(tmp_path / "dist").open("ssh-repo/one").changed == "2023-11-14T22:13:20Z"
    write(root / "ssh-repo", {"skills/one/SKILL.md": skill("one", "Edited. Use when testing.")})
    build(root, tmp_path / "dist")
    manifest = json.loads((tmp_path / "dist/manifest.json").read_text())
    assert {r["folder"]: r["modified"] for r in manifest["repositories"]} == \
        {"https-repo": False, "ssh-repo": True}


def test_git_never_runs_a_program_the_corpus_repository_configures(tmp_path: Path) -> None:
    """A repository's own config names a signature-verifying program and asks `log` to use
    it on a (fake) signed commit: building must not run it."""
    repo, marker = tmp_path / "repo", tmp_path / "ran"
    write(repo, {"skills/one/SKILL.md": skill("one", "One. Use when testing.")})
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "first", when=1_700_000_000)
    tree = subprocess.run(["git", "rev-parse", "HEAD^{tree}"], cwd=repo, check=True,
                          capture_output=True, text=True).stdout.strip()
    signed = (f"tree {tree}\nauthor t <t@e> 1700000000 +0000\n"
              "committer t <t@e> 1700000000 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n"
              " AAAA\n -----END PGP SIGNATURE-----\n\nsigned\n")
    commit = subprocess.run(["git", "hash-object", "-t", "commit", "-w", "--stdin"], cwd=repo,
                            input=signed, check=True, capture_output=True, text=True)
    _git(repo, "update-ref", "HEAD", commit.stdout.strip())
    program = tmp_path / "verify.sh"
    program.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    program.chmod(0o755)
    _git(repo, "config", "log.showSignature", "true")
    _git(repo, "config", "gpg.program", str(program))
    subprocess.run(["git", "log", "-1"], cwd=repo, capture_output=True)
    assert marker.exists(), "the fixture must make plain git run the program"
    marker.unlink()
    build(repo, tmp_path / "dist")
    assert not marker.exists()
    records = catalog(tmp_path / "dist")["skills"]  # type: ignore[index]
    assert records[0]["changed"] == "2023-11-14T22:13:20Z"  # type: ignore[index]


def test_forges_and_a_source_url_template() -> None:
    from skillsite.builder.provenance import web_links

    assert web_links("ssh://git@gitlab.com/group/sub/proj.git") == (
        "https://gitlab.com/group/sub/proj",
        "https://gitlab.com/group/sub/proj/-/blob/{commit}/{path}")
    assert web_links("git@bitbucket.org:team/repo.git")[0] == "https://bitbucket.org/team/repo"
    assert web_links("https://codeberg.org/o/r")[1] == \
        "https://codeberg.org/o/r/src/commit/{commit}/{path}"
    assert web_links("https://git.example.com/o/r.git") == ("", "")
    assert web_links("/srv/git/local.git") == ("", "")


def test_a_source_url_template_covers_other_hosts(tmp_path: Path) -> None:
    from skillsite.config import Config

    root = write(tmp_path / "repo", {"skills/one/SKILL.md": skill("one", "One. Use when testing.")})
    _git(root, "init", "-q")
    _git(root, "remote", "add", "origin", "https://git.example.com/o/r.git")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "first")
    build(root, tmp_path / "dist",
          config=Config(source_url="https://git.example.com/{path}?at={commit}"))
    record = catalog(tmp_path / "dist")["skills"][0]  # type: ignore[index]
    assert record["source_url"] == f"https://git.example.com/skills/one/SKILL.md?at={_head(root)}"


def test_a_damaged_git_warns_and_the_corpus_still_builds(tmp_path: Path) -> None:
    root = write(tmp_path / "repo", {"skills/one/SKILL.md": skill("one", "One. Use when testing.")})
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("garbage\n")
    result = build(root, tmp_path / "dist")
    assert [(p.path, p.rule, p.severity) for p in result.problems
            if p.rule == "git-unreadable"] == [(".git", "git-unreadable", "warning")]
    assert ids(tmp_path / "dist") == ["one"]
    assert "source_url" not in catalog(tmp_path / "dist")["skills"][0]  # type: ignore[index]


def test_without_git_there_is_no_link_and_the_mtime_stays(tmp_path: Path) -> None:
    root = write(tmp_path / "plain", {"skills/one/SKILL.md": skill("one", "One. Use when testing.")})
    os.utime(root / "skills/one/SKILL.md", (1_600_000_000, 1_600_000_000))
    result = build(root, tmp_path / "dist", site=True)
    assert not [p for p in result.problems if p.rule == "git-unreadable"]
    record = catalog(tmp_path / "dist")["skills"][0]  # type: ignore[index]
    assert "source_url" not in record and "changed" not in record
    assert json.loads((tmp_path / "dist/manifest.json").read_text())["repositories"] == []
    assert Library(tmp_path / "dist").open("one").source_url is None


def test_a_skill_md_without_a_name_falls_back_to_its_folder(tmp_path: Path) -> None:
    root = write(tmp_path / "c", {"skills/folder-named/SKILL.md":
                                  "---\ndescription: No name here. Use when testing.\n---\n# X\n",
                                  "skills/broken/SKILL.md": "no front matter at all\n"})
    done = CliRunner().invoke(main, ["build", str(root), "-o", str(tmp_path / "dist"),
                                     "--no-site"])
    assert done.exit_code == 0, done.output
    assert ids(tmp_path / "dist") == ["folder-named"]
    assert "Not readable as skills: 1 file(s): skills/broken/SKILL.md" in done.output


def test_an_incremental_build_sees_a_new_or_edited_plugin_manifest(tmp_path: Path) -> None:
    root = write(tmp_path / "c", {"plugins/x/skills/a/SKILL.md": skill("a", "A. Use when testing."),
                                  "plugins/y/skills/b/SKILL.md": skill("b", "B. Use when testing.")})
    dist = tmp_path / "dist"
    build(root, dist)
    assert ids(dist) == ["a", "b"]
    marketplace(root, [{"name": "x", "source": "./plugins/x"}])
    build(root, dist)
    assert ids(dist) == ["x:a", "b"]
    write(root, {"plugins/y/.claude-plugin/plugin.json": '{"name": "why"}'})
    build(root, dist)
    assert ids(dist) == ["x:a", "why:b"]
    write(root, {"plugins/y/.claude-plugin/plugin.json": '{"name": "zed"}'})
    build(root, dist)
    assert ids(dist) == ["x:a", "zed:b"]
