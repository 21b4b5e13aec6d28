"""Fault injection around ``skillsite build``: kill it, fill its disk, break its files.

Shared by ``bench/bench_faults.py`` (the full runs, with figures) and
``tests/faults/`` (a small-scale version). Every build runs as a real subprocess of the
CLI, ``python -m skillsite build CORPUS -o DIST``; every fault is a real kernel-level one
(SIGKILL, ENOSPC on a small tmpfs, EFBIG from RLIMIT_FSIZE, EACCES for a
root without CAP_DAC_OVERRIDE, a file gone between the walk and the read). After each, :func:`verify_dist` checks
that ``dist/`` is whole: the manifest parses and every file matches its sha256.
"""
from __future__ import annotations

import ctypes
import hashlib
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[1]


@dataclass
class Outcome:
    """What one faulty build left behind."""

    fault: str
    returncode: int
    stderr: str
    dist: str          # "old", "new", or what was wrong with it
    seconds: float

    @property
    def clean_failure(self) -> bool:
        """It either succeeded or failed with exit 1 or 2 and a message, no traceback."""
        return "Traceback" not in self.stderr and (
            self.returncode == 0 or self.returncode in (1, 2) and "Error:" in self.stderr)


def verify_dist(dist: Path) -> str:
    """The sha256 of ``manifest.json`` when ``dist`` is whole; raises AssertionError
    naming the first damaged or missing file otherwise."""
    manifest_bytes = (dist / "manifest.json").read_bytes()
    manifest = json.loads(manifest_bytes)
    for name, digest in manifest["files"].items():
        data = (dist / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == digest, f"{name} does not match"
    json.loads((dist / "catalog.json").read_bytes())
    return hashlib.sha256(manifest_bytes).hexdigest()


def build_command(corpus: Path, dist: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "skillsite", "build", str(corpus), "-o", str(dist),
            "-q", *extra]


def environment() -> dict[str, str]:
    """The environment of a build subprocess: this checkout first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(
        os.pathsep)
    env.pop("GITHUB_ACTIONS", None)
    return env


def run_build(corpus: Path, dist: Path, *extra: str, preexec: Callable[[], None] | None = None,
              timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(build_command(corpus, dist, *extra), capture_output=True, text=True,
                          env=environment(), preexec_fn=preexec, timeout=timeout)


def classify(dist: Path, old: str, new: str | None) -> str:
    try:
        digest = verify_dist(dist)
    except (AssertionError, OSError, ValueError, KeyError) as exc:
        return f"damaged: {exc}"
    return "old" if digest == old else "new" if new is None or digest == new else "other"


def leftovers(dist: Path) -> list[str]:
    """Temporary folders of killed builds beside ``dist`` (the next build removes them)."""
    return sorted(p.name for p in dist.parent.glob(f".{dist.name}.tmp-*"))


# -- SIGKILL at a random point ------------------------------------------------------------

def kill_at(corpus: Path, dist: Path, delay: float, old: str, *extra: str) -> Outcome:
    """Start a build, SIGKILL its whole process group after ``delay`` seconds."""
    started = time.monotonic()
    process = subprocess.Popen(build_command(corpus, dist, *extra), env=environment(),
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        process.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
    _, stderr = process.communicate()
    _reap_group(process.pid)
    return Outcome(f"SIGKILL at {delay:.2f} s", process.returncode, stderr,
                   classify(dist, old, None), time.monotonic() - started)


def _reap_group(pgid: int) -> None:
    """Kill whatever of the group is left (workers, helpers) and wait until it is gone."""
    for _ in range(50):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            return
        time.sleep(0.05)


def random_kills(corpus: Path, dist: Path, runs: int, span: float, seed: int,
                 *extra: str) -> list[Outcome]:
    """``runs`` builds killed at uniform random points of ``[0, span]`` seconds; after each,
    ``dist`` must be the old or the new build, whole."""
    rng = random.Random(seed)
    outcomes = []
    for _ in range(runs):
        old = verify_dist(dist)
        outcomes.append(kill_at(corpus, dist, rng.uniform(0.0, span), old, *extra))
    return outcomes


# -- a full disk, a file-size limit, an unreadable file -----------------------------------

def file_size_limit(limit: int) -> Callable[[], None]:
    """A ``preexec_fn``: writes past ``limit`` bytes fail with EFBIG (SIGXFSZ ignored, so
    the kernel returns the error instead of killing the process)."""
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


_PR_CAPBSET_DROP = 24
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 1, 2


def without_dac_override() -> None:
    """A ``preexec_fn``: root without the capabilities that let it read any file, so that
    ``chmod 000`` applies to the build as it would to any user (on Linux, dropping them
    from the bounding set keeps them out of the program that is executed next)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


def mount_tmpfs(folder: Path, size: str) -> bool:
    """Mount a ``size`` tmpfs on ``folder``; False where this process may not mount."""
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or not shutil.which("mount"):
        return False
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs",
                           str(folder)], capture_output=True)
    return done.returncode == 0


def unmount(folder: Path) -> None:
    subprocess.run(["umount", str(folder)], capture_output=True)
