"""``open``: a skill's metadata and outline, never its body."""
from __future__ import annotations

from typing import Any

from skillsite.reader import results
from skillsite.reader.filters import risk_of
from skillsite.reader.session import SAFE_COUNTS, Session, operation


@operation("open", spends=SAFE_COUNTS)
def open_skill(session: Session, ref: str) -> results.SkillInfo:
    session, skill = session.find(ref)
    if session.ledger:
        session.ledger.charge("read")
    meta = skill.meta
    hidden = session.safe
    groups = session.groups()
    origin = groups.get("origins", {}).get(skill.name) or {}
    return results.SkillInfo(
        ref=session.ref(skill.name), id=skill.name, name=skill.bare, title=skill.title,
        description=skill.description, format=skill.format,
        path=None if hidden else skill.path, version=meta.get("version"),
        tags=tuple(meta.get("tags", ())), intents=tuple(meta.get("intents", ())),
        applies_to=tuple(meta.get("applies_to", ())),
        compatibility=str(meta.get("compatibility", "")), risk=risk_of(skill),
        depends_on=tuple(meta.get("depends_on", ())),
        headings=tuple(results.Heading(s.index, s.heading, s.level, s.start_line,
                                       s.end_line, s.length) for s in skill.spans),
        links=() if hidden else tuple(skill.local(link) for link in meta.get("links", ())),
        files=() if hidden else tuple(skill.local(path) for path in skill.files),
        warnings=tuple(results.Warning(*row) for row in meta.get("warnings", ())),
        chars=len(skill.body), lines=skill.lines,
        plugin=str(meta.get("plugin", "")), collection=str(meta.get("collection", "")),
        errors=tuple(results.Warning(*row) for row in meta.get("errors", ())),
        copies=tuple(i for i in groups.get("copies", {}).get(skill.sha256, ())
                     if i != skill.name),
        source_url=None if hidden else origin.get("source_url"),
        changed=origin.get("changed"), trust=_trust(meta, hidden), library=session.library)


def _trust(meta: dict[str, Any], hidden: bool) -> dict[str, Any] | None:
    """The trust assessment; in safe mode its evidence keeps rule and line but not
    paths, as the rest of ``open`` does."""
    trust = meta.get("trust")
    if not isinstance(trust, dict) or not hidden:
        return trust if isinstance(trust, dict) else None
    return {**trust, "reasons": [{k: v for k, v in reason.items() if k != "path"}
                                 for reason in trust.get("reasons", ())]}
