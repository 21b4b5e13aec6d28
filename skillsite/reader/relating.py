"""``related`` and ``compose``: a skill's neighbours and its prerequisites, never bodies."""
from __future__ import annotations

from skillsite.reader import results
from skillsite.reader.session import SAFE_COUNTS, Session, operation
from skillsite.reader.views import clamp, one_line

#: ``related`` adds skills alike by content when links, depends_on and tags give fewer.
CONTENT_BELOW = 3


@operation("related", spends=SAFE_COUNTS)
def related(session: Session, ref: str, limit: int = 10) -> results.Related:
    skill = session.skill(ref)
    limit = clamp(limit, 1, 50, "limit")
    if session.ledger:
        session.ledger.charge("search")
    found = []
    for name, score, reasons in session.graph().neighbours(skill.name):
        other = session.store.get(name)
        if other is not None:
            found.append(results.Neighbour(session.ref(name), name, one_line(other.title),
                                           one_line(other.description), reasons, score))
            if len(found) >= limit:
                break
    if len(found) < min(CONTENT_BELOW, limit):
        found += _alike(session, skill.name, {n.name for n in found}, limit - len(found))
    return results.Related(session.ref(skill.name), skill.name, tuple(found))


def _alike(session: Session, name: str, listed: set[str], room: int
           ) -> list[results.Neighbour]:
    from skillsite.reader.alike import alike

    hits = [(other, score, terms) for other, score, terms
            in alike(session.finder, name, room + len(listed)) if other not in listed]
    shown = session.finder.hits([other for other, _, _ in hits[:room]])
    return [results.Neighbour(session.ref(other), other, one_line(shown[other].title),
                              one_line(shown[other].description),
                              (f"similar content: {', '.join(terms)}",), score, terms)
            for other, score, terms in hits[:room] if other in shown]


@operation("compose", spends=SAFE_COUNTS)
def compose(session: Session, ref: str, limit: int = 4) -> results.Composition:
    skill = session.skill(ref)
    limit = clamp(limit, 1, 8, "limit")
    if session.ledger:
        session.ledger.charge("search")
    found: list[results.Compact] = []
    unresolved: list[str] = []
    declared = [str(name) for name in skill.meta.get("depends_on", ())]
    for name in declared:
        other = session.store.get(name)
        if other is None:
            unresolved.append(name)
        elif len(found) < limit:
            found.append(results.Compact(session.ref(name), name, one_line(other.title),
                                         one_line(other.description), other.format,
                                         tuple(other.meta.get("tags", ()))))
    truncated = len(declared) - len(unresolved) > limit
    return results.Composition(session.ref(skill.name), skill.name, tuple(found),
                               tuple(unresolved), truncated)
