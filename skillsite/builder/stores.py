"""The content store, its hits and the search index of a build in progress, written together."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any

from skillsite.builder.extract import Built, Payload, finish
from skillsite.builder.vectors import VectorCollector
from skillsite.index import BACKENDS
from skillsite.linter.checker import FileResult
from skillsite.models import Source
from skillsite.store.content import ContentStore
from skillsite.store.hits import HITS_FILE, HitStore


class BuildStores:
    """The content store, its hits and the search index of the build in progress.

    Fresh skills are written as their results arrive, so no build holds 100k skills in
    memory, and the writing overlaps the checking. Which skills belong in ``dist/`` is
    only certain after the corpus-wide rules, so :meth:`settle` then removes what must
    go and adds what was not written yet (a duplicate name's winner, a skill whose
    dependency just appeared).
    """

    def __init__(self, work: Path, backend: str, previous: dict[str, str],
                 vectors: VectorCollector | None = None) -> None:
        engine = self.engine = BACKENDS[backend]
        self.vectors = vectors                # with the semantic extra: what to embed
        self.content = ContentStore(work / "content", write=True)
        self.hits = HitStore(work / "content" / HITS_FILE, write=True)
        self.index = (engine.update(work / "index") if previous
                      else engine.create(work / "index"))
        self.held = dict(previous)            # name -> fingerprint in the stores now
        self.offered: set[str] = set()        # names written from this build's results

    def __enter__(self) -> BuildStores:
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            self.index.__exit__(*exc)
        finally:  # a failed index commit (disk full) must not leave the shards open
            try:
                self.content.__exit__(*exc)
            finally:
                self.hits.__exit__(*exc)

    def finisher(self) -> Callable[[Source, FileResult | None], Built]:
        """The workers' :func:`~skillsite.builder.extract.finish` for these stores: it
        prepares the index's fields for this engine and, with vectors, tokenizes the
        semantic text."""
        return partial(finish, prepare=self.engine.prepare,
                       model=self.vectors.model if self.vectors is not None else None)

    def offer(self, payload: Payload) -> None:
        """A freshly checked skill without errors of its own; the first of a name wins."""
        if payload.name not in self.offered:
            self.offered.add(payload.name)
            if self.held.get(payload.name) != payload.fingerprint:
                self._put(payload)

    def settle(self, wanted: dict[str, str],
               fetch: Callable[[set[str]], Iterable[Payload]]) -> None:
        """Make the stores hold exactly ``wanted`` (name -> fingerprint); ``fetch`` reads
        the skills that are still missing."""
        if self.held == wanted:  # one comparison in C; the usual case of a small change
            return
        for name in [n for n, fp in self.held.items() if wanted.get(n) != fp]:
            self._delete(name)
            del self.held[name]
        missing = {n for n, fp in wanted.items() if self.held.get(n) != fp}
        for payload in fetch(missing) if missing else ():
            self._put(payload)

    def _put(self, payload: Payload) -> None:
        if payload.name in self.held:
            self._delete(payload.name)
        self.content.put_row(payload.content)
        self.hits.put(payload.hit)
        self.content.put_files(list(payload.files))
        self.index.add_prepared(payload.name, payload.index_fields)
        if self.vectors is not None:
            self.vectors.put(payload.name, payload.semantic_text)
        self.held[payload.name] = payload.fingerprint

    def _delete(self, name: str) -> None:
        self.content.delete(name)
        self.hits.delete(name)
        self.index.delete(name)
        if self.vectors is not None:
            self.vectors.delete(name)
