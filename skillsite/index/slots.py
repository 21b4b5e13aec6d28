"""``index/names.bin``: the skill name of each *slot*, so that a search names its hits without
reading tantivy's document store.

Every document the tantivy writer adds gets the next slot, a number kept in a fast field,
and this file lists the names by slot. A search reads the slots of its 30 hits in one call
(``fast_field_values``); fetching each stored name instead decompressed a 16 kB block of the
document store, about 7 µs a hit. An incremental build appends the names of the skills it
adds. The slot of a deleted document is never reused, so its name stays until a clean build.

Format: ``SKNM``, the count of names (u32), count + 1 offsets (u32) into the UTF-8 names that
follow, all little-endian. The reader maps the file and decodes only the names it meets.
"""
from __future__ import annotations

import mmap
import os
import struct
import sys
from array import array
from pathlib import Path

from skillsite.index.base import SearchIndexError

NAMES_FILE = "names.bin"
SLOT_FIELD = "slot"
MAGIC = b"SKNM"
_HEAD = struct.Struct("<4sI")


def write_names(path: Path, names: list[str]) -> None:
    """Write ``names`` (by slot) to ``path`` as a new file: the previous ``dist/`` may hold
    a hard link to the old one."""
    _write_table(path, array("I", [0]), b"", names)


def append_names(path: Path, names: list[str]) -> None:
    """Write the names of the file at ``path`` followed by ``names`` to ``path`` as a new
    file (see :func:`write_names`), without decoding the names already there."""
    table = NameTable(path)
    try:
        before = bytes(table._map[table._start:])
        offsets = array("I", table._offsets)  # in this machine's byte order
    finally:
        table.close()
    _write_table(path, offsets, before, names)


def _write_table(path: Path, offsets: array[int], before: bytes, names: list[str]) -> None:
    """Write a names file: the names whose ``offsets`` (this machine's byte order, ending
    with the end of ``before``) and encoded bytes ``before`` are given, then ``names``."""
    encoded = [name.encode("utf-8") for name in names]
    for name in encoded:
        offsets.append(offsets[-1] + len(name))
    if sys.byteorder == "big":
        offsets.byteswap()
    partial = path.with_suffix(".tmp")
    with open(partial, "wb") as out:
        out.write(_HEAD.pack(MAGIC, len(offsets) - 1))
        out.write(offsets.tobytes())
        out.write(before)
        out.write(b"".join(encoded))
    os.replace(partial, path)


def slot_count(path: Path) -> int:
    """How many names the file at ``path`` holds."""
    table = NameTable(path)
    table.close()
    count: int = table.count
    return count


def read_names(path: Path) -> list[str]:
    """Every name of the file at ``path``, by slot (for a writer that appends to it)."""
    table = NameTable(path)
    try:
        return [table.name(slot) for slot in range(table.count)]
    finally:
        table.close()


class NameTable:
    """The names file of an index, mapped; raises SearchIndexError when it is damaged."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            with open(path, "rb") as file:
                self._map = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError) as error:  # ValueError: an empty file
            raise SearchIndexError(f"{path} cannot be read: {error}") from None
        size = len(self._map)
        magic, self.count = _HEAD.unpack_from(self._map) if size >= _HEAD.size else (b"", 0)
        self._start = _HEAD.size + 4 * (self.count + 1)
        if magic != MAGIC or size < self._start:
            raise SearchIndexError(f"{path} is not a names file of this version")
        self._offsets = array("I", self._map[_HEAD.size:self._start])
        if sys.byteorder == "big":
            self._offsets.byteswap()
        if self._offsets[-1] != size - self._start:
            raise SearchIndexError(f"{path} is damaged: its names end at the wrong place")

    def name(self, slot: int) -> str:
        if not 0 <= slot < self.count:
            raise SearchIndexError(f"{self.path} has no name for slot {slot}")
        start, end = self._offsets[slot], self._offsets[slot + 1]
        try:
            return self._map[self._start + start:self._start + end].decode("utf-8")
        except UnicodeDecodeError:
            raise SearchIndexError(f"{self.path} is damaged at slot {slot}") from None

    def close(self) -> None:
        self._map.close()
