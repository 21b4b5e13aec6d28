"""``search`` and ``recommend``: engine candidates, skillsite's ranking, then filters.

The engine (tantivy or Whoosh) proposes candidates from plain terms (user text never
reaches a query parser); :func:`skillsite.index.ranking.rank` orders them from the
content store's fields, so both engines agree. A query equal to a skill's name puts that
skill first, before any ranking.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from skillsite.entries import RISKS, IndexDoc
from skillsite.index.fuzzy import FUZZY_MIN_CHARS
from skillsite.index.ranking_record import FIELDS, WHOLE, lines_for, parse
from skillsite.index.tokens import query_terms
from skillsite.reader.artifacts import Artifacts
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
#: ... at most this many characters of each, whatever the skills' sizes.
CHARS_KEPT = 32_000_000
#: Query terms a Finder keeps whether the corpus holds.
TERMS_KEPT = 4096
#: Document frequencies a Finder keeps (related by content asks for a few hundred).
FREQS_KEPT = 65_536
T = TypeVar("T")
#: More candidates when filters will drop some of them.
FILTERED_CANDIDATES = 1000
#: ongrid's ``class`` as a risk level.
CLASS_RISK = {"safe": "low", "mutating": "medium", "dangerous": "high"}
INTENT_BONUS = 2.5
APPLIES_TO_BONUS = 2.0
CAPABILITY_BONUS = 1.0
#: recommend: what a task's terms earn in a skill's "use when" text, and lose in its "not
#: for" text (skillsite.index.clauses), times the weighted share of the terms found there.
USE_WHEN_BONUS = 2.0
NOT_FOR_PENALTY = 3.0
#: ... but a term the skill's own name, title, description or "use when" hold is its own
#: subject, not a neighbour's.
NOT_FOR_UNLESS = ("name", "title", "description", "use_when")
#: recommend ranks more candidates than search: its bonuses reorder them more.
RECOMMEND_CANDIDATES = 60


class Boost(NamedTuple):
    """What ``recommend`` adds to a skill's score: ``weight`` × the weighted share of the
    terms of ``text`` that its ``fields`` hold and its ``unless`` fields do not."""

    weight: float
    text: str
    fields: tuple[str, ...]
    unless: tuple[str, ...] = ()


@dataclass(frozen=True)
class Filters:
    """What a hit must have; empty fields accept everything."""

    tags: tuple[str, ...] = ()
    applies_to: tuple[str, ...] = ()
    format: str | None = None
    compatibility: str | None = None
    max_risk: str | None = None
    plugin: str | None = None
    collection: str | None = None

    def __bool__(self) -> bool:
        return bool(self.tags or self.applies_to or self.format or self.compatibility
                    or self.max_risk or self.plugin or self.collection)

    def accepts(self, skill: Listing) -> bool:
        meta = skill.meta
        if self.format and skill.format != self.format:
            return False
        if self.plugin is not None and meta.get("plugin", "") != self.plugin:
            return False
        if self.collection is not None and meta.get("collection", "") != self.collection:
            return False
        if self.tags and not _overlap(self.tags, meta.get("tags", ())):
            return False
        if self.applies_to and not _overlap(self.applies_to, meta.get("applies_to", ())):
            return False
        if self.compatibility and self.compatibility.casefold() not in str(
                meta.get("compatibility", "")).casefold():
            return False
        if self.max_risk:
            risk = risk_of(skill)
            return risk is not None and RISKS.index(risk) <= RISKS.index(self.max_risk)
        return True


def _overlap(wanted: Iterable[str], present: Iterable[str]) -> bool:
    have = {str(value).casefold() for value in present}
    return any(value.casefold() in have for value in wanted)


def risk_of(skill: Listing) -> str | None:
    """The declared risk (Mini-A ``risk``, ongrid ``class``), or None if undeclared."""
    own = skill.meta.get("metadata") or {}
    risk = own.get("risk") if isinstance(own, dict) else None
    if risk is None and skill.format == "skill-json" and isinstance(own, dict):
        risk = CLASS_RISK.get(str(own.get("class", "safe")))
    risk = str(risk).strip().lower() if risk is not None else None
    return risk if risk in RISKS else None


def index_doc(skill: StoredSkill) -> IndexDoc:
    meta = skill.meta
    return IndexDoc(name=skill.name, title=skill.title, description=skill.description,
                    tags=tuple(meta.get("tags", ())), intents=tuple(meta.get("intents", ())),
                    applies_to=tuple(meta.get("applies_to", ())),
                    compatibility=str(meta.get("compatibility", "")),
                    headings=tuple(meta.get("headings", ())), body=skill.body,
                    terms=skill.terms)


class Kept(dict[str, T]):
    """What a long-lived reader keeps between queries (``dist/`` never changes under it):
    emptied when it would pass ``count`` entries or :data:`CHARS_KEPT` characters."""

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count
        self.chars = 0

    def split(self, names: list[str]) -> tuple[dict[str, T], list[str]]:
        """The entries kept for ``names``, and the names that have none."""
        found = {}
        for name in names:  # get, not `in` then [], since another thread may empty it
            value = self.get(name)
            if value is not None:
                found[name] = value
        return found, [name for name in names if name not in found]

    def keep(self, entries: dict[str, T], chars: int) -> None:
        if len(self) + len(entries) > self.count or self.chars + chars > CHARS_KEPT:
            self.clear()
            self.chars = 0
        self.update(entries)
        self.chars += chars


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
            scored = [(name, round(score + _bonus(records[name], boosts, weights), 6))
                      for name, score in scored]
            scored.sort(key=lambda item: (-item[1], item[0]))
        best = scored[:limit]
        shown = self.hits([name for name, _ in best])
        return [(shown[name], score) for name, score in best if name in shown]

    def hits(self, names: list[str]) -> dict[str, Hit]:
        """What a search hit shows of the skills of ``names`` that exist: kept, or read."""
        return _kept_or_read(self._hits, names, self.shelf.hits)

    def listings(self, names: list[str]) -> dict[str, Listing]:
        """The listings of the skills of ``names`` that exist: kept, or read in one query
        per shard."""
        return _kept_or_read(self._listed, names, self.shelf.listings)

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


def _kept_or_read(kept: Kept[T], names: list[str],
                  read: Callable[[list[str]], dict[str, tuple[T, int]]]) -> dict[str, T]:
    """The entries of ``names`` in ``kept``, and those ``read`` (each with its size in
    characters) for the rest, kept from now on."""
    found, missing = kept.split(names)
    if missing:
        fresh = read(missing)
        kept.keep({name: entry for name, (entry, _) in fresh.items()},
                  sum(chars for _, chars in fresh.values()))
        found.update((name, entry) for name, (entry, _) in fresh.items())
    return found


def _bonus(lines: list[str], boosts: Sequence[Boost], weights: Mapping[str, float]) -> float:
    """What ``boosts`` add to a skill: weight × the weighted share of the text's terms
    found in those of its fields (and in none of the ``unless`` fields); a negative weight
    is a penalty."""
    total = 0.0
    for weight, text, fields, unless in boosts:
        terms = query_terms(text)
        if not terms:
            continue
        present: set[str] = set()
        for field in fields:
            present.update(lines[FIELDS.index(field)].split())
        for field in unless:
            present.difference_update(lines[FIELDS.index(field)].split())
        shares = [weights.get(term, 1.0) for term in terms]
        total += weight * sum(share for term, share in zip(terms, shares, strict=True)
                              if term in present) / (sum(shares) or 1.0)
    return total
