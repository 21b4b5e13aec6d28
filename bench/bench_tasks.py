"""Relevance on real corpora: agent tasks, each labelled with the skills that would do it.

    python bench/bench_tasks.py [--corpora /work/corpora] [--queries bench/task_queries.json]
                                [--workdir /tmp/skillsite-tasks] [--engines tantivy whoosh]
                                [--ranker MODULE:FUNCTION] [--show-misses] [--rebuild]

``bench/task_queries.json`` holds tasks phrased as an agent would say them (never a skill's
name) over public skill repositories checked out under ``--corpora`` (one folder each, named
in the file), and for each task the ids of the skills that would do it. The queries are
data about the corpora, not their text: the corpora stay outside the repository.

Each corpus is built once per engine into ``--workdir`` (cached: the folder's name holds the
corpus's git commit and a digest of the index code, so a change to either builds again).
Every task then runs through ``search`` and ``recommend`` (the task alone, limit 10), and the
benchmark reports per engine and operation:

- **top-1**: the share of tasks whose first result is an acceptable skill;
- **top-3**: the share with an acceptable skill among the first three;
- the same over the **holdout** tasks alone (``"holdout": true``): those were never looked
  at while tuning ranking, so they say how well the tuning generalizes;
- per corpus, top-3 and top-1.

Goal for ``recommend``: top-3 >= 0.95 and top-1 >= 0.85.

**Comparing another ranking.** ``--ranker MODULE:FUNCTION`` adds a column for any function
``rank(dist: Path, task: str, operation: str, limit: int) -> list[str]`` that returns skill
ids best first (``operation`` is ``"search"`` or ``"recommend"``), run on the same dists and
tasks; ``MODULE`` is imported from ``bench/`` or the path. From Python,
:func:`evaluate` takes such a function too.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(REPO))

ENGINES = ("tantivy", "whoosh")
OPERATIONS = ("search", "recommend")
LIMIT = 10
#: The code whose change changes what a build writes for ranking.
INDEX_CODE = ("skillsite/index", "skillsite/entries.py", "skillsite/store")

Ranker = Callable[[Path, str, str, int], list[str]]


@dataclass(frozen=True)
class Task:
    corpus: str
    task: str
    acceptable: frozenset[str]
    holdout: bool


@dataclass
class Score:
    """Hits at 1 and 3 over some tasks, and the misses at 3."""

    tasks: int = 0
    top1: int = 0
    top3: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, task: Task, ranked: Sequence[str]) -> None:
        self.tasks += 1
        self.top1 += bool(ranked[:1]) and ranked[0] in task.acceptable
        found = bool(task.acceptable.intersection(ranked[:3]))
        self.top3 += found
        if not (ranked[:1] and ranked[0] in task.acceptable):
            mark = "miss@3" if not found else "miss@1"
            self.misses.append(f"{mark} [{task.corpus}] {task.task!r}: wanted "
                               f"{sorted(task.acceptable)}, got {list(ranked[:3])}")

    def share(self, hits: int) -> float:
        return hits / self.tasks if self.tasks else 0.0


def load_tasks(path: Path) -> tuple[dict[str, str], list[Task]]:
    """The corpora (folder -> repository) and the tasks of a queries file."""
    spec = json.loads(path.read_text())
    tasks = [Task(item["corpus"], item["task"], frozenset(item["acceptable"]),
                  bool(item.get("holdout"))) for item in spec["queries"]]
    return spec["corpora"], tasks


def library_ranker(dist: Path, task: str, operation: str, limit: int) -> list[str]:
    """skillsite's own ``search`` or ``recommend`` of ``task`` on ``dist``."""
    library = _libraries.get(dist)
    if library is None:
        from skillsite.reader import Library

        library = _libraries[dist] = Library(dist)
    answer = getattr(library, operation)(task, limit=limit)
    return [hit.id for hit in answer.results]


_libraries: dict[Path, object] = {}


