"""The Agent Skills Discovery index (RFC v0.2.0) at /.well-known/agent-skills/."""
from __future__ import annotations

import hashlib
import io
import json
import re
import tarfile
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
NAME = re.compile(r"^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")


def _fetch(url: str) -> tuple[bytes, str]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read(), response.headers.get("Content-Type", "")


def test_index_validates_and_digests_match_served_bytes(base_url: str, site: Path) -> None:
    index_url = base_url + ".well-known/agent-skills/index.json"
    raw, content_type = _fetch(index_url)
    assert content_type.startswith("application/json")
    index = json.loads(raw)
    assert set(index) == {"$schema", "skills"}
    assert index["$schema"] == SCHEMA
    records = json.loads((site / "catalog.json").read_text())["skills"]
    # A plugin's skill (id toolbox:echo-tool, a name the index does not allow) is served
    # under the name its SKILL.md gives (echo-tool), the folder a client installs it in.
    catalog = {s["id"] if NAME.match(s["id"]) else s["name"]: s for s in records}
    assert {e["name"] for e in index["skills"]} == set(catalog)
    assert {"echo-tool", "zip-tool"} <= set(catalog)
    assert any(":" in s["id"] for s in records)
    for entry in index["skills"]:
        assert set(entry) == {"name", "type", "description", "url", "digest"}, entry
        assert NAME.match(entry["name"]) and entry["type"] in ("skill-md", "archive")
        assert entry["type"] != "task" and "sha256" not in entry
        assert DIGEST.match(entry["digest"]) and not entry["digest"].startswith("sha256-")
        assert len(entry["description"]) <= 1024
        assert entry["description"] == catalog[entry["name"]]["description"]
        served, _ = _fetch(urllib.request.urljoin(index_url, entry["url"]))
        assert entry["digest"] == "sha256:" + hashlib.sha256(served).hexdigest()


def test_types_follow_the_skill(site: Path) -> None:
    index = json.loads((site / ".well-known/agent-skills/index.json").read_text())
    kinds = {e["name"]: (e["type"], e["url"]) for e in index["skills"]}
    assert kinds["beta-check"] == ("skill-md", "beta-check/SKILL.md")     # only its SKILL.md
    assert kinds["alpha-guide"] == ("archive", "alpha-guide.tar.gz")      # has references/
    assert kinds["delta-notes"][0] == "skill-md"                          # virtual: generated
    generated = (site / ".well-known/agent-skills/delta-notes/SKILL.md").read_text()
    assert generated.startswith('---\nname: "delta-notes"\ndescription: "Write the release')
    assert '"source-format": "virtual"' in generated and "Group changes by kind." in generated


def test_archives_are_safe_and_reproducible(site: Path, tmp_path: Path,
                                            make_build: Callable[..., Any]) -> None:
    again = make_build(tmp_path).dist / "site"
    archives = sorted((site / ".well-known/agent-skills").glob("*.tar.gz"))
    assert archives
    for archive in archives:
        data = archive.read_bytes()
        assert data == (again / archive.relative_to(site)).read_bytes(), archive.name
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            members = tar.getmembers()
            names = [m.name for m in members]
            assert "SKILL.md" in names and names == sorted(names)
            for member in members:
                assert member.isfile() and not member.issym() and not member.islnk()
                assert ".." not in member.name.split("/") and not member.name.startswith("/")
                assert member.mtime == members[0].mtime
    index = (site / ".well-known/agent-skills/index.json").read_bytes()
    assert index == (again / ".well-known/agent-skills/index.json").read_bytes()
