"""``search`` and ``recommend``: engine candidates, skillsite's ranking, then filters.

The engine (tantivy or Whoosh) proposes candidates from plain terms (user text never
reaches a query parser); :func:`skillsite.index.ranking.rank` orders them from the
content store's fields, so both engines agree. A query equal to a skill's name puts that
skill first, before any ranking.
"""
from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from skillsite.entries import IndexDoc
from skillsite.index.fuzzy import FUZZY_MIN_CHARS
from skillsite.index.ranking_record import WHOLE, lines_for, parse
from skillsite.index.tokens import query_terms
from skillsite.reader.artifacts import Artifacts
from skillsite.reader.boosts import Boost, bonus
from skillsite.reader.filters import Filters
from skillsite.reader.kept import Kept, kept_or_read
from skillsite.reader.shelf import Hit, Listing, Shelf, StoredSkill

if TYPE_CHECKING:
    from skillsite.index.ranking import Corpus

#: Engine candidates that ranking orders. The engines score as ranking does (see
#: skillsite.index.fields.boosts), so 30 hold 93 % of ranking's exact top 10 at 10k and at
#: 100k skills (bench/bench_candidates.py), where BM25's 50 held 92 % and 76 %.
CANDIDATES = 30
#: Hits and listings a Finder keeps (about 0.3 and 1 kB each) ...
HITS_KEPT = 8192
LISTINGS_KEPT = 4096
#: ... and ranking records (about 2 kB each) ...
RECORDS_KEPT = 8192
#: Query terms a Finder keeps whether the corpus holds.
TERMS_KEPT = 4096
#: Document frequencies a Finder keeps (related by content asks for a few hundred).
FREQS_KEPT = 65_536
#: More candidates when filters will drop some of them.
FILTERED_CANDIDATES = 1000
#: recommend ranks more candidates than search: its bonuses reorder them more.
RECOMMEND_CANDIDATES = 60


def index_doc(skill: StoredSkill) -> IndexDoc:
    meta = skill.meta
    return IndexDoc(name=skill.name, title=skill.title, description=skill.description,
                    tags=tuple(meta.get("tags", ())), intents=tuple(meta.get("intents", ())),
                    applies_to=tuple(meta.get("applies_to", ())),
                    compatibility=str(meta.get("compatibility", "")),
                    headings=tuple(meta.get("headings", ())), body=skill.body,
                    terms=skill.terms)


