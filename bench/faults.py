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
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

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


# -- SIGKILL of the build process alone, in a chosen stage ------------------------------

#: The stages of a build, as its temporary folder shows them (see :func:`stage_of`).
STAGES = ("check", "data", "site pages", "site mkdocs", "site finish")


def stage_of(work: Path) -> str | None:
    """The stage a build is in, from what its temporary folder ``work`` holds: linting
    and the index first, then the catalog and the manifest, then the site's pages
    (``.site-stubs``), mkdocs (``.site-view-*`` shards, or the search scratch before the
    site exists) and the site's last steps; None once the folder is gone (swapped in)."""
    try:
        names = set(os.listdir(work))
    except OSError:
        return None
    if "catalog.json" not in names:
        return "check"
    if ".site-stubs" in names:
        return "site pages"
    # The search scratch is made just before the stubs: it marks mkdocs only once the
    # docs tree of the pages' cache exists (site-cache itself is made as the skills are
    # read, for their parts) and the stubs are gone.
    if any(name.startswith(".site-view-") for name in names) or (
            ".site-pagefind" in names and "site" not in names
            and os.path.isdir(os.path.join(work, "site-cache", "docs"))):
        return "site mkdocs"
    if "site" in names:
        return "site finish"
    return "data"


def group_members(pgid: int) -> list[str]:
    """The command lines of the live (not zombie) processes of process group ``pgid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if fields[0] != "Z" and int(fields[2]) == pgid:
                found.append((entry / "cmdline").read_bytes().replace(b"\0", b" ")
                             .decode(errors="replace").strip())
        except (OSError, IndexError, ValueError):
            continue
    return found


@dataclass
class StageKill:
    """A build whose main process was SIGKILLed in ``stage``: what outlived it."""

    stage: str            # the stage wanted
    killed_in: str | None  # the stage it was in when killed (None: it had finished)
    delay: float          # seconds into the stage
    survivors: list[str]  # processes of its group alive after the grace time
    outcome: Outcome


def kill_in_stage(corpus: Path, dist: Path, stage: str, delay: float, old: str,
                  *extra: str, grace: float = 3.0) -> StageKill:
    """Start a build; ``delay`` seconds after it enters ``stage``, SIGKILL its main process
    only (as the OOM killer or ``kill -9 PID`` would), then list the processes of its group
    still alive after ``grace`` seconds: workers that did not die with it."""
    started = time.monotonic()
    # stderr into a file, not a pipe: a worker that outlives the build would hold a pipe
    # open, and reading it to its end would wait for ever.
    errors = tempfile.TemporaryFile(mode="w+")
    process = subprocess.Popen(build_command(corpus, dist, *extra), env=environment(),
                               stdout=subprocess.DEVNULL, stderr=errors, text=True,
                               start_new_session=True)
    work = dist.parent / f".{dist.name}.tmp-{process.pid}"
    wanted = STAGES.index(stage)
    entered = None
    while process.poll() is None:
        now = stage_of(work)
        if entered is None and now is not None and STAGES.index(now) >= wanted:
            entered = time.monotonic()
        if entered is not None and time.monotonic() - entered >= delay:
            break
        time.sleep(0.005)
    killed_in = stage_of(work) if process.poll() is None else None
    if process.poll() is None:
        process.kill()
    process.wait()
    errors.seek(0)
    stderr = errors.read()
    errors.close()
    deadline = time.monotonic() + grace
    while (survivors := group_members(process.pid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    _reap_group(process.pid)
    outcome = Outcome(f"SIGKILL in {stage} at +{delay:.2f} s", process.returncode, stderr,
                      classify(dist, old, None), time.monotonic() - started)
    return StageKill(stage, killed_in, delay, survivors, outcome)


def kills_in_every_stage(corpus: Path, dist: Path, per_stage: int, seed: int,
                         *extra: str, spread: float = 0.4) -> list[StageKill]:
    """``per_stage`` kills in each of :data:`STAGES`, each at a random moment up to
    ``spread`` seconds into the stage."""
    rng = random.Random(seed)
    kills = []
    for stage in STAGES:
        for _ in range(per_stage):
            kills.append(kill_in_stage(corpus, dist, stage, rng.uniform(0.0, spread),
                                       verify_dist(dist), *extra))
    return kills


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
