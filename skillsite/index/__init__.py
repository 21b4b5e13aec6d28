"""The search index: one small interface, two engines behind it.

``skillsite build`` writes the index with :meth:`Backend.create` (or copies the
previous one and changes it with :meth:`Backend.update`); the reader opens it with
:meth:`Backend.open` and asks for *candidates*, which
:func:`skillsite.index.ranking.rank` then orders. Both engines index the same terms from
:mod:`skillsite.index.tokens`, so they return the same candidates for ordinary
queries, and ranking above them makes their results identical.

Example::

    from skillsite.index import BACKENDS, IndexDoc

    backend = BACKENDS["tantivy"]
    with backend.create(out / "index") as writer:
        writer.add(IndexDoc(name="pdf-extract", description="Extract text from PDFs"))
    with backend.open(out / "index") as searcher:
        names = searcher.candidates("extract pdf text")

The engine libraries are imported only when an index is created or opened, so
importing this package stays cheap.
"""
from __future__ import annotations

from skillsite.entries import IndexDoc
from skillsite.index.base import (
    Backend,
    IndexSearcher,
    IndexWriter,
    SearchIndexError,
)
from skillsite.index.tantivy_backend import TantivyBackend
from skillsite.index.whoosh_backend import WhooshBackend

BACKENDS: dict[str, type[Backend]] = {
    TantivyBackend.name: TantivyBackend,
    WhooshBackend.name: WhooshBackend,
}
DEFAULT_BACKEND = TantivyBackend.name


def get_backend(name: str) -> type[Backend]:
    """Return the backend called ``name``, or fail with the list of known ones."""
    try:
        return BACKENDS[name]
    except KeyError:
        known = ", ".join(sorted(BACKENDS))
        raise SearchIndexError(f"unknown index backend {name!r} (known: {known})") from None


__all__ = [
    "BACKENDS",
    "DEFAULT_BACKEND",
    "Backend",
    "IndexDoc",
    "IndexSearcher",
    "IndexWriter",
    "SearchIndexError",
    "get_backend",
]
