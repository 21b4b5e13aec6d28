"""Several libraries in one Library: Mini-A's mounts.

A Library reads one plain ``dist/`` (``Library("dist")``, ``--dist dist``), or several,
each under a name (``Library({"wiki": "dist-wiki", "ops": "dist-ops"})``, ``--dist
wiki=dist-wiki --dist ops=dist-ops``). A named library's refs carry its name as a
mount prefix, ``@<library>/<id>`` (``@wiki/pdf``, ``@ops/telegram:access``), as Mini-A
prefixes wiki refs with their mount (``wiki:@devops/...``, which is accepted too);
a bare ref resolves when exactly one library holds it.

Each library is opened and verified on its own. One that cannot be read (no manifest, an
unsupported version, a file that does not match the manifest) is *refused*: calls that
need it fail with its error, which names it and says to rebuild it, and the others keep
serving. A refused library is tried again once its ``manifest.json`` changes (a rebuild).
"""
from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from skillsite.reader.errors import ReaderError
from skillsite.reader.snapshots import Identity, Snapshot, Snapshots, manifest_identity

#: A library's name: what its refs are prefixed with (``@wiki/...``).
LIBRARY_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
#: ``search(library=ALL)``: every library.
ALL = "*"
MAX_LIBRARIES = 64
R = TypeVar("R")


class Mount:
    """One library: its name ("" for a Library over one plain ``dist/``), its folder, and
    its builds, or the error it is refused with."""

    def __init__(self, name: str, dist: Path, verify: bool, hash_on_read: bool) -> None:
        self.name = name
        self.dist = dist
        self._options = (verify, hash_on_read)
        self.snapshots: Snapshots | None = None
        self.refused: ReaderError | None = None
        self._refused_at: Identity | None = None
        self._lock = threading.Lock()
        self._open()

    def _open(self) -> None:
        identity = manifest_identity(self.dist)
        try:
            self.snapshots = Snapshots(self.dist, *self._options)
            self.refused = None
        except ReaderError as error:
            self.refused, self._refused_at = self._naming(error), identity

    def _naming(self, error: ReaderError) -> ReaderError:
        if not self.name:
            return error
        return ReaderError(error.code, f"library {self.name!r} is refused: {error.message}",
                           **{**error.details, "library": self.name})

    def snapshot(self) -> Snapshot:
        """The build this library holds now; its refusal when it cannot be read (tried
        again when its manifest changed since)."""
        if self.refused is not None and manifest_identity(self.dist) != self._refused_at:
            with self._lock:
                if self.refused is not None and manifest_identity(self.dist) != self._refused_at:
                    self._open()
        if self.snapshots is None:
            assert self.refused is not None
            raise self.refused
        return self.snapshots.fresh()

    def damaged(self, error: ReaderError) -> ReaderError:
        """``error``, met while reading this library, naming it."""
        return self._naming(error) if "library" not in error.details else error


