"""Benchmark ``skillsite build`` for each index backend at several corpus sizes.

    python bench/bench_build.py [--sizes 1000,10000,100000] [--whoosh-sizes 1000,10000]
                                [--jobs 2] [--workdir DIR]
    python bench/bench_build.py --compare OTHER_SOURCE [--rounds 3] [--sizes 10000,100000]

``--compare`` measures another checkout's skillsite (a source tree, e.g. ``git archive
main | tar -x -C /tmp/base``) against this one, tantivy only, interleaved round by round
on the same corpus (before, after, before, after...), and prints the median of each side
and after/before.

For each size it generates the synthetic corpus of ``bench/generate.py`` once, flushes it
to disk and reads it once (as ``bench_check.py`` does), then for each backend reports, side
by side:

- full build time (``--clean``, a fresh process, as a user runs it);
- incremental rebuild time after one skill changes;
- bytes per included skill of each artifact;
- peak memory (the build process, and the largest worker).

Whoosh is slow at 100k skills (about 6 minutes), so by default it runs only at the sizes in
``--whoosh-sizes``. Targets (default backend, 2 cores): 100k full build <= 60 s,
one-skill incremental rebuild <= 2 s, peak memory <= 1 GB (issue 25).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from generate import generate  # noqa: E402

TARGETS = {"full_s": 60.0, "incremental_s": 2.0, "peak_mb": 1024.0}


def _run(args: list[str], source: Path | None = None) -> dict:
    env = {**os.environ, **({"SKILLSITE_SOURCE": str(source)} if source else {})}
    done = subprocess.run([sys.executable, str(HERE / "_measure.py"), *args],
                          capture_output=True, text=True, check=False, env=env)
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "{}"
    result = json.loads(last)
    if result.get("code") != 0:
        raise SystemExit(f"build failed: {done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return result


def _sizes(dist: Path) -> dict[str, float]:
    skills = json.loads((dist / "manifest.json").read_text())["counts"]["skills"]
    def size(path: Path) -> int:
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() \
            else path.stat().st_size
    parts = {"catalog": dist / "catalog.json", "graph": dist / "graph.json",
             "content": dist / "content", "index": dist / "index",
             "cache": dist / "build-cache"}
    return {name: size(path) / max(skills, 1) for name, path in parts.items()}


def _settle(corpus: Path) -> None:
    """Flush the freshly generated corpus to disk and read it once, as bench_check.py
    does: the builds should find it in the page cache, not pay for the generator's
    background writeback."""
    os.sync()
    for folder, _dirs, names in os.walk(corpus):
        for name in names:
            (Path(folder) / name).read_bytes()
    time.sleep(1)


def _touch_one_skill(corpus: Path, rename: bool = False) -> None:
    """Append a line to the middle skill's SKILL.md: in place, or (``rename``) saved
    through a temporary file renamed over it, as most editors save (its folder's mtime
    moves too, so the build lists that folder again)."""
    first = sorted((corpus / "skills").iterdir())[len(list((corpus / "skills").iterdir())) // 2]
    skill = first / "SKILL.md"
    text = skill.read_text(encoding="utf-8") + "\nOne more line of guidance.\n"
    if rename:
        (first / ".SKILL.md.swp").write_text(text, encoding="utf-8")
        os.replace(first / ".SKILL.md.swp", skill)
    else:
        skill.write_text(text, encoding="utf-8")


def measure(corpus: Path, work: Path, backend: str, jobs: int,
            source: Path | None = None, label: str = "", site: bool = True,
            rename: bool = False) -> dict:
    dist = work / f"dist-{backend}{label}"
    common = [str(corpus), "-o", str(dist), "--index", backend, "--jobs", str(jobs), "-q",
              *(() if site else ("--no-site",))]
    full = _run(["build", *common, "--clean"], source)
    _touch_one_skill(corpus, rename)
    incremental = _run(["build", *common], source)
    return {"full_s": full["seconds"], "incremental_s": incremental["seconds"],
            "full_cpu_s": full["cpu_s"], "incremental_cpu_s": incremental["cpu_s"],
            "peak_mb": max(full["rss_mb"], full["children_rss_mb"]),
            "parent_mb": full["rss_mb"], "worker_mb": full["children_rss_mb"],
            "bytes": _sizes(dist)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--whoosh-sizes", default="1000,10000")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--compare", type=Path, help="another skillsite source tree")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--after", type=Path,
                        help="with --compare: this source tree instead of this checkout")
    parser.add_argument("--no-site", action="store_true", help="build without the site")
    parser.add_argument("--rename", action="store_true",
                        help="save the one-skill edit through a rename, as editors do, "
                             "instead of appending in place")
    parser.add_argument("--scaling", action="store_true",
                        help="full builds with --jobs 1 and --jobs 2, interleaved over "
                             "--rounds: wall, CPU, and the build process's own CPU")
    args = parser.parse_args()
    if args.compare:
        compare(args)
        return
    if args.scaling:
        scaling(args)
        return
    whoosh_sizes = {int(s) for s in args.whoosh_sizes.split(",") if s}
    if args.workdir:
        Path(args.workdir).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        for count in (int(s) for s in args.sizes.split(",")):
            corpus = Path(tmp) / f"corpus-{count}"
            generate(corpus, count)
            _settle(corpus)
            rows = {b: measure(corpus, Path(tmp), b, args.jobs, site=not args.no_site,
                               rename=args.rename)
                    for b in ("tantivy", "whoosh") if b == "tantivy" or count in whoosh_sizes}
            _print(count, rows)


def compare(args: argparse.Namespace) -> None:
    """Before (``--compare``) and after (this checkout), interleaved on one corpus."""
    import statistics

    if args.workdir:
        Path(args.workdir).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        for count in (int(s) for s in args.sizes.split(",")):
            corpus = Path(tmp) / f"corpus-{count}"
            generate(corpus, count)
            _settle(corpus)
            runs: dict[str, list[dict]] = {"before": [], "after": []}
            for round_ in range(args.rounds):
                for side in ("before", "after") if round_ % 2 == 0 else ("after", "before"):
                    source = args.compare if side == "before" else args.after
                    runs[side].append(measure(corpus, Path(tmp), "tantivy", args.jobs,
                                              source, f"-{side}", not args.no_site,
                                              args.rename))
                    print(f"{count} {side} round {round_ + 1}: "
                          f"full {runs[side][-1]['full_s']:.2f} s "
                          f"(CPU {runs[side][-1]['full_cpu_s']:.2f} s), one skill "
                          f"{runs[side][-1]['incremental_s']:.2f} s", file=sys.stderr)
            print(f"\n== {count} skills, median of {args.rounds} interleaved rounds ==")
            print(f"{'':28}{'before':>10}{'after':>10}{'after/before':>14}")
            for label, key in (("full build (s)", "full_s"),
                               ("full build, CPU (s)", "full_cpu_s"),
                               ("incremental, 1 skill (s)", "incremental_s"),
                               ("incremental, CPU (s)", "incremental_cpu_s"),
                               ("peak memory (MB)", "peak_mb")):
                before = statistics.median(r[key] for r in runs["before"])
                after = statistics.median(r[key] for r in runs["after"])
                print(f"{label:28}{before:>10.2f}{after:>10.2f}{after / before:>14.3f}")
            for side in ("before", "after"):
                cpu = statistics.median(r["full_cpu_s"] for r in runs[side])
                print(f"  {side}: full build {1000 * cpu / count:.2f} CPU-ms per skill "
                      "(user + system, the build and its workers)")
            for side, rows in runs.items():
                print(f"  {side}: full " + ", ".join(f"{r['full_s']:.2f}" for r in rows)
                      + "; one skill " + ", ".join(f"{r['incremental_s']:.2f}" for r in rows))


def scaling(args: argparse.Namespace) -> None:
    """Full builds (tantivy, no site unless asked) with --jobs 1 and 2 on one corpus: the
    CPU split between the build process (discovery, the stores, the index, the serial
    phases) and its workers (reading, linting, content rows) predicts other core counts."""
    import statistics

    if args.workdir:
        Path(args.workdir).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        for count in (int(s) for s in args.sizes.split(",")):
            corpus = Path(tmp) / f"corpus-{count}"
            generate(corpus, count)
            _settle(corpus)
            runs: dict[int, list[dict]] = {1: [], 2: []}
            for round_ in range(args.rounds):
                for jobs in (1, 2) if round_ % 2 == 0 else (2, 1):
                    dist = Path(tmp) / f"dist-jobs{jobs}"
                    runs[jobs].append(_run(
                        ["build", str(corpus), "-o", str(dist), "--jobs", str(jobs), "-q",
                         "--clean", *(() if not args.no_site else ("--no-site",))]))
                    print(f"{count} --jobs {jobs} round {round_ + 1}: "
                          f"{runs[jobs][-1]['seconds']:.2f} s, CPU "
                          f"{runs[jobs][-1]['cpu_s']:.2f} s", file=sys.stderr)
            print(f"\n== {count} skills, full build, median of {args.rounds} rounds ==")
            print(f"{'':10}{'wall (s)':>10}{'CPU (s)':>10}{'CPU-ms/skill':>14}"
                  f"{'build process CPU (s)':>23}{'workers CPU (s)':>17}")
            for jobs, found in runs.items():
                wall = statistics.median(r["seconds"] for r in found)
                cpu = statistics.median(r["cpu_s"] for r in found)
                own = statistics.median(r["own_cpu_s"] for r in found)
                print(f"--jobs {jobs:<3}{wall:>10.2f}{cpu:>10.2f}{1000 * cpu / count:>14.2f}"
                      f"{own:>23.2f}{cpu - own:>17.2f}")


def _print(count: int, rows: dict[str, dict]) -> None:
    print(f"\n== {count} skills (--jobs as given) ==")
    backends = list(rows)
    print(f"{'':28}" + "".join(f"{b:>14}" for b in backends)
          + ("   whoosh/tantivy" if len(rows) == 2 else ""))
    def line(label: str, key: str, fmt: str, target: float | None = None) -> None:
        values = [rows[b][key] for b in backends]
        text = f"{label:28}" + "".join(f"{v:>14{fmt}}" for v in values)
        if len(values) == 2:
            text += f"   {values[1] / values[0]:>10.1f}x"
        if target is not None:
            verdict = "PASS" if rows["tantivy"][key] <= target else "MISS"
            text += f"   target <= {target:g} (tantivy): {verdict}" if count >= 100000 else ""
        print(text)
    line("full build (s)", "full_s", ".2f", TARGETS["full_s"])
    line("full build, CPU (s)", "full_cpu_s", ".2f")
    line("incremental, 1 skill (s)", "incremental_s", ".2f", TARGETS["incremental_s"])
    line("incremental, CPU (s)", "incremental_cpu_s", ".2f")
    line("peak memory (MB)", "peak_mb", ".0f", TARGETS["peak_mb"])
    line("  build process (MB)", "parent_mb", ".0f")
    line("  largest worker (MB)", "worker_mb", ".0f")
    for part in ("catalog", "graph", "content", "index", "cache"):
        values = [rows[b]["bytes"][part] for b in backends]
        text = f"{'bytes/skill ' + part:28}" + "".join(f"{v:>14.0f}" for v in values)
        if len(values) == 2:
            text += f"   {values[1] / max(values[0], 1):>10.1f}x"
        print(text)


if __name__ == "__main__":
    main()
