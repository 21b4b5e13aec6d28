"""Benchmark the runtime reader: cold queries in fresh processes, warm in-process search.

    python bench/bench_reader.py [--sizes 10000,100000] [--whoosh-sizes 10000]
                                 [--cold-runs 7] [--warm-queries 400] [--workdir DIR]
                                 [--dist-10000 DIR ...]

For each size it generates the synthetic corpus of ``bench/generate.py`` once and builds it
with each backend (tantivy always; Whoosh at ``--whoosh-sizes``), then measures, side by
side, on the same dist/ and the same queries:

- **cold search**: wall time of ``python -m skillsite search QUERY --json`` in a fresh
  process (median of ``--cold-runs``, queries in rotation), and of ``open`` and ``read``;
- **baseline**: ``python -c pass`` and ``python -c "import tantivy"`` in fresh processes,
  measured in the same run, so the figures can be read against this machine's load; and
  the CPU time (user + system) of the cold searches and of ``python -c pass``, which load
  inflates far less than wall time;
- **warm search**: p50 and p95 of ``Library.search`` in one process, after one warm-up
  round, over ``--warm-queries`` queries made from the corpus' own vocabulary;
- CPU load of other processes during the run (from ``/proc/stat``), since this machine
  is shared: cold figures grow with it.

Floors (default backend): cold search <= 250 ms wall, cold open/read <= 200 ms, warm
search p50 <= 2 ms and p95 <= 10 ms.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from generate import generate  # noqa: E402

FLOORS = {"cold_search": 250.0, "cold_open": 200.0, "cold_read": 200.0, "warm_p50": 2.0,
          "warm_p95": 10.0}
WORDS = ["review", "migrate", "deploy", "lint", "diagnose", "kafka", "postgres", "kubernetes",
         "terraform", "pdf", "schema", "safely", "quickly", "runbook", "checks", "release",
         "incident", "alerts", "dashboards", "secrets", "dns", "helm", "changelog", "api"]


def _build(corpus: Path, dist: Path, backend: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "skillsite", "build", str(corpus), "-o", str(dist),
                    "--index", backend, "--clean", "-q", "--jobs", "2"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def _wall(args: list[str], env: dict[str, str], cpu: list[float] | None = None) -> float:
    """Wall milliseconds of one fresh process; its CPU milliseconds go to ``cpu``."""
    before = os.times()
    started = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, env=env)
    wall = (time.perf_counter() - started) * 1000
    after = os.times()
    if cpu is not None:
        cpu.append((after.children_user + after.children_system - before.children_user
                    - before.children_system) * 1000)
    return wall


def _queries(rng: random.Random, count: int) -> list[str]:
    return [" ".join(rng.sample(WORDS, rng.randint(1, 4))) for _ in range(count)]


def cold(dist: Path, runs: int, names: list[str]) -> dict[str, float]:
    # An installed package has its bytecode compiled; this machine's environment sets
    # PYTHONDONTWRITEBYTECODE, which would make every fresh process compile skillsite.
    env = {key: value for key, value in os.environ.items()
           if key != "PYTHONDONTWRITEBYTECODE"}
    env["SKILLSITE_DIST"] = str(dist)
    python = [sys.executable]
    rng = random.Random(7)
    queries = _queries(rng, runs)
    _wall([*python, "-m", "skillsite", "search", "warm up the page cache", "--json"], env)
    found: dict[str, list[float]] = {"cold_search": [], "cold_open": [], "cold_read": [],
                                     "python_pass": [], "import_tantivy": [],
                                     "cold_search_cpu": [], "python_pass_cpu": []}
    for number in range(runs):  # interleaved, so that load changes hit every figure alike
        name = names[number % len(names)]
        found["python_pass"].append(_wall([*python, "-c", "pass"], env,
                                          found["python_pass_cpu"]))
        found["import_tantivy"].append(_wall([*python, "-c", "import tantivy"], env))
        found["cold_search"].append(_wall([*python, "-m", "skillsite", "search",
                                           queries[number], "--json"], env,
                                          found["cold_search_cpu"]))
        found["cold_open"].append(_wall([*python, "-m", "skillsite", "open", name, "--json"],
                                        env))
        found["cold_read"].append(_wall([*python, "-m", "skillsite", "read", name, "-s", "0",
                                         "--json"], env))
    return {key: statistics.median(values) for key, values in found.items()}


def warm(dist: Path, count: int) -> dict[str, float]:
    from skillsite.reader import Library

    library = Library(dist, max_skills=None, max_chars=None)
    queries = _queries(random.Random(11), count)
    for query in queries[:50]:
        library.search(query)
    times, cpu = [], []
    for query in queries:
        started, thread = time.perf_counter(), time.thread_time()
        library.search(query)
        cpu.append((time.thread_time() - thread) * 1000)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    cpu.sort()
    return {"warm_p50": times[len(times) // 2], "warm_p95": times[int(len(times) * 0.95)],
            "warm_cpu_p50": cpu[len(cpu) // 2], "warm_cpu_p95": cpu[int(len(cpu) * 0.95)],
            "loop_ms": _loop_ms()}


def _loop_ms() -> float:
    """A fixed pure-Python loop (3M iterations), to read the figures against the load:
    about 55 ms on this VM when it is idle."""
    started = time.perf_counter()
    for _ in range(3_000_000):
        pass
    return (time.perf_counter() - started) * 1000


def _cpu_times() -> tuple[float, float]:
    fields = Path("/proc/stat").read_text().split("\n")[0].split()[1:]
    values = [float(v) for v in fields]
    return sum(values) - values[3] - values[4], sum(values)  # busy, total (jiffies)


def measure(dist: Path, runs: int, warm_queries: int) -> dict[str, float]:
    from skillsite.reader import Library

    names = [hit.name for hit in Library(dist).search("", limit=50).results][::7]
    busy0, _ = _cpu_times()
    own0 = os.times()
    started = time.perf_counter()
    row = {**cold(dist, runs, names), **warm(dist, warm_queries)}
    elapsed = time.perf_counter() - started
    busy1, _ = _cpu_times()
    own1 = os.times()
    own = (own1.user + own1.system + own1.children_user + own1.children_system
           - own0.user - own0.system - own0.children_user - own0.children_system)
    tick = os.sysconf("SC_CLK_TCK")
    row["foreign_cores"] = max(((busy1 - busy0) / tick - own) / elapsed, 0.0)
    return row


def _print(count: int, rows: dict[str, dict[str, float]]) -> None:
    backends = list(rows)
    print(f"\n== {count} skills; ms, medians of cold runs in fresh processes ==")
    print(f"{'':34}" + "".join(f"{b:>12}" for b in backends) + "   floor (tantivy)")
    labels = [("cold search --json (ms)", "cold_search"), ("cold open --json (ms)", "cold_open"),
              ("cold read -s 0 --json (ms)", "cold_read"),
              ("  cold search, CPU (ms)", "cold_search_cpu"),
              ("  python -c pass (ms)", "python_pass"),
              ("  python -c pass, CPU (ms)", "python_pass_cpu"),
              ("  python -c 'import tantivy' (ms)", "import_tantivy"),
              ("warm search p50 (ms)", "warm_p50"), ("warm search p95 (ms)", "warm_p95"),
              ("  warm search p50, CPU (ms)", "warm_cpu_p50"),
              ("  warm search p95, CPU (ms)", "warm_cpu_p95"),
              ("  3M-step Python loop (ms)", "loop_ms"),
              ("foreign load (cores)", "foreign_cores"), ("build, clean (s)", "build_s")]
    for label, key in labels:
        text = f"{label:34}" + "".join(f"{rows[b][key]:>12.2f}" for b in backends)
        if key in FLOORS and "tantivy" in rows:
            verdict = "PASS" if rows["tantivy"][key] <= FLOORS[key] else "MISS"
            text += f"   <= {FLOORS[key]:g}: {verdict}"
        print(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--whoosh-sizes", default="10000")
    parser.add_argument("--cold-runs", type=int, default=7)
    parser.add_argument("--warm-queries", type=int, default=400)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--dists", nargs="+", type=Path, metavar="DIST",
                        help="Measure these built dist/ folders instead of generating.")
    args = parser.parse_args()
    if args.dists:
        # One table per corpus size, the backends side by side.
        tables: dict[int, dict[str, dict[str, float]]] = {}
        for dist in args.dists:
            manifest = json.loads((dist / "manifest.json").read_text())
            row = tables.setdefault(manifest["counts"]["skills"], {})
            if manifest["index_backend"] in row:
                parser.error(f"{dist}: a second {manifest['index_backend']} dist/ of "
                             f"{manifest['counts']['skills']} skills")
            row[manifest["index_backend"]] = {
                **measure(dist, args.cold_runs, args.warm_queries), "build_s": float("nan")}
        for skills, rows in sorted(tables.items()):
            _print(skills, rows)
        return
    whoosh_sizes = {int(s) for s in args.whoosh_sizes.split(",") if s}
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        for count in (int(s) for s in args.sizes.split(",")):
            corpus = Path(tmp) / f"corpus-{count}"
            generate(corpus, count)
            rows = {}
            for backend in ("tantivy", "whoosh"):
                if backend == "whoosh" and count not in whoosh_sizes:
                    continue
                dist = Path(tmp) / f"dist-{count}-{backend}"
                seconds = _build(corpus, dist, backend)
                rows[backend] = {**measure(dist, args.cold_runs, args.warm_queries),
                                 "build_s": seconds}
            _print(count, rows)


if __name__ == "__main__":
    main()
