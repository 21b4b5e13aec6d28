"""Relevance of ``Library.search`` on labelled, paraphrased queries, per backend.

    python bench/bench_relevance.py [--queries bench/relevance_queries.json]
                                    [--no-synthetic] [--workdir DIR] [--show-misses]

It builds the bundled ``corpus/`` and the synthetic corpus named in the query file
(``bench/generate.py``, same count and seed) with tantivy and with Whoosh, runs every
labelled query on each, and reports per backend and corpus:

- **recall@5**: per query, the share of its relevant skills (at most 5) in the top 5,
  averaged over the queries;
- **MRR**: the mean of 1 / rank of the first relevant skill (0 when none is in the top 10);
- **top-5 agreement**: the share of queries for which both backends return the very same
  top 5, in the same order.

Goal: recall@5 >= 0.9, and both backends agree on the top 5.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from generate import generate  # noqa: E402

REPO = HERE.parent
BACKENDS = ("tantivy", "whoosh")


def _build(corpus: Path, dist: Path, backend: str) -> None:
    subprocess.run([sys.executable, "-m", "skillsite", "build", str(corpus), "-o", str(dist),
                    "--index", backend, "--clean", "-q", "--jobs", "2"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not (dist / "manifest.json").is_file():
        raise SystemExit(f"building {corpus} with {backend} failed")


def synthetic_labels(dist: Path, queries: list[dict]) -> list[tuple[str, set[str]]]:
    """(query, relevant names): the skills named verb-noun-kind-<id> (or with ``_``)."""
    names = [s["name"] for s in json.loads((dist / "catalog.json").read_text())["skills"]]
    labelled = []
    for item in queries:
        stem = (item["verb"], item["noun"], item["kind"])
        relevant = {n for n in names if n.lower().replace("_", "-").split("-")[:3] == list(stem)}
        labelled.append((item["query"], relevant))
    return labelled


def score(dist: Path, labelled: list[tuple[str, set[str]]]) -> tuple[dict, list[list[str]]]:
    from skillsite.reader import Library

    library = Library(dist, max_skills=None, max_chars=None)
    recall = mrr = 0.0
    tops, misses = [], []
    for query, relevant in labelled:
        ranked = [hit.name for hit in library.search(query, limit=10).results]
        tops.append(ranked[:5])
        recall += len(relevant & set(ranked[:5])) / min(len(relevant), 5)
        rank = next((i for i, name in enumerate(ranked, 1) if name in relevant), None)
        mrr += 1 / rank if rank else 0.0
        if not relevant & set(ranked[:5]):
            misses.append(f"{query!r}: wanted {sorted(relevant)}, got {ranked[:5]}")
    count = len(labelled)
    return {"queries": count, "recall@5": recall / count, "mrr": mrr / count,
            "misses": misses}, tops


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=Path, default=HERE / "relevance_queries.json")
    parser.add_argument("--no-synthetic", action="store_true")
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--show-misses", action="store_true")
    parser.add_argument("--synthetic-dists", nargs=2, type=Path, metavar=("TANTIVY", "WHOOSH"),
                        help="Built dist/ folders of the synthetic corpus to reuse (they must "
                             "be built from generate.py with the file's count and seed).")
    args = parser.parse_args()
    spec = json.loads(args.queries.read_text())
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        work = Path(tmp)
        sets = {"corpus/": (shutil.copytree(REPO / "corpus", work / "corpus"),
                            [(q["query"], set(q["relevant"])) for q in spec["corpus"]])}
        if not args.no_synthetic:
            synthetic = spec["synthetic"]
            corpus = work / "synthetic"
            if not args.synthetic_dists:
                generate(corpus, synthetic["count"], seed=synthetic["seed"])
            sets[f"synthetic {synthetic['count']}"] = (corpus, synthetic["queries"])
        total = 0
        for label, (corpus, queries) in sets.items():
            rows, tops = {}, {}
            for number, backend in enumerate(BACKENDS):
                dist = work / f"dist-{corpus.name}-{backend}"
                if label != "corpus/" and args.synthetic_dists:
                    dist = args.synthetic_dists[number]
                else:
                    _build(corpus, dist, backend)
                labelled = queries if label == "corpus/" else synthetic_labels(dist, queries)
                labelled = [(q, r) for q, r in labelled if r]
                rows[backend], tops[backend] = score(dist, labelled)
            total += rows["tantivy"]["queries"]
            same = sum(a == b for a, b in zip(tops["tantivy"], tops["whoosh"]))
            _print(label, rows, same, args.show_misses)
        print(f"\n{total} labelled queries in all")


def _print(label: str, rows: dict[str, dict], same: int, show_misses: bool) -> None:
    count = rows["tantivy"]["queries"]
    print(f"\n== {label}: {count} queries ==")
    print(f"{'':18}" + "".join(f"{b:>10}" for b in rows) + "   goal")
    for key, goal in (("recall@5", ">= 0.90"), ("mrr", "")):
        print(f"{key:18}" + "".join(f"{rows[b][key]:>10.3f}" for b in rows) + f"   {goal}")
    print(f"{'top-5 agreement':18}{same:>10} of {count}   all")
    if show_misses:
        for backend, row in rows.items():
            for miss in row["misses"]:
                print(f"  miss ({backend}) {miss}")


if __name__ == "__main__":
    main()
