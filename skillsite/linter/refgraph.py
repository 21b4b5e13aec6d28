"""The reference graph of one skill: which Markdown file links to which, how many hops
from ``SKILL.md`` each is, and which bundled files nothing mentions."""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from skillsite.linter.bundle import Bundled, bundled_files
from skillsite.linter.links import Link, find_links, folder_of, local_links
from skillsite.models import Document


@dataclass
class References:
    """``links``: per bundled Markdown file (by ``rel``), its local links; ``depth``: hops
    from ``SKILL.md`` (0) to each Markdown file it reaches; ``deep``: the links that
    reach a file only at a second hop or more, as ``(rel of the linking file, link)``."""

    files: list[Bundled]
    links: dict[str, list[Link]] = field(default_factory=dict)
    depth: dict[str, int] = field(default_factory=dict)
    deep: list[tuple[str, Link]] = field(default_factory=list)
    #: The bundled files by absolute path.
    by_path: dict[str, Bundled] = field(default_factory=dict)


def references(doc: Document, max_size: int) -> References:
    found: References | None = doc.derived.get("references")
    if found is None:
        found = doc.derived["references"] = _build(doc, max_size)
    return found


def _build(doc: Document, max_size: int) -> References:
    root = folder_of(doc)
    files = bundled_files(doc, max_size)
    plain = os.sep == "/" and root != "/"  # _under, joined by hand
    by_path = ({f"{root}/{f.rel}": f for f in files} if plain
               else {_under(root, f.rel): f for f in files})
    links: dict[str, list[Link]] = {}
    for bundled in files:
        if bundled.is_markdown and bundled.text is not None and not bundled.for_people:
            # ``os.path.dirname(_under(root, bundled.rel))``, without the join
            rel_dir = bundled.rel.rpartition("/")[0]
            folder = _under(root, rel_dir) if rel_dir else root
            links[bundled.rel] = list(find_links(bundled.text, 1, folder, root))
    refs = References(files, links, {"SKILL.md": 0}, [], by_path)
    first = local_links(doc)
    if not first or not by_path:
        return refs  # nothing links to a bundled file
    depth, deep = refs.depth, refs.deep
    frontier = [("SKILL.md", first)]
    while frontier:
        next_frontier = []
        for rel, found in frontier:
            for link in found:
                target = by_path.get(link[2] or "")
                if target is None or not target.is_markdown or target.rel in depth:
                    continue
                depth[target.rel] = depth[rel] + 1
                if depth[target.rel] > 1:
                    deep.append((rel, link))
                next_frontier.append((target.rel, links.get(target.rel, [])))
        frontier = next_frontier
    return refs


def _under(root: str, rel: str) -> str:
    """``os.path.join(root, *rel.split("/"))`` (``rel`` comes from the walk, so it has
    no empty part), joined by hand where the separator is already ``/``."""
    if os.sep == "/" and root != "/":
        return f"{root}/{rel}"
    return os.path.join(root, *rel.split("/"))
