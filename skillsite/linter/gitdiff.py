"""Which files changed since a git ref, for ``check --changed-since``."""
from __future__ import annotations

import subprocess
from pathlib import Path

from skillsite.errors import ConfigError


def _git(args: list[str], cwd: Path) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                              check=False, timeout=60)
    except FileNotFoundError:
        raise ConfigError("--changed-since needs git, which is not installed") from None
    if done.returncode != 0:
        raise ConfigError(f"--changed-since: git {' '.join(args)} failed: "
                          f"{done.stderr.strip() or done.stdout.strip()}")
    return done.stdout


def _is_commit(ref: str, cwd: Path) -> bool:
    done = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
                          cwd=cwd, capture_output=True, text=True, check=False, timeout=60)
    return done.returncode == 0


def changed_files(ref: str, cwd: Path) -> set[Path]:
    """Absolute paths changed between ``ref`` and the working tree, untracked files included."""
    top = Path(_git(["rev-parse", "--show-toplevel"], cwd).strip())
    if not _is_commit(ref, cwd):
        raise ConfigError(f"--changed-since: unknown git ref {ref!r} in {top}; pass a branch, "
                          "tag or commit (example: --changed-since origin/main); a shallow "
                          "clone may need `git fetch` first")
    names = _git(["diff", "--name-only", "-z", ref, "--"], top).split("\0")
    names += _git(["ls-files", "--others", "--exclude-standard", "-z"], top).split("\0")
    return {(top / name).absolute() for name in names if name}
