"""``context`` and ``verify``: what ``dist/`` holds, and whether its files are whole; with
several libraries (:mod:`skillsite.reader.mounts`), the sum of those that serve, each
listed with its own figures (build time and versions), and those refused with their
errors. Above them, ``build_time`` is then the newest build of those that serve, and
``artifact_version``, ``skillsite_version`` and ``index_backend`` the value they share,
else their distinct values joined by ", "."""
from __future__ import annotations

from collections import Counter
from typing import Any

from skillsite.reader import results
from skillsite.reader.errors import ReaderError
from skillsite.reader.session import NOTHING, Session, operation

HINT = ("search(query) or recommend(task) for candidates; open(ref) for a skill's outline; "
        "read(ref, section) for one section, read(ref) for the body, cut to max_chars with a "
        "cursor to read on; related(ref) and compose(ref) for neighbours and prerequisites.")
LIBRARIES_HINT = (" Several libraries are served: refs are @<library>/<id>, and search and "
                  "recommend take library ('*', one name, or a list).")


@operation("context", spends=NOTHING)
def context(session: Session) -> results.Context:
    every = session.libraries()
    summaries, refused = [], [error.to_dict() for error in every.refused]
    for library in every.sessions:
        try:
            summaries.append(_Summary(library))
        except ReaderError as error:
            if error.code != "damaged-dist" or not session.call.mounts.named:
                raise
            refused.append(session.call.mounts.get(library.library).damaged(error).to_dict())
    if not summaries:
        raise ReaderError(refused[0]["error"], refused[0]["message"], library=refused[0].get(
            "library", ""))
    tags: Counter[str] = Counter()
    formats: dict[str, int] = {}
    for summary in summaries:
        tags.update(summary.tags)
        for kind, count in summary.formats.items():
            formats[kind] = formats.get(kind, 0) + count
    top = sorted(tags.items(), key=lambda item: (-item[1], item[0]))[:50]
    budgets: dict[str, Any] = session.budget.to_dict()
    if session.ledger:
        budgets["safe"] = session.ledger.to_dict()
    named = session.call.mounts.named
    return results.Context(
        skills=sum(s.skills for s in summaries), formats=formats,
        tags=tuple(results.TagCount(tag, count) for tag, count in top),
        tags_total=len(tags), artifact_version=_shared(summaries, "artifact_version"),
        skillsite_version=_shared(summaries, "skillsite_version"),
        build_time=max(s.manifest_text("build_time") for s in summaries),
        index_backend=_shared(summaries, "index_backend"),
        safe=session.safe, budgets=budgets, hint=HINT + (LIBRARIES_HINT if named else ""),
        retrieval=session.retrieval.to_dict(),
        plugins=tuple(p for s in summaries for p in s.groups("plugins")),
        collections=tuple(c for s in summaries for c in s.groups("collections")),
        libraries=tuple(s.to_dict() for s in summaries) + tuple(refused) if named else ())


class _Summary:
    """What one library holds, for ``context``."""

    def __init__(self, session: Session) -> None:
        self.library = session.library
        self.manifest = session.artifacts.manifest
        counts = self.manifest.get("counts") or {}
        self.skills = int(counts.get("skills", 0))
        self.formats: dict[str, int] = dict(counts.get("formats", {}))
        self.tags = session.graph().tag_counts()
        self.backend = session.artifacts.backend
        self._groups = session.groups()

    def manifest_text(self, key: str) -> str:
        return str(self.manifest.get(key, ""))

    def groups(self, key: str) -> list[dict[str, Any]]:
        """The plugins or collections, each naming its library when there are several."""
        found = [g for g in self._groups.get(key, ()) if isinstance(g, dict)]
        return [{**g, "library": self.library} for g in found] if self.library else found

    def to_dict(self) -> dict[str, Any]:
        return {"library": self.library, "skills": self.skills, "formats": self.formats,
                "artifact_version": self.manifest_text("artifact_version"),
                "skillsite_version": self.manifest_text("skillsite_version"),
                "build_time": self.manifest_text("build_time"), "index_backend": self.backend}


def _shared(summaries: list[_Summary], key: str) -> str:
    """The value of ``key`` that every library has, else their distinct values in the
    order the libraries were given, joined by ", " (each library's own is in
    ``libraries``)."""
    values = [s.to_dict()[key] for s in summaries]
    return ", ".join(dict.fromkeys(values))


@operation("verify", spends=NOTHING)
def verify(session: Session) -> list[dict[str, str]]:
    found: list[dict[str, str]] = []
    for name in session.call.mounts.names:
        where = {"library": name} if name else {}
        try:
            mismatches = [m.to_dict() for m in session.at(name).artifacts.verify()]
        except ReaderError as error:  # refused: its mismatches, or why it cannot be read
            mismatches = list(error.details.get("mismatches") or [
                {"path": "manifest.json", "problem": error.code, "expected": "",
                 "actual": error.message}])
        found += [{**where, **mismatch} for mismatch in mismatches]
    return found
