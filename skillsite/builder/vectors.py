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
from contextlib import suppress
from dataclasses import dataclass, field
from itertools import compress
from pathlib import Path
from typing import Any

from skillsite.semantic.model import Model, SemanticUnavailable, load_model
from skillsite.store.vectors import (
    FORMAT_VERSION,
    INDEX,
    ROWS,
    SCALES,
    SIGNS,
    VECTORS_DIR,
    Vectors,
    VectorsDamaged,
    index_bytes,
    quantized,
    read_vectors,
    remove_vectors,
    write_vectors,
)

#: Texts embedded at once (the model's per-text work is in Python; this bounds memory).
BATCH = 2048
#: At most this many skills written again or deleted, and the previous files' bytes are
#: spliced (see :meth:`VectorCollector.finish`).
SPLICED = 64
_MAGIC = b"\x93NUMPY"


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
    #: The dist/ that ``previous`` was read from: its files' bytes are spliced when few
    #: skills changed.
    source: Path | None = None

    def put(self, name: str, text: str | bytes) -> None:
        self.gone.add(name)
        self.texts[name] = text

    def delete(self, name: str) -> None:
        self.gone.add(name)
        self.texts.pop(name, None)

    @property
    def embedded(self) -> int:
        return len(self.texts)

    def finish(self, work: Path, write: Callable[[Path, Any], None] | None = None) -> None:
        """Write ``work/vectors/`` (``write``: see :func:`~skillsite.store.vectors.
        write_vectors`); a build that changed no skill keeps the hard links to the
        previous files."""
        import numpy as np

        if self.previous is not None and not self.gone:
            return
        started = time.process_time()
        if self._spliced(work, write):
            self.cpu = time.process_time() - started
            return
        kept_ids: list[str] = []
        parts: list[Any] = []
        if self.previous is not None:
            ids = self.previous.ids  # 100k at 100k skills: the loops stay in C
            keep = ~np.fromiter(map(self.gone.__contains__, ids), dtype=bool, count=len(ids))
            kept_ids = list(compress(ids, keep.tolist()))
            parts.append((np.asarray(self.previous.rows[keep]), self.previous.scales[keep],
                          self.previous.signs[keep]))
        names = sorted(self.texts)
        parts += self._embedded(names)
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

    def _embedded(self, names: list[str]) -> list[Any]:
        """(rows, scales, signs) of the texts of ``names``, a batch at a time."""
        parts = []
        tokens = self.model.tokens
        for start in range(0, len(names), BATCH):
            parts.append(quantized(self.model.embed_ids(
                [text if isinstance(text, bytes) else tokens.encode(text)
                 for text in (self.texts[n] for n in names[start:start + BATCH])])))
        return parts

    def _spliced(self, work: Path, write: Callable[[Path, Any], None] | None) -> bool:
        """Write the vectors as the full path of :meth:`finish` would, from the previous
        files' bytes: the rows of the skills that stay, in their order, then those
        embedded now. Only when at most :data:`SPLICED` skills changed and their count
        did not (so that each ``.npy`` header, which holds the shape, is the previous
        one); False, before anything is written, when it does not apply. At 100k skills
        this saves selecting 100k rows of a memory-mapped file and saving them again."""
        previous, source = self.previous, self.source
        if previous is None or source is None or len(self.gone) > SPLICED:
            return False
        ids = previous.ids
        removed = []
        for name in self.gone:  # (a search in C each)
            with suppress(ValueError):
                removed.append(ids.index(name))
        removed.sort()
        names = sorted(self.texts)
        count, dims = len(ids), previous.dims
        if len(removed) != len(names) or dims != self.model.dims:
            return False
        widths = {ROWS: dims, SCALES: 4, SIGNS: dims // 64 * 8}  # bytes a row
        blobs = {}
        for relative, width in widths.items():
            try:
                blob = (source / relative).read_bytes()
            except OSError:
                return False
            head = len(blob) - count * width
            if head < len(_MAGIC) or not blob.startswith(_MAGIC):
                return False
            blobs[relative] = (memoryview(blob), head, width)
        import numpy as np

        fresh = self._embedded(names)  # (int8 rows, float32 scales, uint64 signs)
        added = {relative: b"".join(np.ascontiguousarray(part[number]).tobytes()
                                    for part in fresh)
                 for number, relative in enumerate(widths)}
        if any(len(added[relative]) != len(names) * width
               for relative, width in widths.items()):
            return False
        kept = list(ids)
        for number in reversed(removed):
            del kept[number]
        remove_vectors(work)
        (work / VECTORS_DIR).mkdir(parents=True, exist_ok=True)
        put = write or _replace_now
        spans = list(zip([-1, *removed], [*removed, count], strict=True))  # rows kept
        for relative, (view, head, width) in blobs.items():
            put(work / relative, [view[:head], *(view[head + (a + 1) * width:head + b * width]
                                                 for a, b in spans if b > a + 1),
                                  added[relative]])
        put(work / INDEX, index_bytes({"format_version": FORMAT_VERSION,
                                       "model": self.model.version, "dims": dims,
                                       "count": len(kept) + len(names),
                                       "ids": kept + names}))
        return True


def _replace_now(path: Path, parts: Any) -> None:
    path.unlink(missing_ok=True)  # never write through a hard link to the previous build
    path.write_bytes(parts if isinstance(parts, bytes) else b"".join(parts))


__all__ = ["VECTORS_DIR", "SemanticSetup", "VectorCollector", "previous_vectors",
           "semantic_model"]
