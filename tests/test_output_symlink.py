"""Issue #20, item 17: ``-o`` through a symlink builds into the link's target, keeps the
link, leaves nothing behind, and shares the target's lock."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from skillsite.builder.dist import BuildLock

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


def _build(out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-P", "-m", "skillsite", "build", str(CORPUS),
                           "-o", str(out), "--no-site"], capture_output=True, text=True,
                          timeout=300)


def _gone(leftovers: Callable[[], list[Path]], seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    while leftovers():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_a_symlinked_output_is_built_into_its_target(tmp_path: Path) -> None:
    real = tmp_path / "real-dist"
    link = tmp_path / "dist"
    assert _build(real).returncode == 0
    (real / "from-the-first-build").write_text("replaced by the next build\n")
    os.symlink(real.name, link)
    done = _build(link)
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and os.readlink(link) == real.name
    assert not (real / "from-the-first-build").exists()   # the new build is in the target
    assert (real / "manifest.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == [
        "dist", "real-dist"]
    assert not [p for p in tmp_path.iterdir() if ".tmp" in p.name]
    # The previous dist is deleted by a detached process (builder.dist._discard), so the
    # build does not wait for it: give that process its time.
    assert _gone(lambda: [p for p in tmp_path.iterdir() if ".old-" in p.name])


def test_builds_through_the_link_and_the_target_share_one_lock(tmp_path: Path) -> None:
    real = tmp_path / "real-dist"
    link = tmp_path / "dist"
    assert _build(real).returncode == 0
    os.symlink(real.name, link)
    with BuildLock(real):
        done = _build(link)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert "another skillsite build" in done.stderr, done.stderr
    assert link.is_symlink()