def build_key(corpus: Path) -> str:
    """The corpus's commit and a digest of the index code: what a cached build depends on."""
    commit = subprocess.run(["git", "-C", str(corpus), "rev-parse", "--short=12", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "nogit"
    digest = hashlib.sha256()
    for root in INDEX_CODE:
        path = REPO / root
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            if file.is_file():
                digest.update(file.relative_to(REPO).as_posix().encode())
                digest.update(file.read_bytes())
    return f"{commit}-{digest.hexdigest()[:12]}"


def built(corpus: Path, engine: str, workdir: Path, rebuild: bool, reuse: bool = False
          ) -> Path:
    """The dist/ of ``corpus`` built with ``engine`` under ``workdir``, built if missing
    (with ``reuse``, the newest build of that corpus and engine, whatever its key)."""
    dist = workdir / f"{corpus.name}-{engine}-{build_key(corpus)}"
    if reuse and not rebuild:
        older = sorted(workdir.glob(f"{corpus.name}-{engine}-*/manifest.json"),
                       key=lambda path: path.stat().st_mtime)
        if older:
            return older[-1].parent
    if rebuild or not (dist / "manifest.json").is_file():
        done = subprocess.run(
            [sys.executable, "-m", "skillsite", "build", str(corpus), "-o", str(dist),
             "--index", engine, "--clean", "-q", "--no-site", "--jobs", "2"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if not (dist / "manifest.json").is_file():
            raise SystemExit(f"building {corpus} with {engine} failed:\n{done.stderr[-2000:]}")
    return dist


def evaluate(tasks: Sequence[Task], dists: dict[str, Path], ranker: Ranker,
             operation: str) -> dict[str, Score]:
    """Scores of ``ranker`` for ``operation``: ``"all"``, ``"holdout"`` and one per corpus.
    ``dists`` maps each task's corpus folder to its built dist/."""
    scores: dict[str, Score] = {"all": Score(), "holdout": Score()}
    for task in tasks:
        ranked = ranker(dists[task.corpus], task.task, operation, LIMIT)
        for key in ("all", "holdout" if task.holdout else None, task.corpus):
            if key is not None:
                scores.setdefault(key, Score()).add(task, ranked)
    return scores


def _import(spec: str) -> Ranker:
    module, _, name = spec.partition(":")
    if not name:
        raise SystemExit(f"--ranker wants MODULE:FUNCTION, not {spec!r}")
    return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", type=Path, default=Path("/work/corpora"),
                        help="The folder holding one checkout per corpus of the queries file.")
    parser.add_argument("--queries", type=Path, default=HERE / "task_queries.json")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/skillsite-tasks"),
                        help="Where the corpora are built (kept between runs).")
    parser.add_argument("--engines", nargs="+", choices=ENGINES, default=list(ENGINES))
    parser.add_argument("--ranker", help="MODULE:FUNCTION, another ranking to compare.")
    parser.add_argument("--only-ranker", action="store_true",
                        help="With --ranker: leave skillsite's own ranking out.")
    parser.add_argument("--show-misses", action="store_true")
    parser.add_argument("--rebuild", action="store_true", help="Build even when cached.")
    parser.add_argument("--reuse", action="store_true",
                        help="Use the newest build of each corpus even if the index code "
                             "changed since (for changes that only touch querying).")
    args = parser.parse_args()

    repos, tasks = load_tasks(args.queries)
    missing = [name for name in repos if not (args.corpora / name).is_dir()]
    if missing:
        raise SystemExit(f"{args.corpora} lacks {', '.join(missing)}: check out "
                         + ", ".join(repos[name] for name in missing) + " there")
    args.workdir.mkdir(parents=True, exist_ok=True)
    rankers: dict[str, Ranker] = {} if args.only_ranker else {"skillsite": library_ranker}
    if args.ranker:
        rankers[args.ranker] = _import(args.ranker)
    holdout = sum(task.holdout for task in tasks)
    print(f"{len(tasks)} tasks ({holdout} holdout) over {len(repos)} corpora")
    for engine in args.engines:
        dists = {name: built(args.corpora / name, engine, args.workdir, args.rebuild,
                             args.reuse) for name in repos}
        for label, ranker in rankers.items():
            for operation in OPERATIONS:
                scores = evaluate(tasks, dists, ranker, operation)
                _print(f"{engine} {operation} ({label})", scores, list(repos))
                if args.show_misses:
                    for miss in scores["all"].misses:
                        print(f"    {miss}")


def _print(title: str, scores: dict[str, Score], corpora: list[str]) -> None:
    every, held = scores["all"], scores["holdout"]
    goal = "   goal: top-3 >= 0.95, top-1 >= 0.85" if "recommend" in title else ""
    print(f"\n== {title}: top-1 {every.share(every.top1):.3f}  top-3 "
          f"{every.share(every.top3):.3f}   holdout ({held.tasks}): top-1 "
          f"{held.share(held.top1):.3f}  top-3 {held.share(held.top3):.3f}{goal}")
    for name in corpora:
        score = scores.get(name)
        if score:
            print(f"   {name:36} {score.tasks:>3} tasks  top-1 {score.share(score.top1):.2f}"
                  f"  top-3 {score.share(score.top3):.2f}")


if __name__ == "__main__":
    main()
