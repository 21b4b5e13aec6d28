"""The build's half of semantic search: one vector per skill in ``dist/vectors/``.

With the ``semantic`` extra installed, the stores (:class:`~skillsite.builder.stores.
BuildStores`) hand every skill they write or delete to a :class:`VectorCollector` too:
an incremental build embeds only the skills it wrote again, and keeps the previous
build's rows for the rest. Without the extra, the build writes no vectors and says so
once (:func:`semantic_model`), and the cache key changes with it, so that the first build
after installing the extra embeds every skill.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import compress
from pathlib import Path
from typing import Any

from skillsite.semantic.model import Model, SemanticUnavailable, load_model
from skillsite.store.vectors import (
    VECTORS_DIR,
    Vectors,
    VectorsDamaged,
    quantized,
    read_vectors,
    remove_vectors,
    write_vectors,
)

#: Texts embedded at once (the model's per-text work is in Python; this bounds memory).
BATCH = 2048


@dataclass(frozen=True)
class SemanticSetup:
    """Whether this build embeds: the model, or why not (said once by the CLI)."""

    model: Model | None
    note: str = ""

    @property
    def key(self) -> str:
        """What the build cache's key holds of it: the model's version, or nothing."""
        return self.model.version if self.model else ""


def semantic_model() -> SemanticSetup:
    try:
        return SemanticSetup(load_model())
    except SemanticUnavailable as why:
        return SemanticSetup(None, f"no vectors written ({why}); recommend stays lexical")


def previous_vectors(dist: Path, model: Model) -> Vectors | None:
    """The vectors of the previous build, when they were made by ``model`` and are whole;
    None means the build must embed every skill (so it must not reuse the cache)."""
    try:
        vectors = read_vectors(dist)
    except VectorsDamaged:
        return None
    return vectors if vectors.model == model.version else None


@dataclass
class VectorCollector:
    """The vectors of the skills in the stores: the previous build's rows, less those
    written again or deleted, plus the texts to embed at :meth:`finish`."""

    model: Model
    previous: Vectors | None = None
    gone: set[str] = field(default_factory=set)
    #: What to embed, by name: the text, or its token ids (packed) when a worker made them.
    texts: dict[str, str | bytes] = field(default_factory=dict)
    #: CPU seconds spent embedding (the build's timings report it).
    cpu: float = 0.0

    def put(self, name: str, text: str | bytes) -> None:
        self.gone.add(name)
        self.texts[name] = text

    def delete(self, name: str) -> None:
        self.gone.add(name)
        self.texts.pop(name, None)

    @property
    def embedded(self) -> int:
        return len(self.texts)

    def finish(self, work: Path, write: Callable[[Path, bytes], None] | None = None) -> None:
        """Write ``work/vectors/`` (``write``: see :func:`~skillsite.store.vectors.
        write_vectors`); a build that changed no skill keeps the hard links to the
        previous files."""
        import numpy as np

        if self.previous is not None and not self.gone:
            return
        started = time.process_time()
        kept_ids: list[str] = []
        parts: list[Any] = []
        if self.previous is not None:
            ids = self.previous.ids  # 100k at 100k skills: the loops stay in C
            keep = ~np.fromiter(map(self.gone.__contains__, ids), dtype=bool, count=len(ids))
            kept_ids = list(compress(ids, keep.tolist()))
            parts.append((np.asarray(self.previous.rows[keep]), self.previous.scales[keep],
                          self.previous.signs[keep]))
        names = sorted(self.texts)
        for start in range(0, len(names), BATCH):
            chunk = names[start:start + BATCH]
            tokens = self.model.tokens
            parts.append(quantized(self.model.embed_ids(
                [text if isinstance(text, bytes) else tokens.encode(text)
                 for text in (self.texts[n] for n in chunk)])))
        dims = self.model.dims
        rows = (np.concatenate([p[0] for p in parts]) if parts
                else np.zeros((0, dims), dtype=np.int8))
        scales = (np.concatenate([p[1] for p in parts]) if parts
                  else np.zeros(0, dtype=np.float32))
        signs = (np.concatenate([p[2] for p in parts]) if parts
                 else np.zeros((0, dims // 64), dtype=np.uint64))
        remove_vectors(work)
        write_vectors(work, Vectors(self.model.version, kept_ids + names, rows, scales, signs),
                      write)
        self.cpu = time.process_time() - started


__all__ = ["VECTORS_DIR", "SemanticSetup", "VectorCollector", "previous_vectors",
           "semantic_model"]
