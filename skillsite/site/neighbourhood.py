"""A skill's neighbourhood as a Mermaid flowchart, bounded to :data:`MAX_NODES` nodes.

Labels are skill names reduced to characters Mermaid never reads as syntax, and the
diagram is rendered with Mermaid's ``strict`` security level (no HTML labels, no clicks);
the same neighbours are also listed as plain links beside it.
"""
from __future__ import annotations

import re

from skillsite.site.data import SiteSkill
from skillsite.site.sanitize import text

MAX_NODES = 30
_UNSAFE = re.compile(r"[^A-Za-z0-9 _./:-]")


def neighbours(skill: SiteSkill) -> list[tuple[str, str]]:
    """(relation, name) pairs, most telling first, at most ``MAX_NODES - 1``."""
    seen = {skill.name}
    chosen: list[tuple[str, str]] = []
    for relation, names in (("depends on", skill.depends_on),
                            ("needed by", skill.dependents),
                            ("links to", skill.links_to),
                            ("linked from", skill.linked_from),
                            ("shares tags", skill.related)):
        for name in names:
            if name not in seen and len(chosen) < MAX_NODES - 1:
                seen.add(name)
                chosen.append((relation, name))
    return chosen


def mermaid(skill: SiteSkill) -> str:
    """The flowchart source, HTML-escaped for a ``<pre>`` (empty when alone)."""
    chosen = neighbours(skill)
    if not chosen:
        return ""
    lines = ["flowchart LR", f'  n0["{_label(skill.name)}"]']
    for number, (relation, name) in enumerate(chosen, 1):
        node = f'n{number}["{_label(name)}"]'
        if relation in ("depends on", "links to"):
            lines.append(f"  n0 -->|{relation}| {node}")
        elif relation == "shares tags":
            lines.append(f"  n0 -.-|{relation}| {node}")
        else:
            label = "depends on" if relation == "needed by" else "links to"
            lines.append(f"  {node} -->|{label}| n0")
    return text("\n".join(lines))


def _label(name: str) -> str:
    return _UNSAFE.sub("_", name)[:60]
