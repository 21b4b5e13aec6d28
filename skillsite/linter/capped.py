"""Read a file up to a size cap, without paying for the cap."""
from __future__ import annotations

import os


def read_capped(path: str | os.PathLike[str], cap: int) -> bytes:
    """The file's bytes, or its first ``cap + 1`` when it is larger (enough to tell that
    it is too large). Raises :class:`OSError` as :func:`open` does.

    ``handle.read(cap + 1)`` would do, but CPython allocates the whole ``cap + 1`` buffer
    before reading: for a 1 MiB cap that is an ``mmap`` and page faults per file, three
    times the cost of reading a small skill file. So the first read asks for the size the
    file says it has (plus one byte, to see it grow), and only a file that is longer than
    it said (it grew, or reports no size, as in ``/proc``) is read on to the cap.
    """
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        raw = handle.read(min(size, cap) + 1)
        if len(raw) > size and len(raw) <= cap:
            raw += handle.read(cap + 1 - len(raw))
        return raw
