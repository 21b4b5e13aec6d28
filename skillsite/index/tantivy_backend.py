"""The tantivy backend: the default, a Rust engine through its Python bindings.

Why these settings: text fields keep term frequencies but no positions (``freq``),
because queries are bags of terms and positions would only grow the index; the
writer indexes on one thread with a 128 MB heap, which writes a 10k-skill corpus as
a single segment, so opening the index reads one segment; and the reader never
watches the folder, since ``dist/`` does not change under it. Hits are named through
their slots (:mod:`skillsite.index.slots`).
"""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, cast

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
from skillsite.index.fuzzy import FUZZY_BOOST, FUZZY_FIELDS, FUZZY_MIN_CHARS, typed_stems
from skillsite.index.presence import padded_texts, presence_query
from skillsite.index.slots import (
    NAMES_FILE,
    SLOT_FIELD,
    NameTable,
    append_names,
    slot_count,
    write_names,
)
from skillsite.index.tokens import partial_term, query_terms

if TYPE_CHECKING:
    import tantivy

WRITER_HEAP_BYTES = 128_000_000
WRITER_THREADS = 1
#: Terms whose queries a searcher keeps, and hits whose skill names it keeps.
CLAUSES_KEPT = 4096
NAMES_KEPT = 100_000


def _schema() -> tantivy.Schema:
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field(KEY_FIELD, stored=True, tokenizer_name="raw", index_option="basic")
    for field in TEXT_FIELDS:  # presence fields: see skillsite.index.presence
        builder.add_text_field(field, tokenizer_name="whitespace",
                               index_option="basic" if field in PRESENCE_FIELDS else "freq")
    builder.add_unsigned_field(SLOT_FIELD, fast=True)
    return builder.build()


def _open_index(path: Path) -> tantivy.Index:
    import tantivy

    require_folder(path)
    try:
        return tantivy.Index.open(str(path))
    except (OSError, ValueError) as error:
        raise SearchIndexError(f"{path} is not a readable tantivy index: {error}") from error


class TantivyWriter(IndexWriter):
    """Streams changes into one tantivy ``IndexWriter`` and publishes them in one commit.

    Unlike the base class it buffers nothing in Python, so indexing 100k skills needs
    only tantivy's own bounded heap. tantivy applies a delete to every document added
    before it, which is exactly the base class's order of operations.
    """

    def __init__(self, path: Path, index: tantivy.Index, *, replace: bool) -> None:
        super().__init__(path, replace=replace)
        self._index = index
        self._writer: tantivy.IndexWriter | None = None
        self._added: set[str] = set()
        if replace and not (path / NAMES_FILE).is_file():
            raise SearchIndexError(f"{path} has no {NAMES_FILE} (damaged): build again "
                                   "with --clean")
        # The names of the slots this writer adds, after the file's (an update counts
        # those at its first add; None until then).
        self._base: int | None = None if replace else 0
        self._added_names: list[str] = []

    def _engine(self) -> tantivy.IndexWriter:
        if self._writer is None:
            self._writer = self._index.writer(heap_size=WRITER_HEAP_BYTES,
                                              num_threads=WRITER_THREADS)
        return self._writer

    def add_fields(self, name: str, texts: dict[str, str]) -> None:
        self.add_prepared(name, TantivyBackend.prepare(texts))

    def add_prepared(self, name: str, fields: dict[str, str]) -> None:
        import tantivy

        self._check_open()
        writer = self._engine()
        if self._replace or name in self._added:  # the last add of a name wins
            writer.delete_documents_by_term(KEY_FIELD, name)
        self._added.add(name)
        if self._base is None:
            self._base = slot_count(self.path / NAMES_FILE)
        document = tantivy.Document(**fields, **{KEY_FIELD: name})
        document.add_unsigned(SLOT_FIELD, self._base + len(self._added_names))
        self._added_names.append(name)
        writer.add_document(document)

    def delete(self, name: str) -> None:
        self._check_open()
        self._engine().delete_documents_by_term(KEY_FIELD, name)
        self._added.discard(name)

    def commit(self) -> None:
        self._check_open()
        self._done = True
        writer = self._engine()
        writer.commit()
        writer.garbage_collect_files()
        writer.wait_merging_threads()
        if not self._replace:
            write_names(self.path / NAMES_FILE, self._added_names)
        elif self._added_names:  # unchanged: the link stays
            append_names(self.path / NAMES_FILE, self._added_names)

    def discard(self) -> None:
        self._done = True
        if self._writer is not None:
            self._writer.rollback()
            self._writer = None