class Finder:
    """Candidates from the engine (opened once, queried under a lock) and their docs."""

    def __init__(self, artifacts: Artifacts, shelf: Shelf) -> None:
        self.artifacts = artifacts
        self.shelf = shelf
        self._lock = threading.Lock()
        self._searcher: Any = None
        self._names: list[str] | None = None
        self._kept_records: Kept[list[str]] = Kept(RECORDS_KEPT)
        self._listed: Kept[Listing] = Kept(LISTINGS_KEPT)
        self._hits: Kept[Hit] = Kept(HITS_KEPT)
        self._known: dict[str, bool] = {}
        self._freqs: dict[str, int] = {}

    def candidates(self, query: str, limit: int) -> list[str]:
        from skillsite.index import SearchIndexError

        with self._lock:
            try:
                return list(self._engine().candidates(query, limit=limit))
            except SearchIndexError as error:
                raise self.artifacts.damaged("index", f"cannot be searched ({error})") from None

    def known_words(self, query: str) -> frozenset[str]:
        """The query's terms that the corpus holds as a word of a name, title or tags:
        ranking gives them no typo matches (see :func:`skillsite.index.ranking.rank_records`)."""
        terms = [term for term in query_terms(query) if len(term) >= FUZZY_MIN_CHARS]
        # Kept by term: ranking asks, then the matched fields (without the verb forms).
        known = {term: self._known.get(term) for term in terms}
        missing = [term for term, held in known.items() if held is None]
        if missing:
            with self._lock:
                found = self._engine().known_words(missing)
                if len(self._known) >= TERMS_KEPT:
                    self._known.clear()
                for term in missing:
                    known[term] = self._known[term] = term in found
        return frozenset(term for term, held in known.items() if held)

    def document_frequencies(self, terms: list[str]) -> tuple[int, dict[str, int]]:
        """(skills in the index, how many of them hold each term in their body or, for
        a term no body holds, their description)."""
        from skillsite.index import SearchIndexError

        with self._lock:
            kept = self._freqs
            missing = [term for term in terms if term not in kept]
            try:
                engine = self._engine()
                if missing:
                    fresh = engine.doc_freqs("body", missing)
                    rest = [term for term, held in fresh.items() if not held]
                    if rest:
                        fresh.update(engine.doc_freqs("description", rest))
                    if len(kept) + len(fresh) > FREQS_KEPT:
                        kept.clear()
                    kept.update(fresh)
                skills = engine.doc_count()
            except SearchIndexError as error:
                raise self.artifacts.damaged("index", f"cannot be read ({error})") from None
            return skills, {term: kept.get(term, 0) for term in terms}

    def corpus(self, query: str) -> Corpus:
        """What ranking weighs ``query``'s terms by: their weight among the bodies and how
        specific they are in names, titles and tags (see
        :class:`~skillsite.index.ranking.Corpus`)."""
        from skillsite.index.fields import specificity, term_weight
        from skillsite.index.ranking import Corpus

        terms = query_terms(query)
        skills, lexical = self.document_frequencies(terms)
        names, titles, tags = (self.field_frequencies(field, terms)
                               for field in ("name", "title", "tags"))
        descriptions = self.field_frequencies("description", terms)
        held = {term: max(lexical[term], descriptions[term], names[term], titles[term],
                          tags[term]) for term in terms}
        return Corpus({term: term_weight(held[term], skills) for term in terms},
                      {term: (specificity(names[term], skills),
                              specificity(titles[term], skills),
                              specificity(tags[term], skills)) for term in terms},
                      frozenset(term for term in terms if not held[term]))

    def field_frequencies(self, field: str, terms: list[str]) -> dict[str, int]:
        """How many skills hold each of ``terms`` in the engine field ``field`` (kept)."""
        from skillsite.index import SearchIndexError

        with self._lock:
            kept = self._freqs
            missing = [term for term in terms if f"{field}\0{term}" not in kept]
            if missing:
                try:
                    fresh = self._engine().doc_freqs(field, missing)
                except SearchIndexError as error:
                    raise self.artifacts.damaged("index", f"cannot be read ({error})") from None
                if len(kept) + len(fresh) > FREQS_KEPT:
                    kept.clear()
                kept.update((f"{field}\0{term}", count) for term, count in fresh.items())
            return {term: kept.get(f"{field}\0{term}", 0) for term in terms}

    def _engine(self) -> Any:
        """The engine, opened on first use (call with the lock held)."""
        if self._searcher is None:
            self._searcher = self._open()
        return self._searcher

    def _open(self) -> Any:
        from skillsite.index import BACKENDS, SearchIndexError

        backend = BACKENDS.get(self.artifacts.backend)
        if backend is None:
            raise self.artifacts.damaged("manifest.json", f"names an unknown index backend "
                                         f"{self.artifacts.backend!r}")
        folder = self.artifacts.require_folder("index")
        try:
            return backend.open(folder)
        except SearchIndexError as error:
            raise self.artifacts.damaged("index", f"cannot be opened ({error})") from None

    def names(self) -> list[str]:
        with self._lock:
            if self._names is None:
                self._names = self.shelf.names()
            return self._names

    def exact(self, query: str) -> Hit | None:
        """The hit of the skill whose name is ``query`` (or ``skill:<query>``), if any."""
        text = query.strip()
        names = [name for name in dict.fromkeys((text, text.lower(),
                                                 text.removeprefix("skill:")))
                 if 0 < len(name) <= 200]
        with self._lock:  # the index knows every name: most queries end here
            names = [name for name in names if self._engine().may_hold(name)]
        found = self.hits(names) if names else {}
        return next((found[name] for name in names if name in found), None)

    def ranked(self, query: str, filters: Filters, limit: int,
               boosts: Sequence[Boost] = ()) -> list[tuple[Hit, float]]:
        """The best ``limit`` skills for ``query`` that pass ``filters``, each with what its
        ``boosts`` add (recommend's intents, "use when", "not for", applies_to).

        Candidates are ranked from their ranking records alone; only the hits returned
        are read, and the listings of all candidates when filters need their metadata."""
        from skillsite.index.ranking import rank_records

        wanted = FILTERED_CANDIDATES if filters else (
            RECOMMEND_CANDIDATES if boosts else CANDIDATES)
        names = self.candidates(query, max(wanted, limit))
        if filters:
            listed = self.listings(names)
            names = [name for name in names
                     if (listing := listed.get(name)) is not None and filters.accepts(listing)]
        records = self.records(names)
        corpus = self.corpus(query)
        scored = rank_records(query, records, limit=len(records),
                              known=self.known_words(query), corpus=corpus)
        if boosts:
            weights = {term: 0.0 if term in corpus.absent else weight
                       for term, weight in corpus.weights.items()}
            scored = [(name, round(score + bonus(records[name], boosts, weights), 6))
                      for name, score in scored]
            scored.sort(key=lambda item: (-item[1], item[0]))
        best = scored[:limit]
        shown = self.hits([name for name, _ in best])
        return [(shown[name], score) for name, score in best if name in shown]

    def hits(self, names: list[str]) -> dict[str, Hit]:
        """What a search hit shows of the skills of ``names`` that exist: kept, or read."""
        return kept_or_read(self._hits, names, self.shelf.hits)

    def listings(self, names: list[str]) -> dict[str, Listing]:
        """The listings of the skills of ``names`` that exist: kept, or read in one query
        per shard."""
        return kept_or_read(self._listed, names, self.shelf.listings)

    def records(self, names: list[str]) -> dict[str, list[str]]:
        """The parsed ranking records of ``names`` that exist: kept, or read in one query
        per shard; a skill whose store holds none (an older dist/) gets one made from it."""
        kept = self._kept_records
        found, missing = kept.split(names)
        if missing:
            read: dict[str, list[str]] = {}
            for name, record in self.shelf.ranking_records(missing).items():
                lines = parse(record)
                if lines is None:
                    skill = self.shelf.get(name)
                    if skill is None:
                        continue
                    lines = lines_for(index_doc(skill))
                read[name] = lines
            kept.keep(read, sum(len(lines[WHOLE]) for lines in read.values()))
            found.update(read)
        return found
