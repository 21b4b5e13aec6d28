"""Generated corpora on disk: a dict from a path (relative to the corpus root) to bytes
or a symlink, written in a chosen order; and valid skills whose metadata is known."""
from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from fuzzkit import json_text, markdown_body, skill_md_text, toml_text
from hypothesis import strategies as st


@dataclass(frozen=True)
class Link:
    target: str


Content = bytes | Link


def write(root: Path, files: Mapping[str, Content], order: list[str] | None = None) -> Path:
    """Create ``files`` under ``root`` in ``order`` (default: as given)."""
    for rel in order or list(files):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        content = files[rel]
        if isinstance(content, Link):
            os.symlink(content.target, path)
        else:
            path.write_bytes(content)
    return root


# -- valid skills with known metadata -----------------------------------------------------

#: Text a loader returns exactly as written: no control or line-separator characters
#: (YAML folds those into spaces), no surrogates.
clean_text = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp", "Co", "Cn")),
                     min_size=1, max_size=120).filter(lambda s: s.strip() != "")
md_name = st.from_regex(r"[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,4}){0,2}", fullmatch=True)
json_name = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
tags = st.lists(st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True), max_size=3,
                unique=True)


@dataclass(frozen=True)
class Valid:
    """A valid skill: its files and the catalog record (less sha256) it must produce."""

    files: dict[str, bytes]
    record: dict[str, Any]
    data: dict[str, Any]   # the front matter / manifest as written


def _front_matter(data: dict[str, Any], flow: bool) -> str:
    if flow:  # one JSON-quoted value per line: JSON strings are YAML double-quoted scalars
        return "".join(f"{k}: {json.dumps(v, ensure_ascii=False)}\n" for k, v in data.items())
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)


@st.composite
def valid_skill(draw: st.DrawFn, name: str, earlier_pages: list[str]) -> Valid:
    kind = draw(st.sampled_from(["skill-md", "skill-md", "skill-toml", "skill-json",
                                 "virtual"]))
    description = draw(clean_text)
    if kind == "skill-md":
        data: dict[str, Any] = {"name": name, "description": description}
        if draw(st.booleans()):
            data["metadata"] = draw(st.dictionaries(
                st.from_regex(r"[a-z][a-z0-9_-]{0,8}", fullmatch=True), clean_text,
                max_size=3))
        if draw(st.booleans()):
            data["license"] = draw(st.sampled_from(["MIT", "Apache-2.0", "LICENSE.txt"]))
        version = data.get("metadata", {}).get("version")
        text = "---\n" + _front_matter(data, draw(st.booleans())) + "---\n" + draw(
            markdown_body().filter(lambda b: "](" not in b and "]:" not in b
                                    and "\x00" not in b))  # NUL: binary-file
        path = f"skills/{name}/SKILL.md"
        record = _record(name, description, kind, path, [], version, [])
        return Valid({path: text.encode()}, record, data)
    if kind == "skill-toml":
        domains = draw(tags)
        version = draw(st.from_regex(r"[0-9]\.[0-9]{1,2}\.[0-9]", fullmatch=True))
        data = {"name": name, "version": version, "description": description,
                "skill_type": "knowledge", "domains": domains}
        text = "".join(f"{k} = {json.dumps(v, ensure_ascii=False)}\n" for k, v in data.items())
        path = f"oxo/{name}.skill.toml"
        return Valid({path: text.encode()}, _record(name, description, kind, path, domains,
                                                    version, []), data)
    if kind == "skill-json":
        name = name.replace("-", "_")
        data = {"name": name, "description": description, "entry": "run.sh"}
        category = draw(st.none() | st.from_regex(r"[a-z]{1,8}", fullmatch=True))
        if category:
            data["category"] = category
        path = f"ongrid/{name}/skill.json"
        files = {path: json.dumps(data, ensure_ascii=False, indent=2).encode(),
                 f"ongrid/{name}/run.sh": b"#!/bin/sh\ntouch /tmp/skillsite-executed\n"}
        return Valid(files, _record(name, description, kind, path,
                                    [category] if category else [], None, []), data)
    depends = draw(st.lists(st.sampled_from(earlier_pages), unique=True, max_size=2)
                   if earlier_pages else st.just([]))
    page_tags = draw(tags)
    data = {"type": "skill", "name": name, "description": description, "tags": page_tags}
    if depends:
        data["depends_on"] = [f"skill:{d}" for d in depends]
    path = f"wiki/{name}.md"
    text = "---\n" + _front_matter(data, False) + "---\n# " + name + "\n\nText.\n"
    return Valid({path: text.encode()}, _record(name, description, kind, path, page_tags,
                                                None, depends), data)


def _record(name: str, description: str, kind: str, path: str, tags: list[str],
            version: str | None, depends_on: list[str]) -> dict[str, Any]:
    return {"name": name, "description": description, "format": kind, "path": path,
            "tags": tags, "version": version, "depends_on": depends_on}


@st.composite
def valid_corpus(draw: st.DrawFn) -> list[Valid]:
    names = draw(st.lists(md_name, min_size=1, max_size=8,
                          unique_by=lambda n: n.replace("-", "_")))
    skills: list[Valid] = []
    for name in names:
        pages = [s.record["name"] for s in skills if s.record["format"] == "virtual"]
        skills.append(draw(valid_skill(name, pages)))
    return skills


# -- anything: valid, broken, binary, symlinked --------------------------------------------

@st.composite
def any_corpus(draw: st.DrawFn) -> dict[str, Content]:
    files: dict[str, Content] = {}
    for skill in draw(valid_corpus()):
        files.update(skill.files)
    for i in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["md", "toml", "json", "page", "binary", "ref"]))
        name = draw(md_name)
        if kind == "md":
            files[f"skills/{name}/SKILL.md"] = draw(skill_md_text()).encode()
        elif kind == "page":
            files[f"wiki/x{i}.md"] = draw(skill_md_text()).replace(
                "---\n", "---\ntype: skill\n", 1).encode()
        elif kind == "toml":
            files[f"oxo/{name}.skill.toml"] = draw(toml_text()).encode()
        elif kind == "json":
            files[f"ongrid/{name}/skill.json"] = draw(json_text()).encode()
        elif kind == "binary":
            files[f"skills/{name}/SKILL.md"] = draw(st.binary(max_size=200))
        else:
            files[f"skills/{name}/references/REF.md"] = b"# Ref\n"
    existing = sorted(files)
    for i in range(draw(st.integers(0, 3))):
        target = draw(st.sampled_from(["/etc/hostname", "../../../../outside/SKILL.md",
                                       "missing/SKILL.md", "SKILL.md",
                                       *(f"../../{p}" for p in existing)]))
        files[f"skills/link{i}/SKILL.md"] = Link(target)
    return files
