"""Writing files of a build in progress: never through a hard link to the previous build,
and not at all when the bytes are the same (so mkdocs --dirty leaves the page alone)."""
from __future__ import annotations

import os
from pathlib import Path


def write_if_changed(path: Path, content: str | bytes) -> bool:
    """Write ``content`` to ``path`` unless it already holds it; True if written."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    try:
        if path.stat().st_size == len(data) and path.read_bytes() == data:
            return False
    except OSError:
        pass
    write_new(path, data)
    return True


def write_new(path: Path, data: bytes) -> None:
    """Replace ``path`` with a new file (a new inode: hard links elsewhere keep the old)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def link_tree(source: Path, target: Path, skip: tuple[str, ...] = ()) -> None:
    """``target`` as a tree of hard links to the files of ``source`` (copies where the
    file system refuses links), but for the top-level entries named in ``skip``.

    GNU ``cp -rl`` does it in C, outside this process: Python's own loop over 40k files
    holds the interpreter lock for about a third of its time, which the build's main
    thread needs (2.8 s against 7.4 s for a 10k site here). Where ``cp`` is missing or
    fails, the loop here does it (or finishes it)."""
    import subprocess

    target.mkdir(parents=True, exist_ok=True)
    entries = sorted(str(source / name) for name in os.listdir(source) if name not in skip)
    if entries:
        try:
            done = subprocess.run(["cp", "-rl", "--", *entries, str(target)],
                                  capture_output=True, check=False)
            if done.returncode == 0:
                return
        except OSError:
            pass
    _link_tree(source, target, skip)


def _link_tree(source: Path, target: Path, skip: tuple[str, ...]) -> None:
    """The same in Python; folders are made plain (shutil.copytree also copies each
    folder's times, modes and extended attributes, a third of its cost on 10k folders)."""
    import shutil

    for folder, dirs, names in os.walk(source):
        relative = os.path.relpath(folder, source)
        if relative == "." and skip:
            dirs[:] = [d for d in dirs if d not in skip]
            names = [n for n in names if n not in skip]
        into = target if relative == "." else target / relative
        into.mkdir(parents=True, exist_ok=True)
        for name in names:
            src, dst = os.path.join(folder, name), os.path.join(into, name)
            try:
                os.link(src, dst)
            except FileExistsError:
                os.unlink(dst)
                os.link(src, dst)
            except OSError:
                shutil.copy2(src, dst)
