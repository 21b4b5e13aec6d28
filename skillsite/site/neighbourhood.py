"""A skill's neighbourhood: the skills around it, by relation, bounded to
:data:`MAX_NODES` nodes with the skill itself (drawn by :mod:`skillsite.site.graph`)."""
from __future__ import annotations

from skillsite.site.data import SiteSkill

MAX_NODES = 30


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
