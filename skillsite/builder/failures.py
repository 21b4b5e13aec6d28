"""A build that cannot read or write a file stops with one clear line, never a traceback.

The failure is raised before the swap, so ``dist/`` is still the previous build. The
storage engines report the same kernel errors in their own words: SQLite as "database or
disk is full" or "disk I/O error", tantivy as "An IO error occurred: ... (os error 28)".
"""
from __future__ import annotations

import errno
import os
import re
import sqlite3
from pathlib import Path

from skillsite.errors import EXIT_PROBLEMS, SkillsiteError

_OS_ERROR = re.compile(r"os error (\d+)")
_HINTS = {
    errno.ENOSPC: "Free some disk space, or build elsewhere with -o",
    errno.EFBIG: "The file-size limit (ulimit -f) was reached; raise it, or build elsewhere "
                 "with -o",
    errno.EDQUOT: "The disk quota is used up; free some space, or build elsewhere with -o",
    errno.ENOENT: "A file was removed while the build ran; run the build again",
    errno.EACCES: "Check the permissions of the corpus and of the output folder",
    errno.EROFS: "The output folder is read-only; build elsewhere with -o",
}


class BuildIOError(SkillsiteError):
    """Reading the corpus or writing ``dist/`` failed; ``dist/`` was left as it was."""

    exit_code = EXIT_PROBLEMS


def io_failure(exc: BaseException, out: Path) -> BuildIOError | None:
    """The user-facing error for ``exc`` if it is a read or write failure, else None."""
    if isinstance(exc, OSError):
        code, what = exc.errno, exc.strerror or str(exc)
        where = os.fsdecode(exc.filename) if exc.filename else "a file"
    elif isinstance(exc, sqlite3.Error) and re.search(r"disk|full|I/O|readonly", str(exc)):
        code, what, where = (errno.ENOSPC if "full" in str(exc) else None), str(exc), \
            "the content store"
    elif isinstance(exc, ValueError) and (found := _OS_ERROR.search(str(exc))):
        code = int(found.group(1))
        what, where = os.strerror(code), "the search index"
    else:
        return None
    hint = _HINTS.get(code or 0, "Check the disk and the permissions, then build again")
    return BuildIOError(f"build stopped: {what} ({where}); {out} was not changed. {hint}")
