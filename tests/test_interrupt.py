"""A stopped build never blocks the next one: SIGTERM and SIGINT unwind it cleanly, and
after SIGKILL none of its processes lives on holding the lock."""
from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from skillsite.builder.dist import BuildLock, BuildLocked

BENCH = Path(__file__).parent.parent / "bench"
sys.path.insert(0, str(BENCH))
from generate import generate  # noqa: E402


def _children(pid: int) -> list[int]:
    """Every process whose parent is ``pid`` (Linux ``/proc``)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _wait_for_children(process: subprocess.Popen[str], timeout: float = 120) -> list[int]:
    deadline = time.monotonic() + timeout
    while process.poll() is None and time.monotonic() < deadline:
        children = _children(process.pid)
        if children:
            return children
        time.sleep(0.02)
    return []


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _build(corpus: Path, dist: Path, *extra: str) -> subprocess.Popen[str]:
    # Without the site, so that the signals below fall while its workers run.
    return subprocess.Popen([sys.executable, "-m", "skillsite", "build", str(corpus), "-o",
                             str(dist), "--jobs", "2", "-q", "--no-site", *extra],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, float]:
    """A 10k-skill corpus, its dist/, and how long a clean build of it took."""
    top = tmp_path_factory.mktemp("interrupt")
    generate(top / "corpus", 10_000, seed=3)
    started = time.monotonic()
    assert _build(top / "corpus", top / "dist", "--clean").wait() == 0
    return top / "corpus", top / "dist", time.monotonic() - started


def _manifest_checks(dist: Path) -> bool:
    import hashlib
    import json

    files = json.loads((dist / "manifest.json").read_text())["files"]
    return all(hashlib.sha256((dist / name).read_bytes()).hexdigest() == digest
               for name, digest in files.items())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize(("signum", "delay"), [
    (signal.SIGTERM, 0.3), (signal.SIGTERM, 0.7), (signal.SIGINT, 0.5),
    (signal.SIGKILL, 0.3), (signal.SIGKILL, 0.7),
])
def test_a_stopped_build_leaves_nothing_behind(big: tuple[Path, Path, float], signum: int,
                                               delay: float) -> None:
    corpus, dist, seconds = big
    before = (dist / "manifest.json").read_bytes()
    process = _build(corpus, dist, "--clean")
    # Wait for the workers rather than for a share of a measured build time: how long the
    # phases before them take depends on the machine's load.
    children = _wait_for_children(process)
    assert children, "no worker processes to watch"
    time.sleep(delay)  # seconds into the parsing phase, which lasts several at 10k skills
    assert process.poll() is None, "the build finished before it could be stopped"
    process.send_signal(signum)
    _, stderr = process.communicate(timeout=30)
    if signum == signal.SIGKILL:
        assert process.returncode == -signal.SIGKILL
    else:
        assert process.returncode == 128 + signum
        assert f"build stopped by {signal.Signals(signum).name}" in stderr
        assert "Traceback" not in stderr
        assert not list(dist.parent.glob(".dist.tmp-*")), "the temporary folder is left"
    deadline = time.monotonic() + 3
    while any(map(_running, children)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [pid for pid in children if _running(pid)] == []
    assert (dist / "manifest.json").read_bytes() == before
    assert _manifest_checks(dist)
    started = time.monotonic()
    again = _build(corpus, dist)
    _, stderr = again.communicate(timeout=120)
    assert again.returncode == 0, stderr
    assert "another skillsite build" not in stderr
    assert time.monotonic() - started < seconds, "the next build did not start at once"


def test_a_forked_child_does_not_keep_the_lock(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    started, ready = os.pipe()
    with BuildLock(dist):
        child = os.fork()
        if child == 0:  # holds whatever it inherited until killed
            os.write(ready, b"x")  # fork has returned here: the at-fork hooks have run
            time.sleep(30)
            os._exit(0)
        os.read(started, 1)
    try:
        with BuildLock(dist):  # the parent released it; the child must not hold it
            pass
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)


def test_a_lock_whose_holder_is_dead_is_reported_as_stale(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    lock = tmp_path / ".dist.lock"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    lock.write_text(f"pid {dead.pid}")
    # A process that is not the recorded holder keeps the file locked, as an orphaned
    # worker of an older skillsite would.
    keeper = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, sys, time; f = open(sys.argv[1], 'a+'); "
        "fcntl.flock(f, fcntl.LOCK_EX); print('ok', flush=True); time.sleep(30)"), str(lock)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert keeper.stdout is not None and keeper.stdout.readline().strip() == "ok"
        with pytest.raises(BuildLocked) as caught, BuildLock(dist):
            pass
        message = str(caught.value.message)
        assert "stale" in message and str(dead.pid) in message
        assert f"kill {keeper.pid}" in message
    finally:
        keeper.kill()
        keeper.wait()
    with BuildLock(dist):  # once the keeper is gone, the lock is free again
        assert fcntl is not None


def _pagefind_runs(pid: int) -> set[int]:
    """The Pagefind processes that ``pid`` runs now."""
    found = set()
    for child in _children(pid):
        try:
            if b"pagefind" in Path(f"/proc/{child}/cmdline").read_bytes() and _running(child):
                found.add(child)
        except OSError:
            continue
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_sigterm_in_the_site_stage_starts_no_more_pagefind(tmp_path: Path) -> None:
    """The site's side threads (one Pagefind run per search bundle, the discovery
    artifacts) stop with the build instead of running to their end: no Pagefind run
    starts after SIGTERM, the one running is killed, and dist/ stays as it was."""
    corpus, dist = tmp_path / "corpus", tmp_path / "dist"
    generate(corpus, 400, seed=5)
    command = [sys.executable, "-m", "skillsite", "build", str(corpus), "-o", str(dist),
               "--jobs", "2", "-q"]
    first = subprocess.run(command, capture_output=True, text=True, check=False)
    assert first.returncode == 0, first.stderr
    before = (dist / "manifest.json").read_bytes()
    process = subprocess.Popen([*command, "--clean"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    running: set[int] = set()
    while not running and process.poll() is None and time.monotonic() < deadline:
        running = _pagefind_runs(process.pid)
        time.sleep(0.005)
    assert running, "the build ran no Pagefind to watch"
    process.send_signal(signal.SIGTERM)
    started_after: set[int] = set()
    while process.poll() is None and time.monotonic() < deadline:
        started_after |= _pagefind_runs(process.pid) - running
        time.sleep(0.005)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGTERM, stderr
    assert "build stopped by SIGTERM" in stderr and "Traceback" not in stderr
    assert started_after == set(), "Pagefind ran again after SIGTERM"
    assert not any(map(_running, running)), "the Pagefind run was left running"
    assert not list(tmp_path.glob(".dist.tmp-*"))
    assert (dist / "manifest.json").read_bytes() == before
    assert _manifest_checks(dist)
