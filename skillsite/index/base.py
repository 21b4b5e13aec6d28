"""The small interface every search engine sits behind.

A backend only stores documents and returns *candidates*: skill names that share at
least one query term with the skill, best first by the engine's own BM25. Ordering
the final results is :func:`skillsite.index.ranking.rank`'s job, above this interface, so
that swapping the engine never changes what a user sees.
"""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import ClassVar

from skillsite.entries import IndexDoc
from skillsite.errors import SkillsiteError


class SearchIndexError(SkillsiteError):
    """The search index is missing, damaged, of another backend, or misused."""




class IndexWriter:
    """Collects changes and hands them to the engine in one batch on :meth:`commit`.

    Nothing is visible before the commit. This base class buffers the changes (the
    Whoosh backend uses it as is); the tantivy backend streams them into its engine,
    which keeps only a bounded heap. Either way the engines agree on the order of
    operations: ``delete(name)`` removes the committed document *and*
    any document added under that name earlier in this writer, while a document
    added after the delete survives. Within one writer the last ``add`` of a name
    wins. A writer from :meth:`Backend.update` also treats ``add`` as a replacement
    of the committed document with that name, so an incremental build never leaves
    two versions of a skill.

    Use it as a context manager to commit on success and drop the batch on error.
    """

    def __init__(self, path: Path, *, replace: bool) -> None:
        self.path = path
        self._replace = replace
        self._adds: dict[str, dict[str, str]] = {}
        self._deletes: dict[str, None] = {}
        self._done = False

    def add(self, doc: IndexDoc) -> None:
        """Queue ``doc`` for indexing."""
        from skillsite.index.fields import field_texts

        self.add_fields(doc.name, field_texts(doc))

    def add_fields(self, name: str, texts: dict[str, str]) -> None:
        """Queue a document whose fields :func:`~skillsite.index.fields.field_texts`
        already tokenized, for callers that tokenize in worker processes."""
        self._check_open()
        self._adds.pop(name, None)
        self._adds[name] = texts

    def add_prepared(self, name: str, fields: dict[str, str]) -> None:
        """Queue a document whose fields :meth:`Backend.prepare` made from
        :func:`~skillsite.index.fields.field_texts` (in a build worker)."""
        self.add_fields(name, fields)

    def delete(self, name: str) -> None:
        """Queue the removal of the skill called ``name``."""
        self._check_open()
        self._adds.pop(name, None)
        self._deletes[name] = None

    def commit(self) -> None:
        """Write every queued change to the engine and publish it, in one commit."""
        self._check_open()
        self._done = True
        deletes = list(self._deletes)
        if self._replace:
            deletes += [name for name in self._adds if name not in self._deletes]
        self._apply(deletes, list(self._adds.items()))
        self._adds.clear()
        self._deletes.clear()

    def discard(self) -> None:
        """Forget the queued changes; the index on disk stays as it was."""
        self._done = True
        self._adds.clear()
        self._deletes.clear()

    def _apply(self, deletes: list[str], docs: list[tuple[str, dict[str, str]]]) -> None:
        raise NotImplementedError

    def _check_open(self) -> None:
        if self._done:
            raise SearchIndexError("this index writer has already committed or been discarded")

    def __enter__(self) -> IndexWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._done:
            return
        if kind is None:
            self.commit()
        else:
            self.discard()


class IndexSearcher:
    """Read-only access to an index; cheap to query many times, so keep one open."""

    def candidates(self, query: str, limit: int = 100) -> list[str]:
        """Return up to ``limit`` skill names sharing a term with ``query``, best first.

        The query is plain words (see :mod:`skillsite.index.tokens`): no syntax, so
        it never raises on user input; a query without terms returns ``[]``.
        """
        raise NotImplementedError

    def known_words(self, terms: Iterable[str]) -> frozenset[str]:
        """Return those of ``terms`` that some skill's name, title or tags hold as a word:
        they match by prefix but get no typo matches (see :mod:`skillsite.index.fuzzy`)."""
        raise NotImplementedError

    def doc_freqs(self, field: str, terms: Iterable[str]) -> dict[str, int]:
        """How many skills hold each of ``terms`` in ``field`` (``related`` weighs the terms
        two skills share by how rare they are)."""
        raise NotImplementedError

    def may_hold(self, name: str) -> bool:
        """False only when no skill is called exactly ``name``: a cheap test before the
        content store is asked (a deleted skill may still answer True)."""
        return True

    def doc_count(self) -> int:
        """Return the number of live (not deleted) skills in the index."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the engine's files and handles."""

    def __enter__(self) -> IndexSearcher:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


class Backend:
    """One search engine. Subclasses live one per module and register in ``BACKENDS``."""

    name: ClassVar[str]

    @classmethod
    def create(cls, path: Path) -> IndexWriter:
        """Create a new, empty index in folder ``path`` (made if missing, must be empty)."""
        raise NotImplementedError

    @classmethod
    def update(cls, path: Path) -> IndexWriter:
        """Open the existing index in ``path`` for changes."""
        raise NotImplementedError

    @classmethod
    def open(cls, path: Path) -> IndexSearcher:
        """Open the existing index in ``path`` read-only."""
        raise NotImplementedError

    @classmethod
    def prepare(cls, texts: dict[str, str]) -> dict[str, str]:
        """What :meth:`IndexWriter.add_prepared` takes for a document of these
        :func:`~skillsite.index.fields.field_texts`: work a build's workers do, so that the
        process that writes the index does less."""
        return texts


def prepare_new_folder(path: Path) -> None:
    """Make ``path`` an empty folder, refusing to index over existing files."""
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise SearchIndexError(f"cannot create a search index in {path}: not an empty folder")
    path.mkdir(parents=True, exist_ok=True)


def require_folder(path: Path) -> None:
    """Fail clearly when there is no index folder at ``path``."""
    if not path.is_dir():
        raise SearchIndexError(f"no search index at {path}")
