"""Faults during a real ``skillsite build`` (a subprocess of the CLI): a SIGKILL at random
points, a full disk, a file-size limit, an unreadable file, a file deleted mid-build.

After each, the previous ``dist/`` is whole (every checksum matches) and the failure, if
any, is one clear line with exit code 1 or 2, never a traceback. ``bench/bench_faults.py``
runs the same faults at a larger scale and prints the outcomes.
"""
from __future__ import annotations

import gzip
import os
import random
import shutil
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from faults import (  # noqa: E402
    STAGES,
    classify,
    file_size_limit,
    kill_in_stage,
    kills_in_every_stage,
    leftovers,
    mount_tmpfs,
    random_kills,
    run_build,
    unmount,
    verify_dist,
    without_dac_override,
)
from generate import generate  # noqa: E402

import skillsite  # noqa: E402

SKILLS = 400  # enough for --jobs 2 to start workers (300 files or more)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("faults") / "corpus"
    generate(root, SKILLS, seed=3)
    return root


@pytest.fixture
def built(corpus: Path, tmp_path: Path) -> tuple[Path, Path, str]:
    """A copy of the corpus, a dist/ built from it, and that dist's manifest digest."""
    mine = tmp_path / "corpus"
    shutil.copytree(corpus, mine, symlinks=True)
    dist = tmp_path / "dist"
    done = run_build(mine, dist, "--jobs", "2")
    assert done.returncode == 0, done.stderr
    return mine, dist, verify_dist(dist)


def _edit(corpus: Path, count: int) -> None:
    """Change ``count`` skills so that the next build differs from the previous one."""
    for path in sorted((corpus / "skills").glob("*/SKILL.md"))[:count]:
        path.write_text(path.read_text("utf-8") + "\nEdited.\n", encoding="utf-8")


def _assert_clean(done, *, code: int, says: str) -> None:
    assert done.returncode == code, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert says in done.stderr, done.stderr[-2000:]


def test_sigkill_at_random_points_keeps_a_whole_dist(built) -> None:
    corpus, dist, _ = built
    started = time.monotonic()
    done = run_build(corpus, dist, "--jobs", "2", "--clean")
    span = (time.monotonic() - started) * 1.1
    _edit(corpus, 20)
    outcomes = random_kills(corpus, dist, 6, span, 7, "--jobs", "2", "--clean")
    assert done.returncode == 0
    for outcome in outcomes:
        assert outcome.dist in ("old", "new"), outcome
        assert "Traceback" not in outcome.stderr, outcome
    after = run_build(corpus, dist, "--jobs", "2")
    assert after.returncode == 0, after.stderr
    verify_dist(dist)
    assert leftovers(dist) == []


@pytest.mark.parametrize("stage", ["site pages", "site mkdocs", "site finish"])
def test_sigkill_of_the_build_in_the_site_stage_leaves_no_worker(built, stage: str) -> None:
    """Issue #20 item 13: the render and mkdocs pools never asked to die with their
    parent, so SIGKILL of the build alone (not its group) left workers with parent 1."""
    corpus, dist, before = built
    _edit(corpus, 20)
    kill = kill_in_stage(corpus, dist, stage, 0.1, before, "--jobs", "2", "--clean")
    assert kill.killed_in is not None and STAGES.index(kill.killed_in) >= STAGES.index(stage)
    assert kill.survivors == [], kill
    assert kill.outcome.dist == "old", kill
    after = run_build(corpus, dist, "--jobs", "2")
    assert after.returncode == 0, after.stderr
    verify_dist(dist)
    assert leftovers(dist) == []


