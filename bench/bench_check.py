"""Benchmark ``skillsite check`` against ``skills-ref`` on a synthetic corpus.

Usage::

    python bench/bench_check.py [--count 10000] [--memory-count 100000] [--corpus DIR]
                                [--repeat 3] [--seed 1] [--profile]
                                [--peer-corpus DIR] [--agnix PATH]

Figures (see docs/performance.md):

  Each in-process figure is the median of ``--inproc-repeat`` (3) interleaved rounds.

  A  skills-ref ``validate()`` in-process, on every skill folder under ``skills/``
     (SKILL.md only: skills-ref reads no other format).
  B  ``skillsite.check([skills/], jobs=1)`` in-process, the same folder (no results
     cache: every file checked). B' the same with a results cache that a first run
     filled, nothing changed since (R'w: A CPU / B' CPU).
  C  ``skillsite.check([corpus], jobs=1)`` in-process, the whole corpus.
  R  B / A in skills per second (target >= 5x); R' the same in CPU time (user + system
     of this process), which other load on a shared machine moves far less.
  D  CLI ``skillsite check CORPUS --jobs 1`` vs ``--jobs 2`` wall time, median of
     ``--repeat`` (5) interleaved runs after one warm-up of each (target >= 1.7x).
  M  Peak RSS of a fresh process running the CLI on a ``--memory-count`` corpus,
     ``--jobs 1`` and ``--jobs 2`` (parent and largest worker separately;
     target < 500 MB per process).
  P  With ``--peer-corpus DIR`` (a real corpus, such as ComposioHQ/awesome-claude-skills):
     a whole ``skillsite check DIR --format json`` process against a whole ``agnix DIR
     --format json`` process (``--agnix``: its executable), on the same folder, each with
     its default parallelism, interleaved over ``--repeat`` runs after one warm-up of each:
     median wall time and CPU time (user + system, children included) of each, and
     skillsite / agnix (floor <= 1.5x, goal <= 1x), with (P") the median of each run's
     ratio to the agnix run of its turn. skillsite runs cold (``--no-cache``,
     figure P) and warm (Pw: its results cache filled by the warm-up run, nothing changed
     since); agnix has no cache. ``--count 0`` measures P alone. D and M run with
     ``--no-cache``.
"""
from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import os
import platform
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import SKILLS_DIR, generate  # noqa: E402

TARGET_RATIO = 5.0
TARGET_PARALLEL = 1.7
TARGET_RSS_MB = 500.0
PEER_FLOOR = 1.5
PEER_GOAL = 1.0

# Runs the skillsite CLI in this (fresh) process, then writes its own peak RSS (the
# skillsite parent) and that of its largest waited-for child (a worker) to a file.
_RSS_WRAPPER = r"""
import atexit, json, resource, sys
out = sys.argv.pop(1)
def report():
    self_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    with open(out, "w") as handle:
        json.dump({"parent_kb": self_kb, "children_kb": kids_kb}, handle)
atexit.register(report)
from skillsite.cli import main
main(prog_name="skillsite")
"""


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def warm(root: Path) -> tuple[int, int]:
    """Read every file once so that all runs find it in the page cache."""
    files = size = 0
    for folder, _dirs, names in os.walk(root):
        for name in names:
            with open(os.path.join(folder, name), "rb") as handle:
                size += len(handle.read())
            files += 1
    return files, size


def make_corpus(given: Path | None, count: int, seed: int, tmp: Path, label: str) -> Path:
    if given is not None:
        if not (given / SKILLS_DIR).is_dir():
            sys.exit(f"{given} has no {SKILLS_DIR}/ folder; make it with bench/generate.py")
        log(f"{label}: reusing {given}")
        return given
    out = tmp / label
    start = time.perf_counter()
    stats = generate(out, count, seed)
    log(f"{label}: generated {stats.total} skills ({stats.skill_md} SKILL.md, "
        f"{stats.skill_md_bad} bad; {stats.files} files) in "
        f"{time.perf_counter() - start:.1f} s")
    return out


def skill_dirs(corpus: Path) -> list[Path]:
    return sorted(p for p in (corpus / SKILLS_DIR).iterdir() if (p / "SKILL.md").is_file())


