"""Write what a dist/ answers to a fixed set of searches and recommendations, as JSON, so
that two versions of the reader can be compared byte for byte (a ranking change that
should not change results must leave the file identical).

Usage::

    python bench/snapshot.py DIST OUT.json [--queries 400]

The queries are those of ``bench_reader.py`` (1-4 words of the generated corpus'
vocabulary, seed 11) plus a few prefixes, typos and verb forms.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))

from bench_reader import _queries  # noqa: E402

from skillsite.reader import Library  # noqa: E402

EXTRA = ["kube", "kuberentes deploy", "pdf", "auditing logs", "skill:", "deploy"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dist", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--queries", type=int, default=400)
    options = parser.parse_args()
    library = Library(options.dist, max_skills=None, max_chars=None)
    queries = _queries(random.Random(11), options.queries) + EXTRA
    snapshot = {"search": [library.search(query).to_dict() for query in queries],
                "recommend": [library.recommend(query).to_dict() for query in queries[:100]]}
    options.out.write_text(json.dumps(snapshot, sort_keys=True, indent=0))
    print(f"{len(queries)} searches, 100 recommendations -> {options.out}")


if __name__ == "__main__":
    main()
