"""What a long-lived reader keeps between queries: hits, listings and ranking records."""
from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
#: At most this many characters of each kind kept, whatever the skills' sizes.
CHARS_KEPT = 32_000_000


class Kept(dict[str, T]):
    """What a long-lived reader keeps between queries (``dist/`` never changes under it):
    emptied when it would pass ``count`` entries or :data:`CHARS_KEPT` characters."""

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count
        self.chars = 0

    def split(self, names: list[str]) -> tuple[dict[str, T], list[str]]:
        """The entries kept for ``names``, and the names that have none."""
        found = {}
        for name in names:  # get, not `in` then [], since another thread may empty it
            value = self.get(name)
            if value is not None:
                found[name] = value
        return found, [name for name in names if name not in found]

    def keep(self, entries: dict[str, T], chars: int) -> None:
        if len(self) + len(entries) > self.count or self.chars + chars > CHARS_KEPT:
            self.clear()
            self.chars = 0
        self.update(entries)
        self.chars += chars


def kept_or_read(kept: Kept[T], names: list[str],
                  read: Callable[[list[str]], dict[str, tuple[T, int]]]) -> dict[str, T]:
    """The entries of ``names`` in ``kept``, and those ``read`` (each with its size in
    characters) for the rest, kept from now on."""
    found, missing = kept.split(names)
    if missing:
        fresh = read(missing)
        kept.keep({name: entry for name, (entry, _) in fresh.items()},
                  sum(chars for _, chars in fresh.values()))
        found.update((name, entry) for name, (entry, _) in fresh.items())
    return found
