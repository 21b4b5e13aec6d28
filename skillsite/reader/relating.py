"""``related`` and ``compose``: a skill's neighbours and its prerequisites, never bodies.

When a Library reads several libraries (:mod:`skillsite.reader.mounts`), ``related``
also joins the other libraries by shared tags, and ``compose`` follows a ``depends_on``
that names another library's skill (``@ops/deploy``)."""
from __future__ import annotations

import re
from collections import defaultdict

from skillsite.reader import results
from skillsite.reader.errors import ReaderError
from skillsite.reader.neighbours import REASON_WEIGHTS
from skillsite.reader.semantic import with_meaning
from skillsite.reader.session import SAFE_COUNTS, Session, operation
from skillsite.reader.shelf import Hit, StoredSkill
from skillsite.reader.views import clamp, one_line

#: ``related`` adds skills alike by content when links, depends_on and tags give fewer.
CONTENT_BELOW = 3


@operation("related", spends=SAFE_COUNTS)
def related(session: Session, ref: str, limit: int = 10) -> results.Related:
    session, skill = session.find(ref)
    limit = clamp(limit, 1, 50, "limit")
    if session.ledger:
        session.ledger.charge("search")
    found = []
    for name, score, reasons in session.graph().neighbours(skill.name):
        other = session.store.get(name)
        if other is not None:
            found.append(results.Neighbour(session.ref(name), name, other.bare,
                                           one_line(other.title), one_line(other.description),
                                           reasons, score, library=session.library))
            if len(found) >= limit:
                break
    refused: list[ReaderError] = []
    if session.call.mounts.named:
        found += _sharing_tags(session, skill, limit, refused)
        found = sorted(found, key=lambda neighbour: -neighbour.score)[:limit]
    if len(found) < min(CONTENT_BELOW, limit):
        found += _alike(session, skill.name, {n.id for n in found if n.library ==
                                              session.library}, limit - len(found))
        found = with_meaning(session.semantic, session.finder, skill.name, found, limit,
                             session.ref, session.library)
    return results.Related(session.ref(skill.name), skill.name, skill.bare, tuple(found),
                           library=session.library,
                           refused=tuple(error.to_dict() for error in refused))


def _sharing_tags(session: Session, skill: StoredSkill, limit: int,
                  refused: list[ReaderError]) -> list[results.Neighbour]:
    """The skills of the other libraries that share a tag with ``skill``, most shared
    tags first (a library that cannot be read goes to ``refused``)."""
    tags = session.graph().tags.get(skill.name, ())
    if not tags:
        return []
    others = session.libraries([n for n in session.call.mounts.names if n != session.library])
    refused += others.refused
    found: list[results.Neighbour] = []
    for other in others.sessions:
        try:
            found += _tagged(other, tags, limit)
        except ReaderError as error:
            if error.code != "damaged-dist":
                raise
            refused.append(session.call.mounts.get(other.library).damaged(error))
    return found


def _tagged(session: Session, tags: list[str], limit: int) -> list[results.Neighbour]:
    members = session.graph().members
    reasons: dict[str, list[str]] = defaultdict(list)
    for tag in tags:
        for name in members.get(tag, ()):
            reasons[name].append(f"shared tag: {tag}")
    best = sorted(reasons, key=lambda name: (-len(reasons[name]), name))[:limit]
    shown = session.finder.hits(best)
    weight = REASON_WEIGHTS["shared tag"]
    return [results.Neighbour(session.ref(name), name, shown[name].bare,
                              one_line(shown[name].title),
                              one_line(shown[name].description), tuple(reasons[name]),
                              round(weight * len(reasons[name]), 6), library=session.library)
            for name in best if name in shown]


def _alike(session: Session, name: str, listed: set[str], room: int
           ) -> list[results.Neighbour]:
    from skillsite.reader.alike import alike

    hits = [(other, score, terms) for other, score, terms
            in alike(session.finder, name, room + len(listed)) if other not in listed]
    shown = session.finder.hits([other for other, _, _ in hits[:room]])
    return [results.Neighbour(session.ref(other), other, shown[other].bare,
                              one_line(shown[other].title),
                              one_line(shown[other].description),
                              (f"similar content: {_words_of(terms, shown[other])}",), score,
                              terms, library=session.library)
            for other, score, terms in hits[:room] if other in shown]


def _words_of(terms: tuple[str, ...], hit: Hit) -> str:
    """The shared terms as a person reads them: each stem (``tabl``) as the first word of
    the skill's title or description that it stems from (``tables``); stems found only in
    bodies are left out, unless no term is found at all."""
    from skillsite.index.tokens import tokenize

    words: dict[str, str] = {}
    for word in re.findall(r"[^\W_]+(?:[-'][^\W_]+)*", f"{hit.title} {hit.description}"):
        for term in tokenize(word):
            words.setdefault(term, word.lower())
    readable = [words[term] for term in terms if term in words]
    return ", ".join(readable or terms)


@operation("compose", spends=SAFE_COUNTS)
def compose(session: Session, ref: str, limit: int = 4) -> results.Composition:
    session, skill = session.find(ref)
    limit = clamp(limit, 1, 8, "limit")
    if session.ledger:
        session.ledger.charge("search")
    found: list[results.Compact] = []
    unresolved: list[str] = []
    declared = [str(name) for name in skill.meta.get("depends_on", ())]
    for name in declared:
        where, other = _dependency(session, name)
        if other is None:
            unresolved.append(name)
        elif len(found) < limit:
            found.append(results.Compact(where.ref(other.name), other.name, other.bare,
                                         one_line(other.title), one_line(other.description),
                                         other.format, tuple(other.meta.get("tags", ())),
                                         library=where.library))
    truncated = len(declared) - len(unresolved) > limit
    return results.Composition(session.ref(skill.name), skill.name, skill.bare, tuple(found),
                               tuple(unresolved), truncated, library=session.library)


def _dependency(session: Session, name: str) -> tuple[Session, StoredSkill | None]:
    """The skill a ``depends_on`` entry names: in the skill's own library, or in the one
    its mount prefix names (``@ops/deploy``); None when neither holds it."""
    try:
        library, local = session.call.mounts.split(name)
        where = session if library is None else session.at(library)
        return where, where.store.get(local)
    except ReaderError:
        return session, None  # an unknown or refused library: unresolved
