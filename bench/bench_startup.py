"""Start-up: how long a fresh ``skillsite`` process takes before it does any work.

Side by side in one run, each the median of ``--runs`` fresh processes, interleaved so
that machine load hits every command alike:

- ``python -c pass``: the floor any Python command pays;
- ``skillsite --version``: the CLI alone;
- ``skillsite check EMPTY``: a check that meets no file (budget 0.12 s, aim 0.08 s);
- with ``--dist DIST``: a cold ``search``, ``open`` and ``read`` of the first skill.

``--imports`` also prints the ten slowest imports of the empty check (``-X importtime``),
which is where to look when the budget is missed.

    python bench/bench_startup.py [--runs 15] [--dist DIST] [--imports]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHECK_BUDGET_S = 0.12
CHECK_AIM_S = 0.08


def _time(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def _first_skill(dist: Path) -> str:
    catalog = json.loads((dist / "catalog.json").read_text(encoding="utf-8"))
    return str(catalog["skills"][0]["id"])


def _commands(empty: Path, dist: Path | None) -> dict[str, list[str]]:
    skillsite = [sys.executable, "-m", "skillsite"]
    commands = {"python -c pass": [sys.executable, "-c", "pass"],
                "skillsite --version": [*skillsite, "--version"],
                "skillsite check EMPTY": [*skillsite, "check", str(empty)]}
    if dist is not None:
        ref = _first_skill(dist)
        where = ["--dist", str(dist), "--json"]
        commands |= {"cold search": [*skillsite, "search", "pdf form", *where],
                     "cold open": [*skillsite, "open", ref, *where],
                     "cold read": [*skillsite, "read", ref, *where]}
    return commands


def _slowest_imports(empty: Path, count: int = 10) -> list[tuple[int, str]]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "skillsite", "check",
                           str(empty)], capture_output=True, text=True, check=False)
    rows = []
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "cumulative" not in line:
            _, cumulative, name = line.split("|")
            rows.append((int(cumulative), name.strip()))
    return sorted(rows, reverse=True)[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--dist", type=Path, help="a built dist/ for the cold queries")
    parser.add_argument("--imports", action="store_true", help="print the slowest imports")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        empty = Path(folder)
        commands = _commands(empty, args.dist)
        for command in commands.values():  # warm the file cache once
            _time(command)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, command in commands.items():
                times[name].append(_time(command))
        floor = statistics.median(times["python -c pass"])
        print(f"{'command':24} {'median':>9} {'min':>9} {'over python':>12}")
        for name, values in times.items():
            median = statistics.median(values)
            print(f"{name:24} {median * 1000:7.1f}ms {min(values) * 1000:7.1f}ms "
                  f"{(median - floor) * 1000:10.1f}ms")
        check = statistics.median(times["skillsite check EMPTY"])
        verdict = ("met" if check <= CHECK_BUDGET_S else "MISSED")
        print(f"\nempty check: {check:.3f} s, budget {CHECK_BUDGET_S} s ({verdict}), "
              f"aim {CHECK_AIM_S} s, bare interpreter {floor:.3f} s")
        if args.imports:
            print("\nslowest imports of the empty check (cumulative µs):")
            for micros, name in _slowest_imports(empty):
                print(f"{micros:10d}  {name}")


if __name__ == "__main__":
    main()
