"""The Whoosh backend (PyPI ``whoosh-reloaded``): the engine the design names.

Pure Python, so it needs no compiled wheel, but it is far slower than tantivy; the
settings keep it from being slower than it must be. The writer runs in this process
(``procs=1``, one segment, ``multisegment=False``) with a 256 MB pool, so a
10k-skill corpus is sorted in memory and written once. Text fields keep no
positions (``phrase=False``) because queries are bags of terms.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar

from skillsite.index.base import (
    Backend,
    IndexSearcher,
    IndexWriter,
    SearchIndexError,
    prepare_new_folder,
    require_folder,
)
from skillsite.index.fields import (
    BODY_FIELD,
    COMMON_PRESENCE,
    KEY_FIELD,
    PRESENCE_FIELDS,
    TEXT_FIELDS,
    boosts,
    engine_texts,
    leaves_out_body,
    specificity,
)
from skillsite.index.fuzzy import (
    FUZZY_BOOST,
    FUZZY_FIELDS,
    FUZZY_MIN_CHARS,
    near_typed,
    near_word,
)
from skillsite.index.tokens import partial_term, query_terms

WRITER_LIMIT_MB = 256


def _schema() -> Any:
    from whoosh.analysis import SpaceSeparatedTokenizer
    from whoosh.fields import ID, TEXT, Schema

    # The terms arrive already made by skillsite.index.tokens; Whoosh's standard
    # analyzer would lowercase, drop stop words and short words on its own terms.
    analyzer = SpaceSeparatedTokenizer()
    text_fields = {field: TEXT(analyzer=analyzer, phrase=False) for field in TEXT_FIELDS}
    return Schema(**{KEY_FIELD: ID(stored=True, unique=True)}, **text_fields)


def _weighting() -> Any:
    """BM25F with tantivy's IDF, so both engines pick nearly the same top candidates.

    Whoosh's BM25 term score is already tantivy's (k1 1.2, b 0.75, per-field average
    length); only the IDF differs (Whoosh: ``log(N / (df + 1)) + 1``). With the same
    IDF the engines disagree only through how each rounds stored field lengths, which
    matters only where more documents match than the caller asked for.
    """
    from whoosh.scoring import BM25F

    class TantivyIdfBM25F(BM25F):  # type: ignore[misc]  # Whoosh is untyped
        def idf(self, searcher: Any, fieldname: str, text: str) -> float:
            total = searcher.doc_count_all()
            frequency = searcher.doc_frequency(fieldname, text)
            return math.log(1 + (total - frequency + 0.5) / (frequency + 0.5))

    return TantivyIdfBM25F()


def _open_index(path: Path) -> Any:
    from whoosh import index

    require_folder(path)
    if not index.exists_in(str(path)):
        raise SearchIndexError(f"{path} is not a Whoosh index")
    try:
        return index.open_dir(str(path))
    except (OSError, index.IndexError) as error:
        raise SearchIndexError(f"{path} is not a readable Whoosh index: {error}") from error


class WhooshWriter(IndexWriter):
    """Applies a batch through one in-process Whoosh writer and one commit."""

    def __init__(self, path: Path, index: Any, *, replace: bool) -> None:
        super().__init__(path, replace=replace)
        self._index = index

    def _apply(self, deletes: list[str], docs: list[tuple[str, dict[str, str]]]) -> None:
        writer = self._index.writer(procs=1, limitmb=WRITER_LIMIT_MB, multisegment=False)
        try:
            if deletes:
                # One searcher for all deletes: delete_by_term would open one per call.
                with writer.searcher() as searcher:
                    for name in deletes:
                        writer.delete_by_term(KEY_FIELD, name, searcher=searcher)
            for name, texts in docs:
                writer.add_document(**{KEY_FIELD: name}, **engine_texts(texts))
        except BaseException:
            writer.cancel()
            raise
        writer.commit()


class WhooshSearcher(IndexSearcher):
    """Candidates from an OR of terms over every text field (a constant score on the
    presence fields, scaled BM25F on the others, as tantivy's), plus the name, title and
    tag terms near a query term's prefix (see :mod:`skillsite.index.fuzzy`): Whoosh has no
    prefix-fuzzy query, so the lexicon is expanded here."""

    def __init__(self, index: Any) -> None:
        self._searcher = index.searcher(weighting=_weighting())
        self._boosts = boosts()
        self._lexicons: dict[str, dict[str, list[str]]] = {}
        self._word_sets: dict[str, set[str]] = {}

    def candidates(self, query: str, limit: int = 100) -> list[str]:
        from whoosh.query import ConstantScoreQuery, Or, Term

        terms = query_terms(query)
        if not terms or limit <= 0:
            return []
        docs = self._searcher.doc_count()
        common = {term for term in terms if leaves_out_body(
            self._searcher.doc_frequency(BODY_FIELD, term), docs)}
        typed = partial_term(query)
        loose: list[Any] = []  # as tantivy's: one constant score per field and term
        known = self.known_words(term for term in terms if len(term) >= FUZZY_MIN_CHARS)
        for term in terms:
            typo = term not in known
            if len(term) >= FUZZY_MIN_CHARS and (term == typed or typo):
                for field in FUZZY_FIELDS:
                    words = self._near(field, term, typo, term == typed)
                    if words:
                        loose.append(ConstantScoreQuery(
                            Or([Term(field, word) for word in words]),
                            score=self._boosts[field] * FUZZY_BOOST))
        results = self._search(terms, loose, limit, leaving_out=common)
        if results.scored_length() < limit and common:  # as tantivy_backend: ask again
            results = self._search(terms, loose, limit, leaving_out=set())
        return [str(hit[KEY_FIELD]) for hit in results]

    def _search(self, terms: list[str], loose: list[Any], limit: int, *,
                leaving_out: set[str]) -> Any:
        """Whoosh's hits for the terms on every field (but the body for ``leaving_out``),
        or'ed with the ``loose`` (prefix and typo) terms. A presence clause scores the
        field's weight times the word's specificity there, as ranking does."""
        from whoosh.query import ConstantScoreQuery, Or, Term

        docs = self._searcher.doc_count()
        clauses = []
        for term in terms:
            for field, boost in self._boosts.items():
                if field == BODY_FIELD and term in leaving_out:
                    continue
                if field not in PRESENCE_FIELDS:
                    clauses.append(Term(field, term, boost=boost))
                    continue
                scale = specificity(self._live_freq(field, term), docs) \
                    if field in FUZZY_FIELDS else 1.0
                clauses.append(ConstantScoreQuery(Term(field, term),
                                                  score=boost * max(scale, COMMON_PRESENCE)))
        return self._searcher.search(Or(clauses + loose), limit=limit)

    def _near(self, field: str, term: str, typo: bool, typed: bool) -> list[str]:
        """For a word being ``typed``: the longer words of ``field`` that begin with
        ``term``, or, for a ``typo``, also those that begin within one edit of it; for a
        whole word (a typo), the words within one edit of it. One edit keeps the first or
        the second letter of the word among the term's first two, so only those words are
        compared."""
        by_letter = self._lexicon(field)
        pool = {word for letter in set(term[:2]) for word in by_letter.get(letter, ())}
        if typo:
            near = near_typed if typed else near_word
            return sorted(word for word in pool if word == term or near(term, word))
        return sorted(word for word in pool if word != term and word.startswith(term))

    def may_hold(self, name: str) -> bool:
        return bool(self._searcher.doc_frequency(KEY_FIELD, name))

    def known_words(self, terms: Iterable[str]) -> frozenset[str]:
        return frozenset(term for term in terms if any(
            term in self._words(field) for field in FUZZY_FIELDS))

    def _words(self, field: str) -> set[str]:
        """The words of ``field``."""
        if field not in self._word_sets:
            self._word_sets[field] = {word for words in self._lexicon(field).values()
                                      for word in words}
        return self._word_sets[field]

    def _lexicon(self, field: str) -> dict[str, list[str]]:
        """The words of ``field`` by each of their first two letters."""
        if field not in self._lexicons:
            by_letter: dict[str, list[str]] = {}
            for raw in self._searcher.reader().lexicon(field):
                word = raw.decode("utf-8") if isinstance(raw, bytes) else raw
                for letter in set(word[:2]):
                    by_letter.setdefault(letter, []).append(word)
            self._lexicons[field] = by_letter
        return self._lexicons[field]

    def doc_freqs(self, field: str, terms: Iterable[str]) -> dict[str, int]:
        if field not in self._searcher.schema:
            return dict.fromkeys(terms, 0)
        return {term: self._live_freq(field, term) for term in terms}

    def _live_freq(self, field: str, term: str) -> int:
        """How many live skills hold ``term`` in ``field`` (Whoosh's ``doc_frequency`` also
        counts deleted documents until the segment is rewritten: see tantivy's)."""
        found = int(self._searcher.doc_frequency(field, term))
        if not found or not self._searcher.reader().has_deletions():
            return found
        from whoosh.query import Term

        return sum(1 for _ in self._searcher.docs_for_query(Term(field, term)))

    def doc_count(self) -> int:
        return int(self._searcher.doc_count())

    def close(self) -> None:
        self._searcher.close()


class WhooshBackend(Backend):
    """Pure-Python Whoosh, as the design names it."""

    name: ClassVar[str] = "whoosh"

    @classmethod
    def create(cls, path: Path) -> IndexWriter:
        from whoosh import index

        prepare_new_folder(path)
        return WhooshWriter(path, index.create_in(str(path), _schema()), replace=False)

    @classmethod
    def update(cls, path: Path) -> IndexWriter:
        return WhooshWriter(path, _open_index(path), replace=True)

    @classmethod
    def open(cls, path: Path) -> IndexSearcher:
        return WhooshSearcher(_open_index(path))
