"""Benchmark the two search-index backends side by side on synthetic skills.

Usage::

    python bench/bench_index.py [--count 10000] [--queries 50] [--limit 100] [--seed 1]

For each backend it reports, on the same ``--count`` synthetic IndexDocs:

  build   create + add every doc + commit (includes skillsite's own tokenizing,
          which is also timed alone: both engines index its output)
  open    Backend.open of the finished index plus a first doc_count()
  query   mean candidates(query, limit) latency over ``--queries`` queries
  rank    mean rank() over the tantivy candidates (the same for both backends)
  size    bytes on disk of the index folder

and the whoosh/tantivy ratio of each. It also reports how often the two backends'
candidate sets agree: they hold the same terms, so every doc matching a query
matches in both, but when more than ``--limit`` docs match, each engine's BM25
picks its own top ``--limit``.
"""
from __future__ import annotations

import argparse
import itertools
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from skillsite.index import (  # noqa: E402
    BACKENDS,
    IndexDoc,
    tokens,  # noqa: E402
)
from skillsite.index.fields import field_texts  # noqa: E402
from skillsite.index.ranking import rank  # noqa: E402

TOPICS = ["pdf", "docker", "kubernetes", "git", "terraform", "sql", "postgres", "redis", "react", "css", "python", "rust", "go", "testing", "security", "oauth", "csv", "excel", "email", "logs", "release", "api", "openapi", "shell", "regex", "cache", "charts", "pandas", "helm", "ci", "deploy", "migrate", "audit", "incident", "translate", "ocr", "image", "video", "audio", "backup", "monitor", "metrics", "queue", "kafka", "search", "index", "graph", "notebook", "lint", "format"]
VOCABULARY = 20000
VERBS = ["write", "fix", "debug", "review", "deploy", "extract", "merge", "convert", "test", "audit", "plan", "build"]


def _words(rng: random.Random, vocabulary: list[str], weights: list[float], count: int) -> str:
    # Zipf's law: a word's frequency falls as 1/rank, as in real prose.
    return " ".join(rng.choices(vocabulary, cum_weights=weights, k=count))


def make_docs(count: int, seed: int) -> list[IndexDoc]:
    """Return ``count`` varied, deterministic IndexDocs."""
    rng = random.Random(seed)
    vocabulary = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9)))
                  for _ in range(VOCABULARY)]
    weights = list(itertools.accumulate(1 / position for position in range(1, VOCABULARY + 1)))
    docs = []
    for number in range(count):
        topic, other = rng.sample(TOPICS, 2)
        verb = rng.choice(VERBS)
        docs.append(IndexDoc(
            name=f"{topic}-{verb}-{number}",
            title=f"{verb.title()} {topic} {other}",
            description=f"{verb.title()} {topic} with {other}. " + _words(rng, vocabulary, weights, 25),
            tags=(topic, other),
            intents=(f"{verb} {topic}",),
            applies_to=(f"*.{other}",),
            compatibility=rng.choice(("", "python>=3.11", "linux, macos")),
            headings=tuple(_words(rng, vocabulary, weights, 3) for _ in range(4)),
            body=_words(rng, vocabulary, weights, 250),
        ))
    return docs


def make_queries(count: int, seed: int) -> list[str]:
    rng = random.Random(seed + 1)
    shapes = [
        lambda: rng.choice(TOPICS),
        lambda: f"{rng.choice(VERBS)} {rng.choice(TOPICS)}",
        lambda: f"how do I {rng.choice(VERBS)} {rng.choice(TOPICS)} and {rng.choice(TOPICS)}?",
        lambda: f"{rng.choice(TOPICS)}-{rng.choice(VERBS)}-{rng.randrange(100)}",
    ]
    return [rng.choice(shapes)() for _ in range(count)]


def _size(path: Path) -> int:
    return sum(item.stat().st_size for item in path.rglob("*") if item.is_file())


def measure(backend: str, docs: list[IndexDoc], queries: list[str], limit: int,
            root: Path) -> tuple[dict[str, float], list[list[str]]]:
    engine = BACKENDS[backend]
    path = root / backend
    tokens._TERMS.clear()  # every build starts cold, as a real one does
    start = time.perf_counter()
    with engine.create(path) as writer:
        for doc in docs:
            writer.add(doc)
    build = time.perf_counter() - start
    start = time.perf_counter()
    searcher = engine.open(path)
    assert searcher.doc_count() == len(docs)
    opened = time.perf_counter() - start
    results, times = [], []
    for query in queries:
        start = time.perf_counter()
        results.append(searcher.candidates(query, limit))
        times.append(time.perf_counter() - start)
    searcher.close()
    figures = {"build s": build, "open ms": opened * 1e3,
               "query ms": statistics.fmean(times) * 1e3, "size MB": _size(path) / 1e6}
    return figures, results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10000)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    docs = make_docs(args.count, args.seed)
    by_name = {doc.name: doc for doc in docs}
    queries = make_queries(args.queries, args.seed)
    tokens._TERMS.clear()
    start = time.perf_counter()
    for doc in docs:
        field_texts(doc)
    tokenize_s = time.perf_counter() - start
    with tempfile.TemporaryDirectory(prefix="bench-index-") as tmp:
        figures, results = {}, {}
        for backend in ("tantivy", "whoosh"):
            figures[backend], results[backend] = measure(backend, docs, queries, args.limit,
                                                         Path(tmp))
    start = time.perf_counter()
    for query, names in zip(queries, results["tantivy"]):
        rank(query, [by_name[name] for name in names])
    rank_ms = (time.perf_counter() - start) / len(queries) * 1e3
    _report(args, figures, results, queries, by_name, rank_ms, tokenize_s)


def _report(args: argparse.Namespace, figures: dict[str, dict[str, float]],
            results: dict[str, list[list[str]]], queries: list[str],
            by_name: dict[str, IndexDoc], rank_ms: float, tokenize_s: float) -> None:
    print(f"{args.count} docs, {len(queries)} queries, limit {args.limit}; "
          f"skillsite tokenizing alone {tokenize_s:.3f} s (inside both builds); "
          f"rank() {rank_ms:.2f} ms/query over the candidates\n")
    print(f"{'':10}{'tantivy':>12}{'whoosh':>12}{'whoosh/tantivy':>16}")
    for key in figures["tantivy"]:
        fast, slow = figures["tantivy"][key], figures["whoosh"][key]
        print(f"{key:10}{fast:12.3f}{slow:12.3f}{slow / fast:15.1f}x")
    pairs = list(zip(queries, results["tantivy"], results["whoosh"]))
    same_sets = sum(set(a) == set(b) for _, a, b in pairs)
    same_top = sum(
        rank(q, [by_name[n] for n in a], limit=5) == rank(q, [by_name[n] for n in b], limit=5)
        for q, a, b in pairs)
    print(f"\nsame candidate set: {same_sets}/{len(pairs)} queries; "
          f"same rank() top-5: {same_top}/{len(pairs)}")


if __name__ == "__main__":
    main()