def test_sigkill_of_an_incremental_site_build_is_undone_by_the_next_build(built) -> None:
    """An incremental build moves the previous site into its own folder and changes it
    through a journal (skillsite/site/journal.py). Killed then, the previous dist/ has no
    site/ (the documented window) until the next build takes the lock: before anything
    else, it puts the site back, and dist/ is the old one, whole, or the new one."""
    from skillsite.builder.dist import BuildLock

    corpus, dist, before = built
    windows = 0
    for count, delay in enumerate((0.0, 0.05, 0.15, 0.4, 1.0), start=1):
        _edit(corpus, count)
        kill = kill_in_stage(corpus, dist, "site finish", delay, before, "--jobs", "2")
        assert kill.survivors == [], kill
        assert kill.outcome.dist in ("old", "new") or not (dist / "site").exists(), kill
        windows += not (dist / "site").exists()
        with BuildLock(dist):  # what the next build does first
            pass
        assert classify(dist, before, None) in ("old", "new"), kill
        assert not list(dist.parent.glob(".dist.journal-*"))
        before = verify_dist(dist)
    assert windows, "no kill fell while the previous site was moved out"
    after = run_build(corpus, dist, "--jobs", "2")
    assert after.returncode == 0, after.stderr
    verify_dist(dist)
    assert leftovers(dist) == []


def test_sigkill_while_mkdocs_runs_in_shards_leaves_no_worker(tmp_path: Path) -> None:
    """A clean build of 1,000 skills or more whose skill pages mkdocs renders (a
    configuration with a hook of its own: stamp.allowed) runs mkdocs in a pool of shard
    processes (skillsite/site/parallel.py); killing the build while they run leaves none
    behind."""
    from skillsite.site.mkdocs_run import PACKAGED_CONFIG
    from skillsite.site.stage import SHARD_FROM

    corpus = tmp_path / "corpus"
    generate(corpus, SHARD_FROM + 50, seed=5)
    (tmp_path / "noop_hook.py").write_text("")
    config = tmp_path / "mkdocs.yml"
    config.write_text(PACKAGED_CONFIG.read_text() + "hooks:\n  - noop_hook.py\n")
    dist = tmp_path / "dist"
    assert run_build(corpus, dist, "--jobs", "2", "--no-site").returncode == 0
    kill = kill_in_stage(corpus, dist, "site mkdocs", 0.3, verify_dist(dist), "--jobs", "2",
                         "--clean", "--mkdocs-config", str(config))
    assert kill.killed_in == "site mkdocs", kill
    assert kill.survivors == [], kill
    assert kill.outcome.dist == "old", kill
    after = run_build(corpus, dist, "--jobs", "2", "--no-site")
    assert after.returncode == 0, after.stderr
    verify_dist(dist)
    assert leftovers(dist) == []


def test_kills_at_random_moments_in_every_stage(built) -> None:
    """Two kills of the build process at random moments of each stage: every one leaves
    dist/ whole (old or new), no process of the build alive, and the next build works."""
    corpus, dist, _ = built
    _edit(corpus, 20)
    kills = kills_in_every_stage(corpus, dist, 2, 11, "--jobs", "2", "--clean")
    assert {kill.stage for kill in kills} == set(STAGES)
    for kill in kills:
        assert kill.outcome.dist in ("old", "new"), kill
        assert kill.survivors == [], kill
        assert "Traceback" not in kill.outcome.stderr, kill
    after = run_build(corpus, dist, "--jobs", "2")
    assert after.returncode == 0, after.stderr
    verify_dist(dist)
    assert leftovers(dist) == []


def test_full_disk_keeps_the_previous_dist(corpus: Path, tmp_path: Path) -> None:
    small = tmp_path / "small"
    if not mount_tmpfs(small, "3m"):
        pytest.skip("mounting a tmpfs needs root (CAP_SYS_ADMIN); the EFBIG test covers it")
    try:
        few = small / "few"
        shutil.copytree(corpus / "wiki", few / "wiki")
        dist = small / "dist"
        # Without the site (its theme alone is a few MB), a few pages fit in the 3 MB.
        assert run_build(few, dist, "--no-site").returncode == 0
        before = verify_dist(dist)
        done = run_build(corpus, dist, "--jobs", "2", "--no-site")  # about 4 MB: too big
        _assert_clean(done, code=1, says="was not changed")
        assert "No space left on device" in done.stderr or "disk is full" in done.stderr
        assert verify_dist(dist) == before
        assert leftovers(dist) == []
    finally:
        unmount(small)


