"""Running skillsite on a hostile corpus, as CI or a maintainer would: the CLI in a
subprocess, from inside the checkout, with a time limit (a blocked read fails the test)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def skillsite(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``skillsite ARGS`` run from ``cwd``. ``-P`` keeps ``cwd`` off ``sys.path``, as the
    installed ``skillsite`` command does (``python -m`` alone would import a ``click.py``
    lying in the checkout; SECURITY.md says so)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.run([sys.executable, "-P", "-m", "skillsite", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def every_byte(folder: Path) -> bytes:
    """Everything under ``folder``, for a search of leaked text in artifacts."""
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
                    and not p.is_symlink())
