"""Faults during ``skillsite build``, at scale, with every run's outcome printed.

    python bench/bench_faults.py [--count 2000] [--kills 24] [--jobs 2] [--seed 1]

On a generated corpus (``generate.py``) with a previous ``dist/`` present, it runs:

- ``--kills`` builds killed with SIGKILL (the whole process group) at uniform random
  points of a full build's duration;
- a build onto a 3 MB tmpfs that fills up (skipped where mounting is not allowed);
- builds under a file-size limit (RLIMIT_FSIZE: EFBIG) at three sizes;
- a ``--clean`` build with one SKILL.md at mode 000, as root without CAP_DAC_OVERRIDE;
- builds while a thread deletes skill folders.

After each: ``dist/`` is whole (every checksum in the manifest matches) and is the old or
the new build; the failure, if any, has exit code 1 or 2, an ``Error:`` line and no
traceback. The next build succeeds. Exit status 0 when every run passed.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from faults import (  # noqa: E402
    Outcome,
    classify,
    file_size_limit,
    leftovers,
    mount_tmpfs,
    random_kills,
    run_build,
    unmount,
    verify_dist,
    without_dac_override,
)
from generate import generate  # noqa: E402


def _outcome(fault: str, done, dist: Path, old: str, started: float) -> Outcome:
    return Outcome(fault, done.returncode, done.stderr, classify(dist, old, None),
                   time.monotonic() - started)


def _edit(corpus: Path, count: int) -> None:
    for path in sorted((corpus / "skills").glob("*/SKILL.md"))[:count]:
        path.write_text(path.read_text("utf-8") + "\nEdited.\n", encoding="utf-8")


def kills(corpus: Path, dist: Path, runs: int, jobs: str, seed: int) -> list[Outcome]:
    started = time.monotonic()
    assert run_build(corpus, dist, "--jobs", jobs, "--clean").returncode == 0
    span = time.monotonic() - started
    print(f"full build: {span:.1f} s; killing {runs} builds in [0, {span * 1.1:.1f}] s")
    _edit(corpus, 50)
    return random_kills(corpus, dist, runs, span * 1.1, seed, "--jobs", jobs, "--clean")


def full_disk(corpus: Path, base: Path, jobs: str) -> list[Outcome]:
    small = base / "small"
    if not mount_tmpfs(small, "3m"):
        print("full disk: skipped (mounting a tmpfs needs root); see the EFBIG runs")
        return []
    try:
        shutil.copytree(corpus / "wiki", small / "few" / "wiki")
        dist = small / "dist"
        assert run_build(small / "few", dist).returncode == 0
        old = verify_dist(dist)
        started = time.monotonic()
        done = run_build(corpus, dist, "--jobs", jobs)
        return [_outcome("full disk (3 MB tmpfs)", done, dist, old, started)]
    finally:
        unmount(small)


def size_limits(corpus: Path, dist: Path, jobs: str) -> list[Outcome]:
    found = []
    for limit in (1_000, 40_000, 200_000):
        old = verify_dist(dist)
        started = time.monotonic()
        done = run_build(corpus, dist, "--jobs", jobs, "--clean",
                         preexec=file_size_limit(limit))
        found.append(_outcome(f"EFBIG, RLIMIT_FSIZE {limit} B", done, dist, old, started))
    return found


def unreadable(corpus: Path, dist: Path, jobs: str) -> list[Outcome]:
    victim = sorted((corpus / "skills").glob("*/SKILL.md"))[3]
    victim.chmod(0)
    found = []
    try:
        for mode in ("--strict", "--quiet"):
            old = verify_dist(dist)
            started = time.monotonic()
            done = run_build(corpus, dist, "--jobs", jobs, "--clean", mode,
                             preexec=without_dac_override)
            found.append(_outcome(f"unreadable SKILL.md ({mode})", done, dist, old, started))
    finally:
        victim.chmod(0o644)
    return found


def _delete_slowly(folders: list[Path]) -> None:
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
        time.sleep(0.02)


def deletions(corpus: Path, dist: Path, jobs: str, runs: int = 4) -> list[Outcome]:
    found = []
    for run in range(runs):
        folders = sorted((corpus / "skills").iterdir())[run::11][:40]
        thread = threading.Thread(target=_delete_slowly, args=(folders,))
        old = verify_dist(dist)
        started = time.monotonic()
        thread.start()
        done = run_build(corpus, dist, "--jobs", jobs, "--clean")
        thread.join()
        found.append(_outcome(f"{len(folders)} skill folders deleted during the build",
                              done, dist, old, started))
    return found


def _passed(outcome: Outcome) -> bool:
    return outcome.dist in ("old", "new") and (outcome.clean_failure or
                                               outcome.fault.startswith("SIGKILL"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--kills", type=int, default=24)
    parser.add_argument("--jobs", default="2")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="skillsite-faults-") as tmp:
        base = Path(tmp)
        corpus, dist = base / "corpus", base / "dist"
        generate(corpus, args.count, seed=args.seed)
        outcomes = kills(corpus, dist, args.kills, args.jobs, args.seed)
        after_kills = run_build(corpus, dist, "--jobs", args.jobs)
        outcomes += full_disk(corpus, base, args.jobs)
        outcomes += size_limits(corpus, dist, args.jobs)
        outcomes += unreadable(corpus, dist, args.jobs)
        outcomes += deletions(corpus, dist, args.jobs)
        final = run_build(corpus, dist, "--jobs", args.jobs)
        print(f"\n{'fault':<44}{'exit':>5}  {'dist/ after':<12}{'s':>6}  message")
        for o in outcomes:
            message = next((line for line in o.stderr.splitlines() if "Error:" in line), "")
            print(f"{o.fault:<44}{o.returncode:>5}  {o.dist:<12}{o.seconds:6.1f}  "
                  f"{message[:110]}{'' if _passed(o) else '  <-- FAILED'}")
        kinds = Counter(o.dist for o in outcomes if o.fault.startswith("SIGKILL"))
        print(f"\nSIGKILL runs: {sum(kinds.values())}, dist/ afterwards: {dict(kinds)}; "
              f"build after the kills: exit {after_kills.returncode}; "
              f"leftover temporary folders now: {leftovers(dist) or 'none'}")
        ok = all(map(_passed, outcomes)) and after_kills.returncode == 0 \
            and final.returncode == 0 and not leftovers(dist)
        print(f"{sum(map(_passed, outcomes))} of {len(outcomes)} runs passed; final build "
              f"exit {final.returncode}: {'PASS' if ok else 'FAIL'}")
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