@pytest.mark.parametrize("limit", [1_000, 40_000, 120_000])
def test_file_size_limit_keeps_the_previous_dist(built, limit: int) -> None:
    corpus, dist, before = built
    _edit(corpus, 5)
    done = run_build(corpus, dist, "--jobs", "2", "--clean", preexec=file_size_limit(limit))
    _assert_clean(done, code=1, says="was not changed")
    assert verify_dist(dist) == before
    assert leftovers(dist) == []


def test_unreadable_file_is_reported_and_left_out(built) -> None:
    """chmod 000 means nothing to root, so the build runs without CAP_DAC_OVERRIDE."""
    corpus, dist, before = built
    if os.geteuid() != 0:
        pytest.skip("as a user, chmod 000 applies as is; this test drops root's override")
    victim = sorted((corpus / "skills").glob("*/SKILL.md"))[3]
    victim.chmod(0)  # its size and mtime stay, so only a clean build reads it again
    strict = run_build(corpus, dist, "--jobs", "2", "--strict", "--clean",
                       preexec=without_dac_override)
    _assert_clean(strict, code=1, says="Permission denied")
    assert verify_dist(dist) == before
    done = run_build(corpus, dist, "--jobs", "2", "--clean", preexec=without_dac_override)
    _assert_clean(done, code=0, says=f"{victim.parent.name}/SKILL.md:1:1: error unreadable-file")
    verify_dist(dist)
    assert f"skills/{victim.parent.name}/" not in (dist / "catalog.json").read_text("utf-8")


