"""``graph.json``: skills and tags as nodes, with typed edges between them.

Edge types: ``link`` (a skill's body links to another skill's file or folder),
``depends_on`` (a Mini-A prerequisite) and ``tag`` (a skill to a ``tag:<name>`` node).
References that name nothing are listed under ``unresolved``; ``depends_on`` cycles under
``cycles``.
"""
from __future__ import annotations

import json
import posixpath
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from skillsite.linter.rules.corpus import find_cycles

GRAPH_VERSION = 1


def graph_input(entry: Any) -> dict[str, Any]:
    """What the graph needs of a :class:`~skillsite.builder.shapes.SkillEntry` (kept in the
    cache)."""
    return {"name": entry.key, "format": entry.format, "path": entry.path,
            "tags": list(entry.tags), "depends_on": list(entry.depends_on),
            "links": list(entry.links)}


def build_graph(skills: Iterable[dict[str, Any]]) -> dict[str, Any]:
    skills = sorted(skills, key=lambda s: s["path"])
    by_name = {s["name"]: s for s in skills}
    by_location: dict[str, str] = {}
    for skill in skills:
        by_location[skill["path"]] = skill["name"]
        if skill["format"] in ("skill-md", "skill-json"):
            by_location[posixpath.dirname(skill["path"])] = skill["name"]
    nodes = [{"id": s["name"], "kind": "skill", "format": s["format"], "path": s["path"]}
             for s in skills]
    tags = sorted({t for s in skills for t in s["tags"]})
    nodes += [{"id": f"tag:{t}", "kind": "tag"} for t in tags]
    edges: list[dict[str, str]] = []
    unresolved: list[dict[str, str]] = []
    for skill in skills:
        for target in skill["links"]:
            linked = by_location.get(target)
            if linked and linked != skill["name"]:
                edges.append({"source": skill["name"], "target": linked, "type": "link"})
        for dependency in skill["depends_on"]:
            if dependency in by_name:
                edges.append({"source": skill["name"], "target": dependency,
                              "type": "depends_on"})
            else:
                unresolved.append({"source": skill["name"], "ref": dependency,
                                   "type": "depends_on"})
        edges += [{"source": skill["name"], "target": f"tag:{t}", "type": "tag"}
                  for t in skill["tags"]]
    edges = _unique(edges)
    # Only skills with dependencies can be on a cycle.
    dependencies = {s["name"]: [d for d in s["depends_on"] if d in by_name] for s in skills
                    if s["depends_on"]}
    cycles = [sorted_cycle(c) for c in find_cycles(dependencies)]
    return {"version": GRAPH_VERSION, "nodes": nodes, "edges": edges,
            "unresolved": unresolved, "cycles": sorted(cycles)}


def sorted_cycle(cycle: list[str]) -> list[str]:
    """The cycle rotated to start at its smallest name, so output is stable."""
    start = cycle.index(min(cycle))
    return cycle[start:] + cycle[:start]


def _unique(edges: list[dict[str, str]]) -> list[dict[str, str]]:
    seen: set[tuple[str, str, str]] = set()
    kept = []
    for edge in edges:
        key = (edge["source"], edge["target"], edge["type"])
        if key not in seen:
            seen.add(key)
            kept.append(edge)
    return kept


def write_graph(skills: Iterable[dict[str, Any]], path: Path,
                write: Callable[[Path, bytes], None] | None = None) -> None:
    """Write the graph of ``skills`` to ``path`` (``write``: how, given its bytes)."""
    document = build_graph(skills)
    blob = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if write is None:
        path.write_bytes(blob)
    else:
        write(path, blob)
