"""A skill's neighbourhood drawn at build time as inline SVG: no graph library reaches the
browser (Mermaid alone weighed 3.5 MB a page).

The skill sits in the middle; what points at it (skills that depend on it or link to it)
is on the left, what it points at (its dependencies, its links) and the skills that share
its tags are on the right, grouped by relation. Every node is a link to that skill's page.
Names are escaped and shortened to fit their box; the full name is the node's tooltip.
"""
from __future__ import annotations

from dataclasses import dataclass

from skillsite.site.data import SiteSkill
from skillsite.site.neighbourhood import neighbours
from skillsite.site.sanitize import attr, text

BOX_W, BOX_H = 170, 24
GAP = 60                 # between the columns, for the edges
ROW = 30                 # a node's row
GROUP_GAP = 20           # above each group, for its label
MARGIN = 10
MAX_LABEL = 24
#: Relations drawn on each side, in order, with the label over their group.
LEFT = (("needed by", "needed by"), ("linked from", "links here"))
RIGHT = (("depends on", "depends on"), ("links to", "links to"),
         ("shares tags", "shares tags"))


@dataclass(frozen=True)
class Node:
    name: str
    href: str
    x: float
    y: float             # the top of its box
    relation: str


def graph_svg(skill: SiteSkill, page_of: dict[str, str]) -> str:
    """The SVG of ``skill``'s neighbourhood ("" when alone). ``page_of`` maps a skill's
    name to the URL of its page, relative to this page."""
    chosen = [(relation, name) for relation, name in neighbours(skill) if name in page_of]
    if not chosen:
        return ""
    # Only the sides that have nodes take room, so a one-sided graph stays narrow.
    has_left = any(relation in dict(LEFT) for relation, _ in chosen)
    has_right = any(relation in dict(RIGHT) for relation, _ in chosen)
    centre_x = MARGIN + (BOX_W + GAP if has_left else 0)
    width = centre_x + BOX_W + (GAP + BOX_W if has_right else 0) + MARGIN
    left, left_labels, left_height = _column(chosen, LEFT, MARGIN, page_of)
    right, right_labels, right_height = _column(chosen, RIGHT, centre_x + BOX_W + GAP,
                                                page_of)
    height = max(left_height, right_height, BOX_H + 2 * MARGIN)
    centre = Node(skill.name, "", centre_x, (height - BOX_H) / 2, "")
    parts = [f'<svg class="skillsite-graph" width="{width}" height="{height:.0f}" '
             f'viewBox="0 0 {width} {height:.0f}" '
             f'role="group" aria-label="{attr(_summary(skill.name, chosen))}">',
             '<defs><marker id="skillsite-arrow" viewBox="0 0 8 8" refX="8" refY="4" '
             'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
             '<path d="M0,0 L8,4 L0,8 z"/></marker></defs>']
    parts += [_edge(node, centre, into_centre=True) for node in left]
    parts += [_edge(centre, node, into_centre=False) for node in right]
    parts += left_labels + right_labels
    # Within a plugin the ids share their "plugin:" start: the boxes show the rest.
    prefix = skill.name[:skill.name.rindex(":") + 1] if ":" in skill.name else ""
    parts += [_box(node, prefix) for node in left + right]
    parts.append(_box(centre, prefix, current=True))
    parts.append("</svg>")
    return "".join(parts)


def _column(chosen: list[tuple[str, str]], relations: tuple[tuple[str, str], ...], x: float,
            page_of: dict[str, str]) -> tuple[list[Node], list[str], float]:
    """The nodes of one side, each group under its label; and the side's height."""
    nodes: list[Node] = []
    labels: list[str] = []
    y = MARGIN
    for relation, label in relations:
        names = [name for kind, name in chosen if kind == relation]
        if not names:
            continue
        y += GROUP_GAP
        labels.append(f'<text class="skillsite-graph-group" x="{x:.0f}" y="{y - 6:.0f}">'
                      f"{text(label)}</text>")
        for name in names:
            nodes.append(Node(name, page_of[name], x, y, relation))
            y += ROW
    return nodes, labels, y + MARGIN


def _edge(start: Node, end: Node, *, into_centre: bool) -> str:
    x1, y1 = start.x + BOX_W, start.y + BOX_H / 2
    x2, y2 = end.x, end.y + BOX_H / 2
    middle = (x1 + x2) / 2
    relation = start.relation if into_centre else end.relation
    dashed = " skillsite-graph-edge--tags" if relation == "shares tags" else ""
    arrow = "" if relation == "shares tags" else ' marker-end="url(#skillsite-arrow)"'
    return (f'<path class="skillsite-graph-edge{dashed}"{arrow} '
            f'd="M{x1:.0f},{y1:.0f} C{middle:.0f},{y1:.0f} {middle:.0f},{y2:.0f} '
            f'{x2:.0f},{y2:.0f}"/>')


def _box(node: Node, prefix: str, *, current: bool = False) -> str:
    label = node.name[len(prefix):] if prefix and node.name.startswith(prefix) else node.name
    label = label if len(label) <= MAX_LABEL else label[:MAX_LABEL - 1] + "…"
    kind = "skillsite-graph-node--current" if current else "skillsite-graph-node"
    inner = (f"<title>{text(node.name)}</title>"
             f'<rect x="{node.x:.0f}" y="{node.y:.0f}" width="{BOX_W}" height="{BOX_H}" '
             f'rx="4"/><text x="{node.x + BOX_W / 2:.0f}" y="{node.y + BOX_H / 2 + 4:.0f}" '
             f'text-anchor="middle">{text(label)}</text>')
    if current or not node.href:
        return f'<g class="{kind}">{inner}</g>'
    return f'<a class="{kind}" href="{attr(node.href)}">{inner}</a>'


def _summary(name: str, chosen: list[tuple[str, str]]) -> str:
    listed = "; ".join(f"{relation} {other}" for relation, other in chosen)
    return f"Skills around {name}: {listed}"