@pytest.mark.parametrize("fault", ["directory", "dangling symlink", "fifo"])
def test_a_skill_file_that_cannot_be_read_as_root(built, fault: str) -> None:
    corpus, dist, before = built
    victim = sorted((corpus / "skills").glob("*/SKILL.md"))[5]
    victim.unlink()
    if fault == "directory":
        victim.mkdir()
    elif fault == "dangling symlink":
        victim.symlink_to("gone.md")
    else:
        os.mkfifo(victim)
    strict = run_build(corpus, dist, "--jobs", "2", "--strict", timeout=120)
    assert strict.returncode in (0, 1) and "Traceback" not in strict.stderr, strict.stderr
    assert verify_dist(dist) == before or strict.returncode == 0
    done = run_build(corpus, dist, "--jobs", "2", timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    verify_dist(dist)


def test_files_deleted_mid_build(built) -> None:
    """In process, deterministic: the progress callback deletes skills not read yet."""
    corpus, dist, _ = built
    victims = sorted((corpus / "skills").glob("*/SKILL.md"))[-60:]

    def delete_once(done: int, total: int) -> None:
        if victims and done > 0:
            for path in victims:
                shutil.rmtree(path.parent, ignore_errors=True)
            victims.clear()

    try:
        result = skillsite.build(corpus, dist, jobs=1, incremental=False,
                                 progress=delete_once)
    except skillsite.builder.failures.BuildIOError as failure:  # type: ignore[attr-defined]
        assert "was not changed" in str(failure)
    else:
        assert result.included > 0
    verify_dist(dist)
    again = run_build(corpus, dist, "--jobs", "2")
    assert again.returncode == 0, again.stderr
    verify_dist(dist)


def test_files_deleted_at_random_moments(built) -> None:
    """Out of process: a thread deletes skill folders while the CLI builds."""
    corpus, dist, _ = built
    folders = sorted((corpus / "skills").iterdir())[::7]

    def delete() -> None:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
            time.sleep(0.01)

    thread = threading.Thread(target=delete)
    thread.start()
    done = run_build(corpus, dist, "--jobs", "2", "--clean")
    thread.join()
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr[-3000:]
    verify_dist(dist)


@pytest.mark.parametrize("kind", ["fifo", "link-out", "link-loop"])
def test_files_turned_hostile_at_random_moments(built, tmp_path: Path, kind: str) -> None:
    """Issue #20: while the CLI builds (site included), a thread turns skill files and
    supporting files into FIFOs, or symlinks out of the corpus or into themselves. The
    build never hangs, never shows a traceback, never publishes the outside secret, and
    leaves a whole dist/."""
    corpus, dist, _ = built
    secret = tmp_path / "outside-secret.txt"
    secret.write_text("OUTSIDE-SECRET-a9\n")
    targets = sorted((corpus / "skills").glob("*/SKILL.md"))[::11]
    targets += [folder / "notes.md" for folder in sorted((corpus / "skills").iterdir())[3::13]]
    rng = random.Random(kind)
    rng.shuffle(targets)

    def turn(path: Path) -> None:
        try:
            path.unlink(missing_ok=True)
            if kind == "fifo":
                os.mkfifo(path)
            else:
                os.symlink(secret if kind == "link-out" else path, path)
        except OSError:
            pass

    def hostile() -> None:
        time.sleep(rng.uniform(0, 1.5))
        for path in targets:
            turn(path)
            time.sleep(rng.uniform(0, 0.05))

    thread = threading.Thread(target=hostile)
    thread.start()
    done = run_build(corpus, dist, "--jobs", "2", "--clean", timeout=300)
    thread.join()
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr[-3000:]
    verify_dist(dist)
    for path in dist.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            if path.name.endswith(".tar.gz"):
                data = gzip.decompress(data)
            assert b"OUTSIDE-SECRET-a9" not in data, path


def test_another_corpus_into_the_same_dist_is_not_taken_from_the_cache(corpus: Path,
                                                                        tmp_path: Path) -> None:
    """Found by the full-disk test: a dist built from corpus A, then corpus B (a copy with
    the same mtimes and a folder less) built into it, kept A's skills: the build cache's
    stat index describes A's folders, and nothing had changed there."""
    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(corpus / "wiki", a / "wiki")
    shutil.copytree(corpus, b)
    dist = tmp_path / "dist"
    first = skillsite.build(a, dist, jobs=1)
    second = skillsite.build(b, dist, jobs=1)
    assert second.included > first.included
    assert "skills/" in (dist / "catalog.json").read_text("utf-8")


def test_full_disk_in_the_site_stage_says_disk_space(tmp_path: Path) -> None:
    """Issue #20, item 18: the data fits, the site does not: exit 1 with a disk-space
    message (not 2 with "fix the configuration"), and the previous dist/ whole."""
    small = tmp_path / "small"
    if not mount_tmpfs(small, "24m"):
        pytest.skip("mounting a tmpfs needs root (CAP_SYS_ADMIN)")
    try:
        corpus = small / "corpus"
        shutil.copytree(Path(__file__).resolve().parents[1] / "fixtures" / "site" / "corpus",
                        corpus)
        dist = small / "dist"
        assert run_build(corpus, dist, "--no-site").returncode == 0
        before = verify_dist(dist)
        free = os.statvfs(small)
        # Leave room for the data stage (a new content store and index), not for a site.
        filler = free.f_bavail * free.f_frsize - 4 * 1024 * 1024
        with open(small / "filler", "wb") as handle:
            handle.truncate(0)
            for _ in range(filler // (1 << 20)):
                handle.write(b"\0" * (1 << 20))
        done = run_build(corpus, dist)
        _assert_clean(done, code=1, says="was not changed")
        assert "No space left on device" in done.stderr, done.stderr
        assert "Free some disk space" in done.stderr, done.stderr
        assert "fix the configuration" not in done.stderr
        assert verify_dist(dist) == before
    finally:
        unmount(small)