def bench_skills_ref(dirs: list[Path]) -> dict:
    from skills_ref.validator import validate
    validate(dirs[0])  # imports and first-call costs outside the timing
    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    failing = sum(1 for d in dirs if validate(d))
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"skills": len(dirs), "seconds": seconds, "rate": len(dirs) / seconds,
            "cpu": cpu, "failing": failing}


def bench_skillsite(path: Path, warm_up: Path, cache: Path | None = None) -> dict:
    """``check([path], jobs=1)`` in-process; with ``cache``, a second run over the results
    cache the first one (not timed) filled."""
    import skillsite
    skillsite.check([warm_up], jobs=1, base=warm_up)  # lazy imports, schema compilation
    if cache is not None:
        shutil.rmtree(cache, ignore_errors=True)
        skillsite.check([path], jobs=1, base=path, cache=cache)
    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    result = skillsite.check([path], jobs=1, base=path, cache=cache)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"skills": result.skills, "files": result.files, "seconds": seconds,
            "rate": result.skills / seconds, "cpu": cpu, "problems": len(result.problems),
            "summary": result.summary()}


def median_run(runs: list[dict]) -> dict:
    """The run with the median time, plus every run's time under ``all``."""
    ordered = sorted(runs, key=lambda r: r["seconds"])
    return ordered[(len(ordered) - 1) // 2] | {"all": [r["seconds"] for r in runs]}


def settle() -> None:
    """Flush freshly written corpus files so background writeback does not skew timings."""
    os.sync()
    time.sleep(1)


def cli_command() -> list[str]:
    # Prefer the console script next to this interpreter: a version-manager shim on PATH
    # (pyenv's is a bash script) would add its own start-up time to every run.
    beside = Path(sys.executable).parent / "skillsite"
    exe = str(beside) if beside.is_file() else shutil.which("skillsite")
    return [exe] if exe else [sys.executable, "-m", "skillsite"]


def run_cli(corpus: Path, jobs: int) -> float:
    command = cli_command() + ["check", ".", "--jobs", str(jobs), "--format", "json",
                               "--no-cache"]
    start = time.perf_counter()
    proc = subprocess.run(command, cwd=corpus, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        sys.exit(f"{' '.join(command)} failed ({proc.returncode}):\n{proc.stderr}")
    return seconds


def bench_parallel(corpus: Path, repeat: int) -> dict:
    run_cli(corpus, 1)  # warm-up: bytecode, imports, page cache
    run_cli(corpus, 2)
    times: dict[int, list[float]] = {1: [], 2: []}
    for _ in range(repeat):
        for jobs in (1, 2):
            times[jobs].append(run_cli(corpus, jobs))
    j1, j2 = statistics.median(times[1]), statistics.median(times[2])
    return {"jobs1": j1, "jobs2": j2, "ratio": j1 / j2, "runs": times}


def run_timed(command: list[str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, with the children it waited for) of one whole
    process, its output discarded."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit(f"{' '.join(command)} failed ({code}):\n{stderr[-2000:]}")
    return seconds, usage.ru_utime + usage.ru_stime


def agnix_version(agnix: str) -> str:
    try:
        return subprocess.run([agnix, "--version"], capture_output=True, text=True,
                              timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        sys.exit(f"cannot run agnix ({agnix}): {exc}; install it (pip install agnix, or "
                 "npm install -g agnix) or give its path with --agnix")


def bench_peer(corpus: Path, agnix: str, repeat: int, tmp: Path) -> dict:
    """Whole ``skillsite check`` and ``agnix`` processes on one folder, interleaved:
    skillsite cold (``--no-cache``) and warm (its results cache filled by the warm-up
    run; nothing changed since), agnix (it has no cache)."""
    cache = tmp / "peer-cache"
    commands = {"skillsite": cli_command() + ["check", ".", "--format", "json", "--no-cache"],
                "skillsite-warm": cli_command() + ["check", ".", "--format", "json",
                                                   "--cache-dir", str(cache)],
                "agnix": [agnix, ".", "--format", "json"]}
    for command in commands.values():  # warm-up: bytecode, page cache, the results cache
        run_timed(command, corpus)
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for turn in range(repeat):
        order = list(commands) if turn % 2 == 0 else list(reversed(commands))
        for name in order:
            runs[name].append(run_timed(commands[name], corpus))
    found = {"skillsite": _skillsite_counts(commands["skillsite"], corpus),
             "agnix": _agnix_counts(commands["agnix"], corpus)}
    result: dict[str, Any] = {"runs": runs, "counts": found}
    for name, timings in runs.items():
        result[name] = {"wall": statistics.median(t[0] for t in timings),
                        "cpu": statistics.median(t[1] for t in timings)}
    result["ratio"] = result["skillsite"]["wall"] / result["agnix"]["wall"]
    # Each run's ratio to the agnix run beside it: other load on a shared machine moves
    # both runs of a turn alike, so this median moves less than the ratio of medians.
    result["paired_ratio"] = statistics.median(
        ours[0] / theirs[0] for ours, theirs in zip(runs["skillsite"], runs["agnix"]))
    result["cpu_ratio"] = result["skillsite"]["cpu"] / result["agnix"]["cpu"]
    result["warm_ratio"] = result["skillsite-warm"]["wall"] / result["agnix"]["wall"]
    result["warm_cpu_ratio"] = result["skillsite-warm"]["cpu"] / result["agnix"]["cpu"]
    return result


def _skillsite_counts(command: list[str], corpus: Path) -> str:
    out = subprocess.run(command, cwd=corpus, capture_output=True, text=True).stdout
    report = json.loads(out)
    summary = report.get("summary", {})
    return (f"{summary.get('skills', '?')} skills, {summary.get('files', '?')} files, "
            f"{len(report.get('problems', []))} problems")


def _agnix_counts(command: list[str], corpus: Path) -> str:
    out = subprocess.run(command, cwd=corpus, capture_output=True, text=True).stdout
    report = json.loads(out)
    return (f"{report.get('files_checked', '?')} files, "
            f"{len(report.get('diagnostics', []))} diagnostics")


def _spin(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i % 7
    return total


def machine_ceiling(repeat: int, work: int = 12_000_000) -> dict:
    """Speed-up of a pure-Python CPU loop split over 2 processes versus 1: the most that
    ``--jobs 2`` can hope for on this machine right now (shared hosts often give < 2x)."""
    from multiprocessing import get_context
    times: dict[int, list[float]] = {1: [], 2: []}
    with get_context("fork").Pool(2) as pool:
        pool.map(_spin, [1000, 1000])
        for _ in range(repeat):
            for procs in (1, 2):
                start = time.perf_counter()
                pool.map(_spin, [work // procs] * procs, chunksize=1)
                times[procs].append(time.perf_counter() - start)
    j1, j2 = statistics.median(times[1]), statistics.median(times[2])
    return {"jobs1": j1, "jobs2": j2, "ratio": j1 / j2}


def measure_rss(corpus: Path, jobs: int, tmp: Path) -> dict:
    out = tmp / f"rss-{jobs}.json"
    command = [sys.executable, "-c", _RSS_WRAPPER, str(out), "check", ".", "--jobs",
               str(jobs), "--format", "json", "--no-cache"]
    start = time.perf_counter()
    proc = subprocess.run(command, cwd=corpus, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1) or not out.exists():
        sys.exit(f"memory run --jobs {jobs} failed ({proc.returncode}):\n{proc.stderr}")
    usage = json.loads(out.read_text())
    # Linux reports ru_maxrss in KiB.
    return {"parent_mb": usage["parent_kb"] / 1024, "children_mb": usage["children_kb"] / 1024,
            "seconds": seconds}


def profile(path: Path, top: int = 15) -> str:
    """Top ``top`` cumulative entries from skillsite code for ``check([path], jobs=1)``."""
    import skillsite
    profiler = cProfile.Profile()
    profiler.enable()
    skillsite.check([path], jobs=1, base=path)
    profiler.disable()
    stream = io.StringIO()
    stats = pstats.Stats(profiler, stream=stream)
    stats.sort_stats("cumulative").print_stats(r"skillsite[/\\]", top)
    return stream.getvalue()


def provenance() -> str:
    """Where the measured skillsite comes from, and its git commit when it has one."""
    import skillsite
    folder = Path(skillsite.__file__).resolve().parent.parent
    try:
        commit = subprocess.run(["git", "-C", str(folder), "describe", "--always", "--dirty"],
                                capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return f"{folder}" + (f" @ {commit}" if commit else " (not a git checkout)")


def _cpu_seconds() -> tuple[float, float] | None:
    """(busy, steal) CPU-seconds of the whole machine so far (Linux /proc/stat), or None.
    ``busy`` leaves out idle, iowait and steal; ``steal`` is time the hypervisor gave
    to other guests while this one wanted to run."""
    try:
        with open("/proc/stat") as handle:
            fields = [int(x) for x in handle.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    tick = os.sysconf("SC_CLK_TCK")
    steal = fields[7] if len(fields) > 7 else 0
    busy = sum(fields[:7]) - fields[3] - fields[4]  # user nice system [idle iowait] irq softirq
    return busy / tick, steal / tick


def _own_seconds() -> float:
    import resource
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


class LoadMeter:
    """CPU time that other processes (foreign) and other VMs (steal) took during each
    measured phase. On a 2-core machine either makes the figures, --jobs 2 most,
    unreliable. Corpus generation is not a phase: its kernel writeback would count."""

    def __init__(self) -> None:
        self.phases: list[tuple[str, float, float, float]] = []  # name, wall, foreign, steal
        self._open: tuple[str, tuple[float, float] | None, float, float] | None = None

    def start(self, name: str) -> None:
        self._open = (name, _cpu_seconds(), _own_seconds(), time.perf_counter())

    def stop(self) -> None:
        assert self._open is not None
        name, cpu0, own0, t0 = self._open
        cpu1, wall = _cpu_seconds(), time.perf_counter() - t0
        if cpu0 is not None and cpu1 is not None:
            foreign = max(0.0, (cpu1[0] - cpu0[0]) - (_own_seconds() - own0))
            self.phases.append((name, wall, foreign, cpu1[1] - cpu0[1]))
        self._open = None

    def report(self) -> str:
        if not self.phases:
            return "foreign CPU load: unknown (no /proc/stat)"
        parts = [f"{name} {foreign / wall:.2f}+{steal / wall:.2f}"
                 for name, wall, foreign, steal in self.phases]
        worst = max((foreign + steal) / wall for _, wall, foreign, steal in self.phases)
        note = ("ok" if worst < 0.1 else
                "WARNING: the CPUs were shared during measuring; rerun on an idle machine")
        return ("foreign+steal CPU load per phase, in cores (other processes + hypervisor "
                f"steal): {', '.join(parts)} -- {note}")


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="skillsite check benchmark")
    parser.add_argument("--count", type=int, default=10000,
                        help="skills in the speed corpus (default 10000)")
    parser.add_argument("--memory-count", type=int, default=100000,
                        help="skills in the memory corpus; 0 skips memory (default 100000)")
    parser.add_argument("--corpus", type=Path, help="reuse this corpus for speed figures")
    parser.add_argument("--memory-corpus", type=Path, help="reuse this corpus for memory")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5,
                        help="timed CLI runs per --jobs value (median is reported)")
    parser.add_argument("--inproc-repeat", type=int, default=3,
                        help="in-process rounds of A, B and C (median is reported)")
    parser.add_argument("--profile", action="store_true",
                        help="also print a cProfile of skillsite.check([skills/], jobs=1), the "
                             "SKILL.md subset of figure B")
    parser.add_argument("--keep", action="store_true", help="keep generated corpora")
    parser.add_argument("--peer-corpus", type=Path,
                        help="a real corpus for figure P: skillsite check against agnix")
    parser.add_argument("--agnix", default=shutil.which("agnix") or "agnix",
                        help="the agnix executable for figure P (default: agnix on PATH)")
    args = parser.parse_args(argv)

    tmp = Path(tempfile.mkdtemp(prefix="skillsite-bench-"))
    try:
        return run(args, tmp)
    finally:
        if args.keep:
            log(f"kept corpora in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def run(args: argparse.Namespace, tmp: Path) -> int:
    import skillsite
    total_start = time.perf_counter()
    meter = LoadMeter()
    rows: list[tuple[str, str, str, str]] = []
    notes: list[str] = []
    corpus: Path | None = None
    if args.peer_corpus:
        version = agnix_version(args.agnix)
        warm(args.peer_corpus)
        log(f"P: whole skillsite check vs {version} on {args.peer_corpus}, "
            f"{args.repeat} runs each")
        meter.start("P")
        peer = bench_peer(args.peer_corpus.resolve(), args.agnix, args.repeat, tmp)
        meter.stop()
        rows += peer_rows(peer, version, notes)
    if args.count or args.corpus:
        corpus = make_corpus(args.corpus, args.count, args.seed, tmp, "corpus").resolve()
        rows += run_generated(args, corpus, meter, notes, tmp)
    if args.memory_count or args.memory_corpus:
        rows += run_memory(args, corpus, tmp, meter)
    else:
        rows.append(("M  peak RSS", "skipped (--memory-count 0)", "", ""))

    width = max(len(r[0]) for r in rows)
    vwidth = max(len(r[1]) for r in rows)
    print()
    print(f"skillsite {skillsite.__version__} check benchmark -- Python "
          f"{platform.python_version()}, {os.cpu_count()} CPUs, {platform.machine()}")
    print(f"skillsite from {provenance()}")
    print()
    print(f"{'figure':<{width}}  {'measured':<{vwidth}}  {'target':<8}  result")
    print(f"{'-' * width}  {'-' * vwidth}  {'-' * 8}  ------")
    for name, value, target, result in rows:
        print(f"{name:<{width}}  {value:<{vwidth}}  {target:<8}  {result}")
    print()
    for note in notes:
        print(note)
    print(meter.report())
    print(f"total benchmark time {time.perf_counter() - total_start:.0f} s")
    return 0


def peer_rows(peer: dict, version: str, notes: list[str]) -> list[tuple[str, str, str, str]]:
    ours, theirs, warm = peer["skillsite"], peer["agnix"], peer["skillsite-warm"]
    notes.append(f"P corpus: skillsite {peer['counts']['skillsite']}; {version}: "
                 f"{peer['counts']['agnix']}")
    notes.append("P runs (wall s / CPU s): " + "; ".join(
        f"{name}: " + ", ".join(f"{w:.2f}/{c:.2f}" for w, c in runs)
        for name, runs in peer["runs"].items()))
    ratio = peer["ratio"]
    return [
        ("P1 skillsite check (whole process), median wall / CPU",
         f"{ours['wall']:.2f} s / {ours['cpu']:.2f} s", "", ""),
        ("P2 agnix (whole process), median wall / CPU",
         f"{theirs['wall']:.2f} s / {theirs['cpu']:.2f} s", "", ""),
        ("P  wall ratio P1 / P2 (skillsite vs agnix)", f"{ratio:.2f}x",
         f"<= {PEER_FLOOR:g}x", verdict(ratio <= PEER_FLOOR)
         + (" (goal <= 1x met)" if ratio <= PEER_GOAL else "")),
        ("P\" wall ratio run by run, median (context)", f"{peer['paired_ratio']:.2f}x",
         "", ""),
        ("P' CPU ratio P1 / P2 (context)", f"{peer['cpu_ratio']:.2f}x", "", ""),
        ("Pw skillsite check, results cache warm, median wall / CPU",
         f"{warm['wall']:.2f} s / {warm['cpu']:.2f} s", "", ""),
        ("Pw wall ratio Pw / P2 (warm skillsite vs agnix)", f"{peer['warm_ratio']:.2f}x",
         f"<= {PEER_FLOOR:g}x", verdict(peer["warm_ratio"] <= PEER_FLOOR)
         + (" (goal <= 1x met)" if peer["warm_ratio"] <= PEER_GOAL else "")),
        ("Pw' CPU ratio Pw / P2 (context)", f"{peer['warm_cpu_ratio']:.2f}x", "", ""),
    ]


def run_generated(args: argparse.Namespace, corpus: Path, meter: LoadMeter,
                  notes: list[str], tmp: Path) -> list[tuple[str, str, str, str]]:
    """Figures A-D on the generated corpus."""
    subset = corpus / SKILLS_DIR
    settle()
    files, size = warm(corpus)
    log(f"warmed {files} files ({size / 2**20:.0f} MiB)")
    dirs = skill_dirs(corpus)

    meter.start("A/B/C")
    runs: dict[str, list[dict]] = {"A": [], "B": [], "C": [], "W": []}
    for turn in range(args.inproc_repeat):
        log(f"A/B/C round {turn + 1}/{args.inproc_repeat}: skills-ref validate() on "
            f"{len(dirs)} SKILL.md folders; skillsite.check([{SKILLS_DIR}/]) and "
            "check([corpus]), jobs=1")
        runs["A"].append(bench_skills_ref(dirs))
        runs["B"].append(bench_skillsite(subset, dirs[0]))
        runs["C"].append(bench_skillsite(corpus, dirs[0]))
        runs["W"].append(bench_skillsite(subset, dirs[0], cache=tmp / "inproc-cache"))
    ref, sub, whole, cached = (median_run(runs[k]) for k in "ABCW")
    meter.stop()
    ratio = sub["rate"] / ref["rate"]
    prof = profile(subset) if args.profile else None
    log(f"D: CLI --jobs 1 vs --jobs 2, {args.repeat} runs each")
    meter.start("D")
    par = bench_parallel(corpus, args.repeat)
    meter.stop()
    log("D0: machine ceiling, CPU loop on 1 vs 2 processes")
    meter.start("D0")
    ceiling = machine_ceiling(args.repeat)
    meter.stop()

    rows: list[tuple[str, str, str, str]] = []
    rows.append(("A  skills-ref validate(), in-process, SKILL.md subset",
                 f"{ref['rate']:,.0f} skills/s ({ref['skills']} in {ref['seconds']:.2f} s)",
                 "", ""))
    rows.append(("B  skillsite.check(jobs=1), in-process, same SKILL.md subset",
                 f"{sub['rate']:,.0f} skills/s ({sub['skills']} in {sub['seconds']:.2f} s)",
                 "", ""))
    rows.append(("C  skillsite.check(jobs=1), in-process, whole corpus",
                 f"{whole['rate']:,.0f} skills/s ({whole['skills']} in "
                 f"{whole['seconds']:.2f} s)", "", ""))
    rows.append(("R  speed ratio B / A (skillsite vs skills-ref)", f"{ratio:.2f}x",
                 f">= {TARGET_RATIO:g}x", verdict(ratio >= TARGET_RATIO)))
    cpu_ratio = ref["cpu"] / sub["cpu"]
    rows.append(("R' the same in CPU time, A CPU / B CPU (robust to other load)",
                 f"{cpu_ratio:.2f}x ({ref['cpu']:.2f} s / {sub['cpu']:.2f} s)",
                 f">= {TARGET_RATIO:g}x", verdict(cpu_ratio >= TARGET_RATIO)))
    warm_ratio = ref["cpu"] / cached["cpu"]
    rows.append(("B' the same as B, results cache warm (nothing changed)",
                 f"{cached['rate']:,.0f} skills/s ({cached['skills']} in "
                 f"{cached['seconds']:.2f} s, CPU {cached['cpu']:.2f} s)", "", ""))
    rows.append(("R'w A CPU / B' CPU (warm cache, context)", f"{warm_ratio:.2f}x", "", ""))
    rows.append(("D1 CLI check --jobs 1, whole corpus, median wall",
                 f"{par['jobs1']:.2f} s ({whole['skills'] / par['jobs1']:,.0f} skills/s)",
                 "", ""))
    rows.append(("D2 CLI check --jobs 2, whole corpus, median wall",
                 f"{par['jobs2']:.2f} s ({whole['skills'] / par['jobs2']:,.0f} skills/s)",
                 "", ""))
    rows.append(("D  parallel speed-up D1 / D2", f"{par['ratio']:.2f}x",
                 f">= {TARGET_PARALLEL:g}x", verdict(par["ratio"] >= TARGET_PARALLEL)))
    best = min(par["runs"][1]) / min(par["runs"][2])
    rows.append(("D' speed-up of the fastest runs, min D1 / min D2 (context)", f"{best:.2f}x",
                 "", ""))
    rows.append(("D0 machine ceiling: pure CPU loop, 1 vs 2 processes (context)",
                 f"{ceiling['ratio']:.2f}x ({ceiling['jobs1']:.2f} s / {ceiling['jobs2']:.2f} s)",
                 "", ""))

    notes.append(f"generated corpus: {whole['skills']} skills / {whole['files']} checked files "
                 f"(generate.py --count {args.count} --seed {args.seed}"
                 f"{', reused ' + str(args.corpus) if args.corpus else ''}); "
                 f"SKILL.md subset: {len(dirs)} folders under {SKILLS_DIR}/")
    notes.append("skills-ref reads SKILL.md only, so A, B and R are measured on the SKILL.md "
                 f"subset ({SKILLS_DIR}/), the same files for both.")
    inproc = "; ".join(f"{k}: " + ", ".join(f"{t:.2f}" for t in r["all"])
                       for k, r in (("A", ref), ("B", sub), ("C", whole), ("B'", cached)))
    notes.append(f"in-process runs (s, median reported): {inproc}")
    notes.append(f"skills-ref flagged {ref['failing']} of {ref['skills']} folders; skillsite "
                 f"on the subset: {sub['summary']}")
    notes.append(f"skillsite on the whole corpus: {whole['summary']}")
    cli_runs = "; ".join(f"--jobs {j}: " + ", ".join(f"{t:.2f}" for t in par["runs"][j])
                         for j in (1, 2))
    notes.append(f"CLI runs (s, median reported): {cli_runs}")
    if prof:
        notes.append(f"\ncProfile of skillsite.check([{SKILLS_DIR}/], jobs=1), top 15 "
                     f"cumulative (skillsite code only):\n{prof}")
    return rows


def run_memory(args: argparse.Namespace, corpus: Path | None, tmp: Path,
               meter: LoadMeter) -> list[tuple[str, str, str, str]]:
    """Figures M1 and M2: peak memory of the CLI on the memory corpus."""
    if corpus is not None and args.corpus is not None and args.memory_corpus is None and \
            args.memory_count == args.count:
        mem_corpus = corpus
    else:
        mem_corpus = make_corpus(args.memory_corpus, args.memory_count, args.seed, tmp,
                                 "memory-corpus").resolve()
    if mem_corpus != corpus:
        shutil.rmtree(tmp / "corpus", ignore_errors=True)  # free the disk early
    settle()
    mem_files, _ = warm(mem_corpus)
    mem_skills = sum(1 for _ in (mem_corpus / SKILLS_DIR).iterdir())
    log(f"M: peak RSS on {mem_corpus.name} ({mem_files} files), --jobs 1 and --jobs 2")
    meter.start("M")
    mem = {"corpus": mem_corpus, "files": mem_files, "skill_dirs": mem_skills,
           1: measure_rss(mem_corpus, 1, tmp), 2: measure_rss(mem_corpus, 2, tmp)}
    meter.stop()
    m1, m2 = mem[1], mem[2]
    return [
        (f"M1 peak RSS, CLI --jobs 1 ({mem_label(mem)})",
         f"{m1['parent_mb']:.0f} MB (run {m1['seconds']:.1f} s)",
         f"< {TARGET_RSS_MB:g} MB", verdict(m1["parent_mb"] < TARGET_RSS_MB)),
        ("M2 peak RSS, CLI --jobs 2: parent process",
         f"{m2['parent_mb']:.0f} MB (run {m2['seconds']:.1f} s)",
         f"< {TARGET_RSS_MB:g} MB", verdict(m2["parent_mb"] < TARGET_RSS_MB)),
        ("M2 peak RSS, CLI --jobs 2: largest worker",
         f"{m2['children_mb']:.0f} MB", f"< {TARGET_RSS_MB:g} MB",
         verdict(m2["children_mb"] < TARGET_RSS_MB)),
        ("M2 upper bound parent + 2 x worker (shared pages counted twice)",
         f"{m2['parent_mb'] + 2 * m2['children_mb']:.0f} MB", "", ""),
        ("M3 speed-up of the memory runs, M1 time / M2 time (context)",
         f"{m1['seconds'] / m2['seconds']:.2f}x", "", ""),
    ]


def mem_label(mem: dict) -> str:
    return f"{mem['files']} files, {mem['skill_dirs']} SKILL.md folders"


if __name__ == "__main__":
    sys.exit(main())
