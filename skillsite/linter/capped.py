"""Read a file up to a size cap, without paying for the cap."""
from __future__ import annotations

import errno
import os
import stat

#: Windows would translate line ends without it; elsewhere it does not exist.
_BINARY = getattr(os, "O_BINARY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def read_capped(path: str | os.PathLike[str], cap: int) -> bytes:
    """The file's bytes, or its first ``cap + 1`` when it is larger (enough to tell that
    it is too large). Raises :class:`OSError` as :func:`open` does.

    ``handle.read(cap + 1)`` would do, but CPython allocates the whole ``cap + 1`` buffer
    before reading: for a 1 MiB cap that is an ``mmap`` and page faults per file, three
    times the cost of reading a small skill file. So the first read asks for the size the
    file says it has, plus one byte to see it grow; only a file longer than it said (it
    grew, or reports no size, as in ``/proc``) is read on to the cap. Plain descriptors
    rather than :func:`open`: a skill file is read once, whole, so a buffered file object
    is only overhead (about half the cost of reading a small file).

    The file is opened without blocking and refused unless it is a regular file: a FIFO
    put where a file was listed (or swapped in after the listing) would otherwise block
    the read for ever, and a device could be read without end.
    """
    fd = os.open(path, os.O_RDONLY | _BINARY | _NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        size = info.st_size
        if size <= cap:
            first = os.read(fd, size + 1)
            if len(first) == size or not first:
                return first  # the usual case: as long as it said, in one read
            parts, got = [first], len(first)
            want = size + 1 if got < size else cap + 1  # shorter than it said, or longer
        else:
            parts, got, want = [], 0, cap + 1
        while got <= cap:
            chunk = os.read(fd, want - got)
            if not chunk:
                break  # the end of the file
            parts.append(chunk)
            got += len(chunk)
            if got >= want:
                want = cap + 1  # longer than it said: read on, up to the cap
            elif got == size:
                break  # a regular file as long as it said: its end, without one more read
        return b"".join(parts)
    finally:
        os.close(fd)