class TantivySearcher(IndexSearcher):
    """Candidates from an OR of term queries over every text field (a constant score on
    the presence fields, scaled BM25 on the others: see
    :func:`~skillsite.index.fields.boosts`), plus prefix and one-typo matches on names,
    titles and tags (``fuzzy_term_query`` with ``prefix``)."""

    def __init__(self, index: tantivy.Index, names: NameTable) -> None:
        index.config_reader(reload_policy="manual")
        self._schema = index.schema
        self._searcher = index.searcher()
        self._boosts = boosts()
        self._kept: dict[tuple[str, bool, bool], list[tuple[tantivy.Occur, tantivy.Query]]] = {}
        self._common: dict[str, bool] = {}  # term -> leaves_out_body, kept
        self._slot_names: NameTable | None = names
        self._named: dict[int, str] = {}              # slot -> skill name

    def candidates(self, query: str, limit: int = 100) -> list[str]:
        terms = query_terms(query)
        if not terms or limit <= 0:
            return []
        typed = partial_term(query)
        hits = self._search([clause for term in terms
                             for clause in self._clauses(term, typed=term == typed)], limit)
        if len(hits) < limit and any(self._leaves_out_body(term) for term in terms):
            hits = self._search([clause for term in terms for clause in self._clauses(
                term, lean=False, typed=term == typed)], limit)
        slots = self._searcher.fast_field_values(SLOT_FIELD, [address for _, address in hits])
        kept = [self._named.get(slot) if isinstance(slot, int) else None for slot in slots]
        if None in kept:  # most hits are kept: no call for each
            return [name or self._slot_name(slot) for name, slot in zip(kept, slots, strict=True)]
        return cast("list[str]", kept)

    def _search(self, clauses: list[tuple[tantivy.Occur, tantivy.Query]], limit: int
                ) -> list[tuple[float, tantivy.DocAddress]]:
        import tantivy

        return self._searcher.search(tantivy.Query.boolean_query(clauses), limit,
                                     count=False).hits

    def _leaves_out_body(self, term: str) -> bool:
        common = self._common.get(term)
        if common is None:
            if len(self._common) >= CLAUSES_KEPT:
                self._common.clear()
            common = self._common[term] = leaves_out_body(
                self._searcher.doc_freq(BODY_FIELD, term), self._searcher.num_docs)
        return common

    def _slot_name(self, slot: object) -> str:
        """The skill name of a slot, kept: the index never changes under a reader."""
        name = self._named.get(slot) if isinstance(slot, int) else None
        if name is None:
            if not isinstance(slot, int) or self._slot_names is None:
                raise SearchIndexError(f"a hit has no {SLOT_FIELD}: the index is damaged")
            if len(self._named) >= NAMES_KEPT:
                self._named.clear()
            name = self._named[slot] = self._slot_names.name(slot)
        return name

    def _clauses(self, term: str, *, lean: bool = True, typed: bool = False
                 ) -> list[tuple[tantivy.Occur, tantivy.Query]]:
        """A term's boosted queries on every field (but the body, when ``lean`` and
        :func:`~skillsite.index.fields.leaves_out_body`), and its one-typo queries on names,
        titles and tags, or, for a word being ``typed``, its prefix ones: kept, since a
        long-lived reader sees the same words again. A presence clause scores the field's
        weight times the word's specificity there, as ranking does."""
        known = self._kept.get((term, lean, typed))
        if known is not None:
            return known
        import tantivy

        query_of, should = tantivy.Query, tantivy.Occur.Should
        skipped = BODY_FIELD if lean and self._leaves_out_body(term) else None
        docs = self._searcher.num_docs
        clauses = []
        for field, boost in self._boosts.items():
            docs_with_term = self._searcher.doc_freq(field, term)
            if field == skipped or not docs_with_term:
                continue  # a field without the term would add nothing to any score
            query = query_of.term_query(self._schema, field, term)
            if field in PRESENCE_FIELDS:
                scale = specificity(self._live_freq(field, term), docs) \
                    if field in FUZZY_FIELDS else 1.0
                clauses.append((should, presence_query(query, boost * max(scale, COMMON_PRESENCE),
                                                       docs_with_term, docs)))
            else:
                clauses.append((should, query_of.boost_query(query, boost)))
        if len(term) >= FUZZY_MIN_CHARS:
            typo = term not in self.known_words((term,))
            if typed or typo:
                for field in FUZZY_FIELDS:
                    clause = self._loose_clause(field, term, typo, typed)
                    if clause is not None:
                        clauses.append((should, clause))
        if len(self._kept) >= CLAUSES_KEPT:
            self._kept.clear()
        self._kept[term, lean, typed] = clauses
        return clauses

    def _loose_clause(self, field: str, term: str, typo: bool, typed: bool
                      ) -> tantivy.Query | None:
        """At a constant score: for a word being ``typed``, the documents whose ``field``
        has a longer word that begins with ``term`` (or, for a ``typo``, begins within an
        edit of it); for a whole word, one within an edit of it (see
        :mod:`skillsite.index.fuzzy`). None when there is no such word."""
        import tantivy

        query_of, boost = tantivy.Query, self._boosts[field] * FUZZY_BOOST
        if typo:
            fuzzy = query_of.fuzzy_term_query(self._schema, field, term, distance=1,
                                              transposition_cost_one=True, prefix=typed)
            stems = [word for word in typed_stems(term) if self._searcher.doc_freq(field, word)
                     ] if typed else []
            if stems:  # the stems a word being typed runs past (see skillsite.index.fuzzy)
                fuzzy = query_of.boolean_query([
                    (tantivy.Occur.Should, fuzzy),
                    (tantivy.Occur.Should, query_of.term_set_query(self._schema, field, stems))])
                return query_of.const_score_query(fuzzy, boost)
            return query_of.boost_query(fuzzy, boost)
        longer = [word for word, _ in self._searcher.terms_with_prefix(field, term)
                  if word != term]
        if not longer:
            return None
        return query_of.const_score_query(
            query_of.term_set_query(self._schema, field, longer), boost)

    def known_words(self, terms: Iterable[str]) -> frozenset[str]:
        return frozenset(term for term in terms if any(
            self._searcher.doc_freq(field, term) for field in FUZZY_FIELDS))

    def doc_freqs(self, field: str, terms: Iterable[str]) -> dict[str, int]:
        return {term: self._live_freq(field, term) for term in terms}

    def _live_freq(self, field: str, term: str) -> int:
        """How many live skills hold ``term`` in ``field``. tantivy's ``doc_freq`` also
        counts documents an incremental build deleted until a merge drops them, which would
        make ranking's weights, and so its answers, differ from a clean build's; an index
        that never deleted (as many slots as live documents) needs no count."""
        found = int(self._searcher.doc_freq(field, term))
        if not found or self._slot_names is None or \
                self._slot_names.count == self._searcher.num_docs:
            return found
        import tantivy

        hits = self._searcher.search(tantivy.Query.term_query(self._schema, field, term), 1,
                                     count=True)
        return int(hits.count)  # type: ignore[attr-defined]  # the stubs lack it

    def may_hold(self, name: str) -> bool:
        return bool(self._searcher.doc_freq(KEY_FIELD, name))

    def close(self) -> None:
        if self._slot_names is not None:
            self._slot_names.close()
            self._slot_names = None

    def doc_count(self) -> int:
        return int(self._searcher.num_docs)


class TantivyBackend(Backend):
    """Rust tantivy: the default, fast to build, open and query, and compact."""

    name: ClassVar[str] = "tantivy"

    @classmethod
    def create(cls, path: Path) -> IndexWriter:
        import tantivy

        prepare_new_folder(path)
        return TantivyWriter(path, tantivy.Index(_schema(), str(path), reuse=False), replace=False)

    @classmethod
    def update(cls, path: Path) -> IndexWriter:
        return TantivyWriter(path, _open_index(path), replace=True)

    @classmethod
    def prepare(cls, texts: dict[str, str]) -> dict[str, str]:
        """The engine's fields, presence fields padded (:mod:`skillsite.index.presence`)."""
        return padded_texts(engine_texts(texts))

    @classmethod
    def open(cls, path: Path) -> IndexSearcher:
        index = _open_index(path)
        names = path / NAMES_FILE
        if not names.is_file():
            raise SearchIndexError(f"{path} has no {NAMES_FILE}: the index is damaged; "
                                   "build again with --clean")
        return TantivySearcher(index, NameTable(names))
