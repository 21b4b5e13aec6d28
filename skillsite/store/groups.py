"""``groups.json``: the Claude Code plugins and the collections of a ``dist/``, and the
skills whose content is byte-identical.

``{"version": 1, "plugins": [...], "collections": [...], "copies": {sha256: [ids]},
"origins": {id: {...}}, "repositories": [...]}``.
A plugin: ``name``, ``collection``, ``folder`` (relative to the corpus root; absent for
a remote plugin), ``skills`` (how many the catalog holds), ``source`` (``local`` or the
remote source, which is never fetched) and what its manifests say (``display_name``,
``description``, ``version``, ``author``, ``category``, ``keywords``, ``tags``,
``homepage``). A collection: ``name``, ``skills``, and its git ``commit``, ``modified``
and ``web_url`` when it is a work tree. ``copies`` maps a SKILL file's sha256 to the ids
of the two or more skills that share it. ``origins`` maps a skill id to its
``source_url`` and ``changed`` time from git, and ``repositories`` lists the git work
trees (as the manifest does).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

GROUPS = "groups.json"
GROUPS_VERSION = 1


def write_groups(path: Path, plugins: list[dict[str, Any]],
                 collections: list[dict[str, Any]], copies: dict[str, list[str]],
                 origins: dict[str, dict[str, str]] | None = None,
                 repositories: list[dict[str, Any]] | None = None) -> None:
    data = {"version": GROUPS_VERSION, "plugins": plugins, "collections": collections,
            "copies": copies, "origins": origins or {}, "repositories": repositories or []}
    path.write_text(json.dumps(data, ensure_ascii=False, sort_keys=True, indent=1),
                    encoding="utf-8")
