"""The names of the formats skillsite reads and of Mini-A's risk levels.

Kept apart from :mod:`skillsite.entries` so that the linter, which needs only these
names, never creates the build's dataclasses (about 2 ms of a cold check's start).
"""
from __future__ import annotations

from typing import Literal, get_args

#: The four formats skillsite reads, by the name used in output and in the catalog.
Format = Literal["skill-md", "skill-toml", "skill-json", "virtual"]
FORMATS: tuple[str, ...] = get_args(Format)

#: Mini-A's risk levels, lowest first (``--max-risk``); ongrid's ``class`` maps onto them.
Risk = Literal["low", "medium", "high"]
RISKS: tuple[str, ...] = get_args(Risk)
