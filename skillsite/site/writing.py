"""Writing files of a build in progress: never through a hard link to the previous build,
and not at all when the bytes are the same (so mkdocs --dirty leaves the page alone)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterable
from contextlib import suppress
from itertools import islice
from pathlib import Path

from skillsite.site.journal import journal_of


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
    """Replace ``path`` with a new file (a new inode: hard links elsewhere keep the old;
    in the previous site moved into the build, the old is kept in its journal)."""
    journal = journal_of(path)
    if journal is not None:
        temporary = journal.scratch()
        with open(temporary, "wb") as out:
            out.write(data)
        journal.replace(temporary, str(path))
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = str(path.with_name(f".{path.name}.tmp-{os.getpid()}"))
    with open(temporary, "wb") as out:
        out.write(data)
    os.replace(temporary, path)


def move_into(source: Path, target: Path) -> None:
    """``os.replace(source, target)``, making ``target``'s folders (through the journal of
    the previous site moved into the build, where ``target`` is in it)."""
    journal = journal_of(target)
    if journal is not None:
        journal.replace(str(source), str(target))
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(source, target)


def remove(path: Path) -> None:
    """Remove the file or folder ``path`` if it is there (into the journal of the previous
    site moved into the build, where ``path`` is in it)."""
    journal = journal_of(path)
    if journal is not None:
        journal.remove(str(path))
    elif path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


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


#: Writes the files marshalled on its standard input (lists of (path, bytes) pairs, one
#: after another), making their folders; a failure ends it with a traceback.
_WRITER = (
    "import marshal, os, sys\n"
    "source, made = sys.stdin.buffer, set()\n"
    "while True:\n"
    "    try:\n"
    "        batch = marshal.load(source)\n"
    "    except EOFError:\n"
    "        break\n"
    "    for path, data in batch:\n"
    "        folder = os.path.dirname(path)\n"
    "        if folder not in made:\n"
    "            os.makedirs(folder, exist_ok=True)\n"
    "            made.add(folder)\n"
    "        with open(path, 'wb') as out:\n"
    "            out.write(data)\n")
#: Below this many files, they are written in this process; files sent to the writer at
#: a time.
APART_FROM, WRITER_BATCH = 500, 2000


def write_files(files: Iterable[tuple[str, bytes]]) -> None:
    """Write new files (path -> bytes, each path new: nothing is linked there), making
    their folders. Many small files (the search stubs of a bundle: 12k at 100k skills)
    are written by a child process: a folder and a file each, then their removal, held
    the interpreter lock a few seconds in all beside the build's main thread."""
    from skillsite.linter.children import dies_with_parent

    files = iter(files)
    first = list(islice(files, APART_FROM))
    if len(first) < APART_FROM:
        _write_here(first)
        return
    try:
        child = subprocess.Popen([sys.executable, "-I", "-S", "-c", _WRITER],
                                 stdin=subprocess.PIPE, stderr=subprocess.PIPE,
                                 preexec_fn=dies_with_parent())  # noqa: PLW1509 (no locks taken)
    except OSError:
        _write_here(first)
        _write_here(files)
        return
    import marshal

    assert child.stdin is not None and child.stderr is not None
    try:
        batch = first
        while batch:
            child.stdin.write(marshal.dumps(batch))
            batch = list(islice(files, WRITER_BATCH))
        child.stdin.close()
    except BrokenPipeError:  # the child failed: its error says why
        pass
    error = child.stderr.read().decode("utf-8", "replace").strip().splitlines()
    child.stderr.close()
    if child.wait() != 0:
        raise OSError(f"writing files failed: {error[-1] if error else child.returncode}")


def _write_here(files: Iterable[tuple[str, bytes]]) -> None:
    for path, data in files:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as out:
            out.write(data)


def remove_tree(folder: Path) -> None:
    """``shutil.rmtree(folder, ignore_errors=True)``, by ``rm -rf`` where there is one:
    Python's own walk holds the interpreter lock for most of its time (5.8 s for the 25k
    entries of a search bundle's stubs, beside the build's main thread)."""
    if not os.path.lexists(folder):
        return
    if shutil.which("rm"):
        with suppress(OSError):
            subprocess.run(["rm", "-rf", "--", str(folder)], stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    shutil.rmtree(folder, ignore_errors=True)