class Mounts:
    """The libraries of one Library, in the order given."""

    def __init__(self, dists: str | os.PathLike[str] | Mapping[str, str | os.PathLike[str]],
                 *, verify: bool, hash_on_read: bool) -> None:
        #: Whether the libraries have names, so that refs carry them (``@wiki/pdf``).
        self.named = isinstance(dists, Mapping)
        if isinstance(dists, Mapping):
            for name in dists:
                check_name(name)
            if not dists or len(dists) > MAX_LIBRARIES:
                raise ValueError(f"give 1 to {MAX_LIBRARIES} libraries")
            folders = {name: Path(path) for name, path in dists.items()}
        else:
            folders = {"": Path(dists)}
        self.mounts = {name: Mount(name, folder, verify, hash_on_read)
                       for name, folder in folders.items()}
        refused = [m.refused for m in self.mounts.values() if m.refused is not None]
        if len(refused) == len(self.mounts):
            raise refused[0] if len(refused) == 1 else ReaderError(
                refused[0].code, "no library can be served: " + "; ".join(
                    e.message for e in refused), libraries=[e.to_dict() for e in refused])
        self._names_cache: tuple[tuple[Identity | None, ...], list[str]] | None = None

    @property
    def names(self) -> list[str]:
        return list(self.mounts)

    def get(self, name: str) -> Mount:
        mount = self.mounts.get(name)
        if mount is None:
            listed = ", ".join(self.mounts) or "none"
            raise ReaderError("not-found", f"no library called {name[:64]!r}; the libraries "
                              f"are {listed}", library=name[:64])
        return mount

    def select(self, library: str | Sequence[str] | None) -> list[str]:
        """The libraries a ``library`` argument names: ``*`` (or None) for all, one name,
        or a list of names."""
        if library is None or library == ALL:
            return self.names
        chosen = [library] if isinstance(library, str) else list(library)
        if not chosen or len(chosen) > MAX_LIBRARIES or not all(
                isinstance(name, str) for name in chosen):
            raise ReaderError("invalid-argument", "library is '*', a library's name or a "
                              f"list of 1 to {MAX_LIBRARIES} names")
        if ALL in chosen:
            return self.names
        if not self.named:
            raise ReaderError("invalid-argument", "choosing a library (--library) needs "
                              "named libraries, --dist NAME=PATH; this serves one dist/ "
                              "without a library name: pass no library (or '*'), or "
                              "serve it as --dist NAME=PATH")
        unknown = [name for name in chosen if name not in self.mounts]
        if unknown:
            raise ReaderError("invalid-argument", f"no library called {unknown[0][:64]!r}; "
                              f"the libraries are {', '.join(self.mounts)} (or '*' for all)")
        return list(dict.fromkeys(chosen))

    def split(self, ref: str) -> tuple[str | None, str]:
        """(library, id in it) of a mount-prefixed ref (``@wiki/pdf``), or (None, ref)."""
        if not self.named:
            return None, ref
        text = ref[len("wiki:"):] if ref.startswith("wiki:@") else ref
        if not text.startswith("@"):
            return None, ref
        library, slash, rest = text[1:].partition("/")
        if not slash or not rest:
            raise ReaderError("invalid-argument", f"{ref[:200]!r} has a library prefix but "
                              "no skill: write @<library>/<id>, e.g. @wiki/pdf")
        self.get(library)
        return library, rest

    def run(self, operation: Callable[[Call], R]) -> R:
        """``operation`` on one build of each library it reads; run once more, on the new
        builds, when it met a damaged file because a build was swapped in meanwhile
        (:mod:`skillsite.reader.snapshots`)."""
        for attempt in (1, 2):
            call = Call(self)
            try:
                return operation(call)
            except ReaderError as error:
                if attempt == 2 or error.code != "damaged-dist" or not call.swapped():
                    raise
        raise AssertionError("unreachable")

    def all_names(self, call: Call, read: Callable[[str], list[str]]) -> list[str]:
        """Every serving library's ids, prefixed, A-Z (kept until a build changes)."""
        serving = [name for name in self.names if self.mounts[name].refused is None]
        key = tuple(call.snapshot(name).identity for name in serving)
        cached = self._names_cache
        if cached is not None and cached[0] == key:
            return cached[1]
        every = sorted(f"@{name}/{skill}" for name in serving for skill in read(name))
        self._names_cache = (key, every)
        return every


class Call:
    """The builds one call reads: each library's, pinned the first time the call needs it."""

    def __init__(self, mounts: Mounts) -> None:
        self.mounts = mounts
        self.pinned: dict[str, Snapshot] = {}

    def snapshot(self, library: str) -> Snapshot:
        pinned = self.pinned.get(library)
        if pinned is None:
            pinned = self.pinned[library] = self.mounts.get(library).snapshot()
        return pinned

    def swapped(self) -> bool:
        """Whether a build this call read was replaced since it was pinned."""
        return any(manifest_identity(self.mounts.mounts[name].dist) != snapshot.identity
                   for name, snapshot in self.pinned.items())


def check_name(name: object) -> str:
    if not isinstance(name, str) or not LIBRARY_NAME.fullmatch(name):
        raise ReaderError("invalid-argument", f"{str(name)[:80]!r} is not a library name: "
                          "use 1-64 lowercase letters, digits, _ and -, starting with a "
                          "letter or digit (e.g. wiki)")
    return name


def parse_dists(values: Sequence[str]) -> str | dict[str, str]:
    """``--dist`` as given: one plain PATH, or NAME=PATH each (repeatable)."""
    if len(values) == 1 and not _named(values[0]):
        return values[0]
    found: dict[str, str] = {}
    for value in values:
        if not _named(value):
            raise ReaderError("invalid-argument", f"--dist {value[:200]!r}: with several "
                              "libraries, give each as NAME=PATH, e.g. --dist wiki=dist-wiki "
                              "--dist ops=dist-ops")
        name, _, path = value.partition("=")
        if name in found:
            raise ReaderError("invalid-argument", f"--dist names the library {name!r} twice; "
                              "give each library its own name")
        found[name] = path
    return found


def _named(value: str) -> bool:
    name, equals, path = value.partition("=")
    if not equals or not path or not LIBRARY_NAME.fullmatch(name):
        return False
    return not (os.path.isdir(value) and not os.path.isdir(path))
