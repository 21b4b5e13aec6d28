"""``related`` and the catalog-wide counts of ``context``, from ``graph.json``.

The graph is read once per Library and kept: its edges give links (both ways),
``depends_on`` (both ways) and shared tags.
"""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from skillsite.reader.artifacts import Artifacts

GRAPH = "graph.json"
#: What each kind of relation adds to a neighbour's score.
REASON_WEIGHTS = {"links to": 3.0, "linked from": 2.0, "depends on": 3.0,
                  "required by": 2.0, "shared tag": 1.0}


@dataclass
class Graph:
    """Adjacency by skill name."""

    edges: dict[str, dict[str, list[str]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list)))
    tags: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    members: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))

    def tag_counts(self) -> Counter[str]:
        return Counter({tag: len(names) for tag, names in self.members.items()})

    def neighbours(self, name: str) -> list[tuple[str, float, tuple[str, ...]]]:
        """(name, score, reasons) of every skill related to ``name``, best first."""
        reasons: dict[str, list[str]] = defaultdict(list)
        for reason, targets in self.edges.get(name, {}).items():
            for target in targets:
                reasons[target].append(reason)
        for tag in self.tags.get(name, ()):
            for other in self.members[tag]:
                if other != name:
                    reasons[other].append(f"shared tag: {tag}")
        scored = []
        for other, why in reasons.items():
            score = sum(REASON_WEIGHTS[r.split(":")[0]] for r in why)
            scored.append((other, round(score, 6), tuple(dict.fromkeys(why))))
        scored.sort(key=lambda item: (-item[1], item[0]))
        return scored


def load_graph(artifacts: Artifacts) -> Graph:
    path = artifacts.require(GRAPH)
    try:
        document = json.loads(path.read_bytes())
        edges = document["edges"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise artifacts.damaged(GRAPH, f"cannot be read ({error})") from None
    graph = Graph()
    for edge in edges:
        source, target, kind = edge.get("source"), edge.get("target"), edge.get("type")
        if kind == "tag" and isinstance(target, str):
            tag = target.removeprefix("tag:")
            graph.tags[source].append(tag)
            graph.members[tag].append(source)
        elif kind == "link":
            graph.edges[source]["links to"].append(target)
            graph.edges[target]["linked from"].append(source)
        elif kind == "depends_on":
            graph.edges[source]["depends on"].append(target)
            graph.edges[target]["required by"].append(source)
    return graph
