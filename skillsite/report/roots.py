"""Where a report's paths are rooted: the repository the checked files are in.

``skillsite check`` writes each problem's path relative to the directory it ran in (or
absolute, outside it). GitHub places annotations and code-scanning results by paths
relative to the repository root, whatever directory the step ran in, so the formats
GitHub reads restate each path against :func:`repository_root`.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def repository_root(base: Path, environ: Mapping[str, str]) -> Path:
    """The root of the repository that holds ``base`` (absolute): ``GITHUB_WORKSPACE``
    when it is set and holds ``base``, else the nearest folder above ``base`` with a
    ``.git`` (a folder, or the file of a worktree or submodule, as ``git rev-parse
    --show-toplevel`` finds it, without running git), else ``base`` itself."""
    workspace = environ.get("GITHUB_WORKSPACE", "")
    if workspace and os.path.isabs(workspace):
        root = Path(os.path.realpath(workspace))
        if inside(base, root):
            return root
    for folder in (base, *base.parents):
        if os.path.lexists(folder / ".git"):
            return folder
    return base


def inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def from_root(path: str, base: Path, root: Path) -> str | None:
    """``path`` (relative to ``base``, or absolute) relative to ``root`` with ``/``
    separators; None when it is not under ``root``."""
    absolute = Path(os.path.normpath(os.path.join(base, path)))
    if absolute == root or not inside(absolute, root):
        return None
    return absolute.relative_to(root).as_posix()

