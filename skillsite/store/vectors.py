"""``vectors/``: one embedding per skill, written by a build with the ``semantic`` extra.

Four files (artifact format 1.2; a dist/ without them is answered lexically):

- ``vectors/index.json``: ``{"format_version": 1, "model": <name>, "dims": d,
  "count": n, "ids": [...]}``, the skill id of each row in row order;
- ``vectors/rows.npy``: int8, ``(n, d)``: each skill's unit vector times its scale;
- ``vectors/scales.npy``: float32, ``(n,)``: what turns a row back into a unit vector;
- ``vectors/signs.npy``: uint64, ``(n, d / 64)``: the rows' sign bits, packed, so that a
  query first ranks every skill by Hamming distance (a few ms at 100k) and computes the
  exact cosine of only the closest :data:`SHORTLIST` (see :func:`nearest`).

The manifest holds each file's sha256, as for every file of dist/. numpy is imported only
when vectors are read or written.
"""
from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

VECTORS_DIR = "vectors"
INDEX = f"{VECTORS_DIR}/index.json"
ROWS = f"{VECTORS_DIR}/rows.npy"
SCALES = f"{VECTORS_DIR}/scales.npy"
SIGNS = f"{VECTORS_DIR}/signs.npy"
FILES = (INDEX, ROWS, SCALES, SIGNS)
FORMAT_VERSION = 1
#: Skills whose exact cosine a query computes, chosen by the sign bits' Hamming distance.
SHORTLIST = 512


class VectorsDamaged(Exception):
    """A vector file is not what its index says: ``file`` names it, the message why."""

    def __init__(self, file: str, what: str) -> None:
        super().__init__(what)
        self.file = file


@dataclass(frozen=True)
class Vectors:
    """The vectors of a dist/ (``rows`` memory-mapped), or of a build in progress."""

    model: str
    ids: list[str]
    rows: Any       # np.ndarray int8 (n, d)
    scales: Any     # np.ndarray float32 (n,)
    signs: Any      # np.ndarray uint64 (n, d / 64)

    @property
    def dims(self) -> int:
        return int(self.rows.shape[1])


class Neighbour:
    """One skill near a query vector: its id and cosine (a plain class: hundreds a query)."""

    __slots__ = ("id", "cosine")

    def __init__(self, id: str, cosine: float) -> None:
        self.id = id
        self.cosine = cosine


def quantized(unit: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(int8 rows, scales, packed sign bits) of unit vectors, one a row."""
    import numpy as np

    peak = np.abs(unit).max(axis=1) if len(unit) else np.zeros(0, dtype=np.float32)
    scales = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    rows = np.round(unit / scales[:, None]).astype(np.int8)
    return rows, scales, sign_bits(unit)


def sign_bits(unit: np.ndarray) -> np.ndarray:
    """The packed sign bits of each row, as uint64 words (dims must be a multiple of 64)."""
    import numpy as np

    packed = np.packbits(unit > 0, axis=1)
    return np.ascontiguousarray(packed).view(np.uint64).reshape(len(unit), -1)


def write_vectors(dist: Path, vectors: Vectors,
                  write: Callable[[Path, bytes], None] | None = None) -> None:
    """The four files under ``dist/vectors/`` (replacing any, never writing through a hard
    link to a previous build's file); ``write`` takes each path and its bytes instead
    (the build writes on a thread)."""
    import numpy as np

    folder = dist / VECTORS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    index = {"format_version": FORMAT_VERSION, "model": vectors.model, "dims": vectors.dims,
             "count": len(vectors.ids), "ids": vectors.ids}
    for relative, array in ((ROWS, vectors.rows), (SCALES, vectors.scales),
                            (SIGNS, vectors.signs)):
        if write is not None:
            saved = io.BytesIO()
            np.save(saved, np.ascontiguousarray(array), allow_pickle=False)
            write(dist / relative, saved.getvalue())
            continue
        (dist / relative).unlink(missing_ok=True)
        np.save(dist / relative, np.ascontiguousarray(array), allow_pickle=False)
    text = index_bytes(index)
    if write is not None:
        write(dist / INDEX, text)
        return
    (dist / INDEX).unlink(missing_ok=True)
    (dist / INDEX).write_bytes(text)


def index_bytes(index: dict[str, Any]) -> bytes:
    """``vectors/index.json``'s bytes."""
    return json.dumps(index, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def remove_vectors(dist: Path) -> None:
    for relative in FILES:
        (dist / relative).unlink(missing_ok=True)
    if (dist / VECTORS_DIR).is_dir() and not any((dist / VECTORS_DIR).iterdir()):
        (dist / VECTORS_DIR).rmdir()


def read_vectors(dist: Path) -> Vectors:
    """The vectors of ``dist``, checked for shape and agreement (the manifest's sizes and
    checksums are the reader's to check); :class:`VectorsDamaged` names what is wrong."""
    import numpy as np

    try:
        index = json.loads((dist / INDEX).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise VectorsDamaged(INDEX, f"cannot be read ({error})") from None
    if not isinstance(index, dict) or index.get("format_version") != FORMAT_VERSION:
        raise VectorsDamaged(INDEX, f"is not format {FORMAT_VERSION} vectors")
    ids, dims, count = index.get("ids"), index.get("dims"), index.get("count")
    if (not isinstance(ids, list) or not all(map(isinstance, ids, repeat(str)))
            or not isinstance(dims, int) or dims <= 0 or dims % 64 or count != len(ids)
            or not isinstance(index.get("model"), str)):
        raise VectorsDamaged(INDEX, "has no consistent ids, dims and count")
    arrays = {}
    for relative, dtype, shape in ((ROWS, np.int8, (count, dims)),
                                   (SCALES, np.float32, (count,)),
                                   (SIGNS, np.uint64, (count, dims // 64))):
        try:
            array = np.load(dist / relative, mmap_mode="r", allow_pickle=False)
        except (OSError, ValueError) as error:
            raise VectorsDamaged(relative, f"cannot be read ({error})") from None
        if array.dtype != dtype or array.shape != shape:
            raise VectorsDamaged(relative, f"holds {array.dtype} {array.shape}, the index "
                                 f"says {np.dtype(dtype)} {shape}")
        arrays[relative] = array
    return Vectors(index["model"], ids, arrays[ROWS], np.asarray(arrays[SCALES]),
                   np.asarray(arrays[SIGNS]))


def nearest(vectors: Vectors, query: np.ndarray, limit: int) -> list[Neighbour]:
    """The ``limit`` skills closest to the unit vector ``query``, best first: the
    :data:`SHORTLIST` nearest (or ``limit``, when more) by the sign bits' Hamming distance,
    then by exact cosine."""
    import numpy as np

    count = len(vectors.ids)
    if count == 0 or limit <= 0:
        return []
    keep = min(max(SHORTLIST, limit), count)
    if keep == count:
        shortlist = np.arange(count)
    else:
        bits = sign_bits(query[None, :])[0]
        distance = np.bitwise_count(vectors.signs ^ bits).sum(axis=1, dtype=np.int32)
        shortlist = np.argpartition(distance, keep - 1)[:keep]
    cosines = (vectors.rows[shortlist].astype(np.float32) @ query) * vectors.scales[shortlist]
    order = np.argsort(-cosines, kind="stable")[:limit]
    return [Neighbour(vectors.ids[int(shortlist[i])], float(cosines[i])) for i in order]
