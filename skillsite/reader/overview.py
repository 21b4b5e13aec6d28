"""``context`` and ``verify``: what ``dist/`` holds, and whether its files are whole."""
from __future__ import annotations

from typing import Any

from skillsite.reader import results
from skillsite.reader.session import NOTHING, Session, operation

HINT = ("search(query) or recommend(task) for candidates; open(ref) for a skill's outline; "
        "read(ref, section) for one section, read(ref) for the body, cut to max_chars with a "
        "cursor to read on; related(ref) and compose(ref) for neighbours and prerequisites.")


@operation("context", spends=NOTHING)
def context(session: Session) -> results.Context:
    manifest = session.artifacts.manifest
    counts = manifest.get("counts") or {}
    tags = session.graph().tag_counts()
    groups = session.groups()
    top = sorted(tags.items(), key=lambda item: (-item[1], item[0]))[:50]
    budgets: dict[str, Any] = session.budget.to_dict()
    if session.ledger:
        budgets["safe"] = session.ledger.to_dict()
    return results.Context(
        skills=int(counts.get("skills", 0)), formats=dict(counts.get("formats", {})),
        tags=tuple(results.TagCount(tag, count) for tag, count in top),
        tags_total=len(tags), artifact_version=str(manifest["artifact_version"]),
        skillsite_version=str(manifest.get("skillsite_version", "")),
        build_time=str(manifest.get("build_time", "")),
        index_backend=session.artifacts.backend, safe=session.safe, budgets=budgets,
        hint=HINT, retrieval=session.retrieval.to_dict(),
        plugins=tuple(groups.get("plugins", ())),
        collections=tuple(groups.get("collections", ())))


@operation("verify", spends=NOTHING)
def verify(session: Session) -> list[dict[str, str]]:
    return [m.to_dict() for m in session.artifacts.verify()]
