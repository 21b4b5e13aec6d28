"""The semantic half of ``recommend`` and ``search --semantic``: skills near the query's
vector, and the fusion of those with the lexical ranking.

Nothing here loads numpy or the model until a semantic query runs on a ``dist/`` that
has vectors (``vectors/``, written by a build with the ``semantic`` extra). Without them,
or without the extra, :meth:`Semantic.neighbours` returns no neighbours and a note that
says why, and the query is answered lexically as before.

Fusion is reciprocal rank fusion: a skill earns ``weight / (RRF_K + rank)`` from each
half that ranks it (ranks from 1), so neither half's score scale matters. The lexical
half is already ranked by skillsite's signals (name, title, intents, tags, ...), so an
exact or strong lexical match stays on top; the semantic half adds skills whose
descriptions use other words. Neighbours below :data:`MIN_COSINE` are not proposed.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from skillsite.reader.artifacts import Artifacts
from skillsite.reader.boosts import Boost
from skillsite.reader.filters import Filters
from skillsite.reader.finder import FILTERED_CANDIDATES, Finder
from skillsite.reader.shelf import Hit
from skillsite.store.vectors import FILES, INDEX, Neighbour, Vectors, VectorsDamaged

if TYPE_CHECKING:
    from skillsite.semantic.model import Model

#: Candidates each half proposes before fusion.
POOL = 30
#: Reciprocal rank fusion's constant and the weight of each half (bench/bench_semantic.py).
RRF_K = 5
LEXICAL_WEIGHT = 1.0
SEMANTIC_WEIGHT = 0.25
#: A neighbour less similar than this to the query is not proposed.
MIN_COSINE = 0.2
LEXICAL = "lexical"
SEMANTIC = "semantic"
NO_VECTORS = ("this dist/ has no vectors: build it with the semantic extra installed "
              "(pip install 'skillsite[semantic]') for semantic results")


@dataclass(frozen=True)
class Fused:
    """One fused candidate: its id, score and the halves that proposed it."""

    name: str
    score: float
    via: tuple[str, ...]


class Semantic:
    """The vectors of one ``dist/`` (a snapshot's) and the model, loaded on first use."""

    def __init__(self, artifacts: Artifacts) -> None:
        self.artifacts = artifacts
        self._lock = threading.Lock()
        self._state: tuple[Model, Vectors] | str | None = None
        self._rows: dict[str, int] | None = None

    @property
    def present(self) -> bool:
        """Whether this dist/ has vectors (no file is read)."""
        return self.artifacts.listed(INDEX)

    def neighbours(self, text: str, limit: int = POOL) -> tuple[list[Neighbour], str]:
        """(the skills nearest ``text``, best first; a note when there are none because
        semantic search cannot run here). A damaged vector file raises ``damaged-dist``."""
        state = self._loaded()
        if isinstance(state, str):
            return [], state
        model, vectors = state
        query = model.embed([text])[0]
        if not query.any():
            return [], ""
        found = [n for n in _nearest(vectors, query, limit) if n.cosine >= MIN_COSINE]
        return found, ""

    def alike(self, name: str, limit: int) -> list[Neighbour]:
        """The skills nearest skill ``name``'s own vector, itself left out; none when it
        has no vector or semantic search cannot run here."""
        state = self._loaded()
        if isinstance(state, str):
            return []
        vectors = state[1]
        with self._lock:
            if self._rows is None:
                self._rows = {other: row for row, other in enumerate(vectors.ids)}
            row = self._rows.get(name)
        if row is None:
            return []
        own = vectors.rows[row].astype("float32") * vectors.scales[row]
        return [n for n in _nearest(vectors, own, limit + 1)
                if n.id != name and n.cosine >= MIN_COSINE][:limit]

    def _loaded(self) -> tuple[Model, Vectors] | str:
        with self._lock:
            if self._state is None:
                self._state = self._load()
            return self._state

    def _load(self) -> tuple[Model, Vectors] | str:
        if not self.present:
            return NO_VECTORS
        from skillsite.semantic.model import SemanticUnavailable, load_model
        from skillsite.store.vectors import read_vectors

        try:
            model = load_model()
        except SemanticUnavailable as why:
            return f"{why}; answered lexically"
        for relative in FILES:
            self.artifacts.require(relative)
        try:
            vectors = read_vectors(self.artifacts.dist)
        except VectorsDamaged as damage:
            raise self.artifacts.damaged(damage.file, str(damage)) from None
        if vectors.model != model.version:
            return (f"this dist/'s vectors were made by the model {vectors.model}, this "
                    f"skillsite has {model.version}: rebuild dist/ (`skillsite build`) for "
                    "semantic results; answered lexically")
        return model, vectors


def _nearest(vectors: Vectors, query: Any, limit: int) -> list[Neighbour]:
    from skillsite.store.vectors import nearest

    return nearest(vectors, query, limit)


def fuse(lexical: Sequence[str], semantic: Sequence[str]) -> list[Fused]:
    """Reciprocal rank fusion of two rankings (ids, best first), best first; ties by id."""
    scores: dict[str, float] = {}
    via: dict[str, list[str]] = {}
    for half, ranking, weight in ((LEXICAL, lexical, LEXICAL_WEIGHT),
                                  (SEMANTIC, semantic, SEMANTIC_WEIGHT)):
        for rank, name in enumerate(ranking, 1):
            scores[name] = scores.get(name, 0.0) + weight / (RRF_K + rank)
            via.setdefault(name, []).append(half)
    order = sorted(scores, key=lambda name: (-scores[name], name))
    return [Fused(name, round(scores[name], 6), tuple(via[name])) for name in order]


@dataclass(frozen=True)
class HybridHits:
    """What :func:`hybrid` found: the hits with their fused scores, the halves that
    proposed each (by id), whether the semantic half ran, and why not."""

    hits: list[tuple[Hit, float]]
    via: dict[str, tuple[str, ...]]
    ran: bool
    note: str = ""


def hybrid(finder: Finder, semantic: Semantic, query: str, meaning: str, filters: Filters,
           limit: int, boosts: Sequence[Boost],
           asked: bool = False) -> HybridHits:
    """The lexical ranking of ``query`` fused with the skills nearest ``meaning``, both
    passing ``filters``; the lexical ranking alone when semantic search cannot run (with
    a note, unless the dist/ has no vectors and the caller did not ask for them)."""
    pool = max(POOL, limit)
    lexical = finder.ranked(query, filters, pool, boosts)
    if not semantic.present and not asked:
        return HybridHits(lexical[:limit], {}, False)
    near, note = semantic.neighbours(meaning, FILTERED_CANDIDATES if filters else pool)
    if note:
        return HybridHits(lexical[:limit], {}, False, note)
    names = [n.id for n in near]
    if filters:
        listed = finder.listings(names)
        names = [name for name in names
                 if (listing := listed.get(name)) is not None and filters.accepts(listing)]
    fused = fuse([hit.name for hit, _ in lexical], names[:pool])[:limit]
    shown = {hit.name: hit for hit, _ in lexical}
    shown.update(finder.hits([f.name for f in fused if f.name not in shown]))
    return HybridHits([(shown[f.name], f.score) for f in fused if f.name in shown],
                      {f.name: f.via for f in fused}, True)


def with_meaning(semantic: Semantic, finder: Finder, name: str, found: list[Any],
                 limit: int, ref: Callable[[str], str], library: str = "") -> list[Any]:
    """``related``'s top-up by content (``found``: :class:`~skillsite.reader.results.
    Neighbour`), with the skills nearest skill ``name`` in meaning: one already found gains
    the reason, the others follow while there is room. Unchanged without vectors."""
    if not semantic.present:
        return found
    from dataclasses import replace

    from skillsite.reader import results
    from skillsite.reader.views import one_line

    near = [n for n in semantic.alike(name, limit + len(found)) if n.id != name]
    listed = {neighbour.id: number for number, neighbour in enumerate(found)
              if neighbour.library == library}
    out = list(found)
    fresh = [n for n in near if n.id not in listed][:max(0, limit - len(found))]
    for n in near:
        if n.id in listed:
            at = listed[n.id]
            out[at] = replace(out[at], reasons=(*out[at].reasons, _reason(n.cosine)))
    shown = finder.hits([n.id for n in fresh])
    out += [results.Neighbour(ref(n.id), n.id, shown[n.id].bare, one_line(shown[n.id].title),
                              one_line(shown[n.id].description), (_reason(n.cosine),),
                              round(n.cosine, 6), library=library)
            for n in fresh if n.id in shown]
    return out


def _reason(cosine: float) -> str:
    return f"similar meaning (cosine {cosine:.2f})"
