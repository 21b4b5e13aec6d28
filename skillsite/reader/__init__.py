"""The runtime reader: search, recommend, open, read, related, compose, context and prompt
from ``dist/`` alone.

Example::

    from skillsite.reader import Library

    library = Library("dist")
    hits = library.search("fill a pdf form", limit=5)
    outline = library.open(hits.results[0].ref)
    passage = library.read(outline.ref, section=outline.headings[1].heading)

Every result is a frozen dataclass with ``to_dict()`` (the JSON shapes are documented in
``docs/reader.md``); every error is a :class:`ReaderError` with a stable ``code``.
This package never imports the linter, the builder, yaml or jsonschema.
"""
from __future__ import annotations

from skillsite.reader.budget import Budget
from skillsite.reader.errors import ReaderError
from skillsite.reader.library import Library
from skillsite.reader.safe import SafePolicy

__all__ = ["Budget", "Library", "ReaderError", "SafePolicy"]
