"""Retrieval counters: how many calls of each operation one client made, and how many
characters of skill text (bodies, sections, files, templates) it was served.

``context`` reports them (``retrieval``). They hold counts only: never a query, a ref, an
argument or any text served, so nothing a client sent or read can leak through them."""
from __future__ import annotations

import threading


class Retrieval:
    """The counters of one client (the MCP server keeps one per session)."""

    def __init__(self) -> None:
        self.calls: dict[str, int] = {}
        self.chars_served = 0
        self._lock = threading.Lock()

    def count(self, operation: str) -> None:
        with self._lock:
            self.calls[operation] = self.calls.get(operation, 0) + 1

    def served(self, chars: int) -> None:
        with self._lock:
            self.chars_served += chars

    def to_dict(self) -> dict[str, object]:
        with self._lock:
            return {"calls": dict(sorted(self.calls.items())), "chars_served": self.chars_served}
