"""Hybrid recommend (lexical + embeddings) against lexical recommend: relevance and cost.

    python bench/bench_semantic.py relevance [--corpora /work/corpora]
        [--tasks bench/task_queries.json] [--paraphrases bench/paraphrase_queries.json]
        [--workdir /tmp/skillsite-semantic] [--rebuild] [--show-misses]
    python bench/bench_semantic.py speed --corpora C10K C100K [--workdir DIR] [--runs 7]

**relevance** builds each public corpus named by the query files once (with the semantic
extra, so the dist has vectors) and runs every task through ``recommend`` twice on that
same dist: lexical (``semantic=False``) and hybrid. It prints top-1 and top-3 per query
set (the real tasks of ``bench_tasks.py``, their holdout share, and the paraphrase tasks),
and refuses a paraphrase that shares a content word with its skills' name or description.
Goal: hybrid improves top-1 on both sets, and top-3 >= 0.95 on the real tasks.

**speed** builds each synthetic corpus (``bench/generate.py``) twice, without the extra
(numpy hidden from the build, as on a base install) and with it, and reports per size:
the build's CPU time (user + system, workers included) per skill for each, the vectors'
share of ``dist/``, a cold ``recommend`` in fresh processes (median wall and CPU, hybrid
and ``--lexical``), and warm in-process ``recommend`` p50/p95 for both. Budgets at 100k:
cold <= 400 ms, warm p50 <= 10 ms, build <= 2 ms more CPU per skill, dist/ <= 40 MB more.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

STOP_WORDS = """a an the and or of to in on for with by from at as is are be this that it its
into my our your me we i you he she they them their his her do does did done can could
should would will want wants need needs using use used when how what which who some any
all each every more most other about over under up down out off just so than then too
very not no yes there here get got make made new one two via per if else while also only
own same such like"""
STOP = frozenset(STOP_WORDS.split())
HIDE_NUMPY = '''import sys
class _NoNumpy:
    def find_spec(self, name, path=None, target=None):
        if name == "numpy" or name.startswith("numpy."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, _NoNumpy())
'''
TASKS = ["create a slide deck for the quarterly review", "roll back a bad deploy",
         "find which commit broke the build", "fill in a pdf form", "rotate the api keys",
         "write release notes", "profile a slow python function", "set up a ci pipeline"]


def _content_words(text: str) -> set[str]:
    return {w[:5] for w in re.findall(r"[a-z0-9]+", text.lower())
            if len(w) >= 3 and w not in STOP}


def _build(corpus: Path, dist: Path, rebuild: bool) -> Path:
    if rebuild or not (dist / "vectors" / "index.json").is_file():
        subprocess.run([sys.executable, "-m", "skillsite", "build", str(corpus), "-o",
                        str(dist), "--no-site", "-q", "--clean"], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO)
    if not (dist / "vectors" / "index.json").is_file():
        raise SystemExit(f"building {corpus} wrote no vectors: pip install -e '.[semantic]'")
    return dist


def _score(library: object, tasks: list[dict], semantic: bool,
           misses: list[str]) -> tuple[float, float]:
    top1 = top3 = 0
    for item in tasks:
        ranked = [c.id for c in library.recommend(item["task"], limit=10,  # type: ignore[attr-defined]
                                                  semantic=semantic).results]
        good = set(item["acceptable"])
        top1 += bool(ranked[:1] and ranked[0] in good)
        top3 += bool(good & set(ranked[:3]))
        if semantic and not good & set(ranked[:3]):
            misses.append(f"{item['task']!r}: wanted {sorted(good)}, got {ranked[:3]}")
    count = max(len(tasks), 1)
    return top1 / count, top3 / count


def relevance(args: argparse.Namespace) -> None:
    from skillsite.reader import Library

    tasks = json.loads(args.tasks.read_text())["queries"]
    para = [{"corpus": q["corpus"], "task": q["query"], "acceptable": q["relevant"]}
            for q in json.loads(args.paraphrases.read_text())["queries"]]
    dists = {}
    for corpus in sorted({t["corpus"] for t in tasks + para}):
        dists[corpus] = _build(args.corpora / corpus, args.workdir / corpus, args.rebuild)
    broken = []
    for item in para:
        catalog = json.loads((dists[item["corpus"]] / "catalog.json").read_text())["skills"]
        named = {s["id"]: s for s in catalog}
        for good in item["acceptable"]:
            skill = named.get(good)
            if skill is None:
                broken.append(f"{item['task']!r}: no skill {good} in {item['corpus']}")
                continue
            shared = _content_words(item["task"]) & _content_words(" ".join(
                [skill["id"], skill["name"], skill.get("title", ""), skill["description"]]))
            if shared:
                broken.append(f"{item['task']!r} shares {sorted(shared)} with {good}")
    if broken:
        raise SystemExit("paraphrases that break their rule:\n  " + "\n  ".join(broken))
    sets = [("real tasks", tasks), ("real tasks, holdout", [t for t in tasks if t.get("holdout")]),
            ("paraphrases", para)]
    print(f"{'query set':<22}{'n':>5}  {'lexical top-1/top-3':>20}  {'hybrid top-1/top-3':>20}")
    misses: list[str] = []
    for label, items in sets:
        by_corpus: dict[str, list[dict]] = {}
        for item in items:
            by_corpus.setdefault(item["corpus"], []).append(item)
        totals = {False: [0.0, 0.0], True: [0.0, 0.0]}
        for corpus, chunk in by_corpus.items():
            library = Library(dists[corpus], max_skills=None, max_chars=None)
            for semantic in (False, True):
                one, three = _score(library, chunk, semantic,
                                    misses if label != "real tasks, holdout" else [])
                totals[semantic][0] += one * len(chunk)
                totals[semantic][1] += three * len(chunk)
        n = max(len(items), 1)
        lex, hyb = totals[False], totals[True]
        print(f"{label:<22}{len(items):>5}  {lex[0] / n:>10.3f} / {lex[1] / n:.3f}"
              f"  {hyb[0] / n:>10.3f} / {hyb[1] / n:.3f}")
    if args.show_misses:
        print("\nhybrid misses (not in the top 3):\n  " + "\n  ".join(misses))


def _cold(dist: Path, lexical: bool, runs: int) -> tuple[float, float]:
    walls, cpus = [], []
    for run in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "skillsite", "recommend", TASKS[run % len(TASKS)],
                        "--dist", str(dist), "--json", *(["--lexical"] if lexical else [])],
                       check=True, stdout=subprocess.DEVNULL, cwd=REPO)
        walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return statistics.median(walls) * 1000, statistics.median(cpus) * 1000


def _warm(dist: Path, semantic: bool, calls: int) -> tuple[float, float, float]:
    """(p50 wall, p95 wall, p50 CPU) in ms of in-process ``recommend`` calls, each task a
    new one (a number appended), after one call of each to warm the Library."""
    from skillsite.reader import Library

    library = Library(dist, max_skills=None, max_chars=None)
    for task in TASKS:
        library.recommend(task, semantic=semantic)
    walls, cpus = [], []
    for call in range(calls):
        started, cpu = time.perf_counter(), time.process_time()
        library.recommend(TASKS[call % len(TASKS)] + f" {call}", semantic=semantic)
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
    walls.sort()
    return (walls[len(walls) // 2] * 1000, walls[int(len(walls) * 0.95)] * 1000,
            statistics.median(cpus) * 1000)


def _measured_build(corpus: Path, dist: Path, hide_numpy: Path | None) -> dict:
    env = dict(os.environ)
    if hide_numpy is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(hide_numpy), str(REPO),
                                             env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, str(HERE / "_measure.py"), "build", str(corpus),
                           "-o", str(dist), "--no-site", "-q", "--clean"], env=env,
                          capture_output=True, text=True, cwd=REPO)
    return json.loads(done.stdout.strip().splitlines()[-1])


def speed(args: argparse.Namespace) -> None:
    shim = Path(tempfile.mkdtemp(prefix="hide-numpy-"))
    (shim / "sitecustomize.py").write_text(HIDE_NUMPY)
    for corpus in args.corpora_list:
        base = args.workdir / corpus.name
        plain = _measured_build(corpus, base / "lexical", shim)
        hybrid = _measured_build(corpus, base / "hybrid", None)
        dist = base / "hybrid"
        skills = len(json.loads((dist / "vectors" / "index.json").read_text())["ids"])
        vectors = sum(p.stat().st_size for p in (dist / "vectors").iterdir())
        print(f"== {corpus.name}: {skills} skills")
        print(f"build CPU per skill: {plain['cpu_s'] / skills * 1000:.2f} ms without the "
              f"extra, {hybrid['cpu_s'] / skills * 1000:.2f} ms with it "
              f"(+{(hybrid['cpu_s'] - plain['cpu_s']) / skills * 1000:.2f} ms); wall "
              f"{plain['seconds']:.1f} s / {hybrid['seconds']:.1f} s")
        print(f"vectors/: {vectors / 1e6:.1f} MB ({vectors / skills:.0f} bytes per skill)")
        for label, lexical in (("hybrid", False), ("lexical", True)):
            wall, cpu = _cold(dist, lexical, args.runs)
            print(f"cold recommend, {label}: median {wall:.0f} ms wall, {cpu:.0f} ms CPU")
        for label, semantic in (("hybrid", True), ("lexical", False)):
            p50, p95, cpu = _warm(dist, semantic, args.calls)
            print(f"warm recommend, {label}: p50 {p50:.2f} ms, p95 {p95:.2f} ms wall; "
                  f"p50 {cpu:.2f} ms CPU")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    rel = sub.add_parser("relevance")
    rel.add_argument("--corpora", type=Path, default=Path("/work/corpora"))
    rel.add_argument("--tasks", type=Path, default=HERE / "task_queries.json")
    rel.add_argument("--paraphrases", type=Path, default=HERE / "paraphrase_queries.json")
    rel.add_argument("--workdir", type=Path, default=Path("/tmp/skillsite-semantic"))
    rel.add_argument("--rebuild", action="store_true")
    rel.add_argument("--show-misses", action="store_true")
    spd = sub.add_parser("speed")
    spd.add_argument("--corpora", dest="corpora_list", type=Path, nargs="+", required=True)
    spd.add_argument("--workdir", type=Path, default=Path("/tmp/skillsite-semantic-speed"))
    spd.add_argument("--runs", type=int, default=7)
    spd.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    relevance(args) if args.mode == "relevance" else speed(args)


if __name__ == "__main__":
    main()
