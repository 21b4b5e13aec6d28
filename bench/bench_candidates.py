"""How close a search's top 10 comes to the *exact* top 10 of skillsite's own ranking.

A search ranks only the engine's best ``CANDIDATES`` (30) skills. This benchmark ranks every
skill of the dist with the same function (``rank_records`` over all ranking records), takes
its top 10 as the reference, and reports, for the benchmark queries of ``bench_reader.py``:

- recall@10: the share of the exact top 10 that the search's top 10 holds;
- how many top 10s (and top hits) are exactly the exact ones;
- the same for other candidate counts (``--candidates``), to see what more would buy.

Usage::

    python bench/bench_candidates.py --dists DIST [DIST ...] [--queries 400]
                                     [--candidates 30,50]

Ranking every skill is slow on purpose: about 35 s at 10k skills and 6 min at 100k.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))

from bench_reader import _queries  # noqa: E402

from skillsite.index.ranking import rank_records  # noqa: E402
from skillsite.reader import Library  # noqa: E402


def _every_record(library: Library) -> dict[str, list[str]]:
    finder = library.session().finder
    names = finder.names()
    records: dict[str, list[str]] = {}
    for start in range(0, len(names), 1000):
        records.update(finder.records(names[start:start + 1000]))
    return records


def measure(dist: Path, count: int, sizes: list[int]) -> None:
    library = Library(dist, max_skills=None, max_chars=None)
    finder = library.session().finder
    started = time.perf_counter()
    records = _every_record(library)
    queries = _queries(random.Random(11), count)
    exact = {query: [name for name, _ in rank_records(
        query, records, limit=10, known=finder.known_words(query), corpus=finder.corpus(query))]
             for query in queries}
    print(f"\n== {dist}: {len(records)} skills, {len(queries)} queries; the exact top 10s "
          f"took {time.perf_counter() - started:.0f} s ==")
    print(f"{'candidates':>10} {'recall@10':>10} {'same top 10':>12} {'same top hit':>13}")
    for size in sizes:
        found = same = first = wanted = 0
        for query in queries:
            candidates = finder.records(finder.candidates(query, size))
            got = [name for name, _ in rank_records(query, candidates, limit=10,
                                                    known=finder.known_words(query),
                                                    corpus=finder.corpus(query))]
            want = exact[query]
            found += len(set(got) & set(want))
            wanted += len(want)
            same += got == want
            first += got[:1] == want[:1]
        print(f"{size:>10} {found / max(wanted, 1):>10.3f} {same:>8} / {len(queries)} "
              f"{first:>7} / {len(queries)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dists", type=Path, nargs="+", required=True,
                        help="built dist/ folders, e.g. a 10k and a 100k one")
    parser.add_argument("--queries", type=int, default=400)
    parser.add_argument("--candidates", default="30,50",
                        help="candidate counts to compare, comma-separated (default 30,50; "
                             "a search uses 30)")
    options = parser.parse_args()
    sizes = [int(size) for size in options.candidates.split(",") if size.strip()]
    for dist in options.dists:
        measure(dist, options.queries, sizes)


if __name__ == "__main__":
    main()
