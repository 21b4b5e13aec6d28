"""The previous dist/ is deleted by one detached process (``builder.dist._discard``): a
build that finds it still being deleted leaves it to that process instead of starting a
second deleter on the same files, and deletes what a killed deleter left."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from skillsite.builder.dist import temp_dir


def _stale_dist(parent: Path) -> Path:
    stale = parent / ".dist.old-999999"
    for n in range(20):
        (stale / f"skill-{n}").mkdir(parents=True)
        (stale / f"skill-{n}" / "SKILL.md").write_text("---\nname: x\n---\n")
    return stale


def test_a_folder_another_deleter_is_at_work_on_is_left_to_it(tmp_path: Path) -> None:
    stale = _stale_dist(tmp_path)
    # Stands in for an earlier build's deleter: a live process with the folder's path as
    # an argument, which deletes nothing.
    deleter = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)",
                                os.path.abspath(stale)])
    try:
        time.sleep(0.2)
        work = temp_dir(tmp_path / "dist")
        time.sleep(1.0)  # a second deleter would have removed 40 small files by now
        assert stale.is_dir() and len(list(stale.iterdir())) == 20
        assert work.is_dir()
    finally:
        deleter.kill()
        deleter.wait()
    temp_dir(tmp_path / "dist")  # no deleter left at work: this build starts one
    deadline = time.monotonic() + 60
    while stale.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not stale.exists()
