"""Search a built ``dist/``: engine candidates, then skillsite's own ranking.

The engine (tantivy or Whoosh) only proposes candidates; :func:`skillsite.index.ranking.rank`
orders them from the content store's fields, so both engines give the same answer.
"""
from __future__ import annotations

from pathlib import Path

from skillsite.errors import SkillsiteError
from skillsite.index import BACKENDS
from skillsite.index.ranking import rank
from skillsite.store.content import ContentStore
from skillsite.store.manifest import read_manifest

CANDIDATES = 100


def search(dist: Path, query: str, *, limit: int = 10) -> list[tuple[str, float]]:
    """The best ``limit`` skills for ``query`` as (name, score), best first."""
    manifest = read_manifest(dist)
    if manifest is None:
        raise SkillsiteError(f"{dist} is not a skillsite dist/ (no manifest.json); run "
                             "`skillsite build` first")
    engine = BACKENDS[manifest["index_backend"]]
    with engine.open(dist / "index") as searcher:
        names = searcher.candidates(query, limit=max(CANDIDATES, limit))
    with ContentStore(dist / "content") as store:
        docs = [doc for name in names if (doc := store.index_doc(name)) is not None]
    return rank(query, docs, limit=limit)
