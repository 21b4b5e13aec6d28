"""Benchmark ``skillsite build`` for each index backend at several corpus sizes.

    python bench/bench_build.py [--sizes 1000,10000,100000] [--whoosh-sizes 1000,10000]
                                [--jobs 2] [--workdir DIR]

For each size it generates the synthetic corpus of ``bench/generate.py`` once, flushes it
to disk and reads it once (as ``bench_check.py`` does), then for each backend reports, side
by side:

- full build time (``--clean``, a fresh process, as a user runs it);
- incremental rebuild time after one skill changes;
- bytes per included skill of each artifact;
- peak memory (the build process, and the largest worker).

Whoosh is slow at 100k skills (about 6 minutes), so by default it runs only at the sizes in
``--whoosh-sizes``. Targets (default backend, 2 cores): 100k full build <= 60 s,
one-skill incremental rebuild <= 3 s, peak memory <= 2 GB.
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

TARGETS = {"full_s": 60.0, "incremental_s": 3.0, "peak_mb": 2048.0}


def _run(args: list[str]) -> dict:
    done = subprocess.run([sys.executable, str(HERE / "_measure.py"), *args],
                          capture_output=True, text=True, check=False)
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


def _touch_one_skill(corpus: Path) -> None:
    first = sorted((corpus / "skills").iterdir())[len(list((corpus / "skills").iterdir())) // 2]
    skill = first / "SKILL.md"
    skill.write_text(skill.read_text(encoding="utf-8") + "\nOne more line of guidance.\n",
                     encoding="utf-8")


def measure(corpus: Path, work: Path, backend: str, jobs: int) -> dict:
    dist = work / f"dist-{backend}"
    common = [str(corpus), "-o", str(dist), "--index", backend, "--jobs", str(jobs), "-q"]
    full = _run(["build", *common, "--clean"])
    _touch_one_skill(corpus)
    incremental = _run(["build", *common])
    return {"full_s": full["seconds"], "incremental_s": incremental["seconds"],
            "peak_mb": max(full["rss_mb"], full["children_rss_mb"]),
            "parent_mb": full["rss_mb"], "worker_mb": full["children_rss_mb"],
            "bytes": _sizes(dist)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--whoosh-sizes", default="1000,10000")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args()
    whoosh_sizes = {int(s) for s in args.whoosh_sizes.split(",") if s}
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        for count in (int(s) for s in args.sizes.split(",")):
            corpus = Path(tmp) / f"corpus-{count}"
            generate(corpus, count)
            _settle(corpus)
            rows = {b: measure(corpus, Path(tmp), b, args.jobs)
                    for b in ("tantivy", "whoosh") if b == "tantivy" or count in whoosh_sizes}
            _print(count, rows)


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
    line("incremental, 1 skill (s)", "incremental_s", ".2f", TARGETS["incremental_s"])
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
