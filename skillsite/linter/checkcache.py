"""A persistent cache of ``skillsite check``'s per-file results, as ruff keeps one.

A file's problems, trust assessment and corpus record are kept under a key made of
everything they can depend on, and a later check reuses them when the key is the same:

- the run: skillsite's version and the fingerprint of its rules' code, the Python
  version, the whole configuration (profile, select, ignore, severities, size cap...),
  the folder the paths are shown relative to, and the corpus root (and its real path);
- the file's path and format, and the content of every file under its folder (the
  bundled files, scripts, nested folders), hashed;
- the corpus around it: every path in the corpus and what it is (a file, a folder, a
  symlink and its target), since links, orphan files and the skill tree look at what
  exists; the content of plugin and marketplace manifests anywhere, and of every file
  outside all skill folders;
- whether each path outside the corpus root that a link names exists (the check tells a
  link to an existing file from one to nothing, but never reads it);
- the content of the whole corpus, when the check read more than that: a skill whose
  folder holds a symlink, a ``skill.json`` (its entry script may be anywhere), a skill
  whose check read its sibling skills and instruction files (``orphan-file``).

So editing a file re-checks only the skills whose folder holds it (and those that read
their surroundings); adding, removing or renaming a file anywhere, or editing a manifest,
re-checks every skill. The corpus rules (duplicate names, dependencies) and the manifest
checks always run again, over the kept records. ``.git`` folders are not read.

Contents are hashed (BLAKE2b); a hash is reused while the file's size, mtime, ctime and
inode stay the same, unless the file was modified too recently to trust them (see
:func:`skillsite.linter.listings.racy`). A file over the size cap is hashed up to the cap,
which is all the check reads of it. Nothing is followed through a symlink: a symlink is
recorded by its target. The cache is one JSON file per corpus root, working folder and run,
written atomically; one that cannot be read, or is damaged, is ignored and rebuilt. Each
configuration has its own file, and a file unused for 30 days is deleted. Each file is
signed (HMAC-SHA256) with a key kept in the user's own cache folder, never in
``--cache-dir``: a cache file planted in a repository does not verify and is ignored.
"""
from __future__ import annotations

import contextlib
import os
import stat
import sys
import time
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillsite.config import Config
from skillsite.linter.listings import racy
from skillsite.models import Problem, Source
from skillsite.version import __version__

if TYPE_CHECKING:
    from skillsite.linter.checker import FileResult

FORMAT = 1
#: Folders the check never reads, so never hashed (whether one exists is recorded).
SKIPPED = frozenset({".git"})
MANIFESTS = frozenset({"plugin.json", "marketplace.json"})
#: A cache file no check has written for this long is deleted.
KEEP_DAYS = 30
CACHEDIR_TAG = ("Signature: 8a477f597d28d172789f06886806bc55\n"
                "# This file is a cache directory tag created by skillsite.\n"
                "# For information about cache directory tags see https://bford.info/cachedir/\n")
_READ = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(
    os, "O_BINARY", 0)
_CHUNK = 1 << 20


def _digest(*parts: object) -> str:
    import hashlib

    return hashlib.blake2b(repr(parts).encode("utf-8", "surrogatepass"),
                           digest_size=16).hexdigest()


def code_fingerprint(package: Path | None = None) -> str:
    """What identifies the rules' code: the version, and the path (relative to the
    package) and content of every source file of the linter and the schemas (an edited
    checkout is another linter). Not their mtimes: a fresh install or checkout of the
    same code, as each CI run makes, keeps the results cached (about 1 ms for 0.45 MB)."""
    import hashlib

    package = package or Path(__file__).resolve().parent.parent
    sources = []
    for folder in ("linter", "schemas"):
        for dirpath, dirnames, filenames in os.walk(package / folder):
            dirnames.sort()
            sources += [os.path.join(dirpath, name) for name in sorted(filenames)
                        if name.endswith((".py", ".json"))]
    sources += [str(package / name) for name in ("config.py", "models.py", "version.py")]
    digest = hashlib.blake2b(digest_size=16)
    for source in sources:
        with open(source, "rb") as file:
            data = file.read()
        for part in (os.path.relpath(source, package).encode("utf-8", "surrogateescape"),
                     data):
            digest.update(len(part).to_bytes(8, "big"))
            digest.update(part)
    return _digest(__version__, FORMAT, sys.version_info[:2], digest.hexdigest())


@dataclass
class _Tree:
    """One corpus root as it is now: ``kinds[rel]`` is ``d`` (folder), ``f`` (regular
    file), ``l`` (symlink) or ``o`` (anything else); ``hashes`` the files' content
    hashes (None: unreadable), ``links`` the symlinks' targets."""

    root: str
    kinds: dict[str, str] = field(default_factory=dict)
    hashes: dict[str, str | None] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)
    #: rel -> [size, mtime_ns, ctime_ns, inode, hash] for the next run.
    signatures: dict[str, list[Any]] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)

    def describe(self, rel: str) -> tuple[str, str, str | None]:
        kind = self.kinds[rel]
        detail = self.hashes.get(rel) if kind == "f" else self.links.get(rel)
        return rel, kind, detail


def _scan(root: str, previous: dict[str, list[Any]], cap: int, skip: str | None) -> _Tree:
    tree = _Tree(root)
    now = time.time_ns()
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        try:
            with os.scandir(os.path.join(root, rel_dir) if rel_dir else root) as listing:
                entries = list(listing)
        except OSError:
            tree.kinds[rel_dir or "."] = "o"  # unreadable: whatever it held is unknown
            continue
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                tree.kinds[rel] = "o"
                continue
            if stat.S_ISDIR(info.st_mode):
                if entry.path == skip:
                    continue
                tree.kinds[rel] = "d"  # a .git folder counts (it makes a collection)
                if entry.name not in SKIPPED:
                    stack.append(rel)
            elif stat.S_ISLNK(info.st_mode):
                tree.kinds[rel] = "l"
                try:
                    tree.links[rel] = os.readlink(entry.path)
                except OSError:
                    tree.links[rel] = ""
            elif stat.S_ISREG(info.st_mode):
                _add_file(tree, rel, entry.path, info, previous.get(rel), cap, now)
            else:
                tree.kinds[rel] = "o"  # a FIFO or a device is never opened
    tree.order = sorted(tree.kinds)
    return tree


def _add_file(tree: _Tree, rel: str, path: str, info: os.stat_result, known: Any, cap: int,
              now: int) -> None:
    """Record the regular file ``rel``: its hash, reused from ``known`` (its last
    signature) while its size, times and inode are unchanged."""
    tree.kinds[rel] = "f"
    signature = [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino]
    if isinstance(known, list) and len(known) == 5 and known[:4] == signature and isinstance(
            known[4], str):
        content: str | None = known[4]
    else:
        content = _hash(path, cap)
    tree.hashes[rel] = content
    if content is not None and not racy(max(info.st_mtime_ns, info.st_ctime_ns), now):
        tree.signatures[rel] = [*signature, content]


def _hash(path: str, cap: int) -> str | None:
    """The BLAKE2b of the file's first ``cap + 1`` bytes (what the check reads of it)."""
    import hashlib

    digest = hashlib.blake2b(digest_size=16)
    try:
        fd = os.open(path, _READ)
    except OSError:
        return None
    try:
        left = cap + 1
        while left > 0:
            chunk = os.read(fd, min(_CHUNK, left))
            if not chunk:
                break
            digest.update(chunk)
            left -= len(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    return digest.hexdigest()


@dataclass
class _Root:
    """The cache of one corpus root: its file, the tree now, the digests every key of
    the root shares, and the entries read and to write."""

    path: Path
    tree: _Tree
    run_key: str
    shared: str
    everything: str
    entries: dict[str, Any]
    #: The signatures the cache file holds (to tell whether it needs writing again).
    signatures: dict[str, Any]
    fresh: dict[str, Any] = field(default_factory=dict)
    changed: bool = False
    folders: dict[str, tuple[str | None, bool]] = field(default_factory=dict)

    def folder(self, rel_dir: str) -> tuple[str | None, bool]:
        """The digest of everything under ``rel_dir`` ("" the root), and whether that
        holds a symlink; None when a file in it could not be read."""
        known = self.folders.get(rel_dir)
        if known is not None:
            return known
        order = self.tree.order
        if rel_dir:
            prefix = rel_dir + "/"
            inside = order[bisect_left(order, prefix):bisect_left(order, rel_dir + "0")]
        else:
            inside = order
        described = [self.tree.describe(rel) for rel in inside]
        unreadable = any(kind == "f" and detail is None for _, kind, detail in described)
        linked = any(kind == "l" for _, kind, _ in described)
        found = (None if unreadable else _digest(described), linked)
        self.folders[rel_dir] = found
        return found


class CheckCache:
    """The cached results of the check of ``roots``, for one configuration and one
    working folder ``base``."""

    def __init__(self, directory: Path, roots: Iterable[Path], base: Path, config: Config,
                 sources: list[Source]) -> None:
        self.directory = directory
        self.roots: dict[str, _Root] = {}
        self._absolute: dict[Path, str] = {}
        self._key_of_user = _secret()
        if self._key_of_user is None:
            return  # no way to sign: no cache (every file is checked)
        run = _digest(code_fingerprint(), repr(config), str(base))
        folders: dict[str, set[str]] = {}
        for source in sources:
            root = os.path.abspath(source.root)
            rel = os.path.relpath(os.path.abspath(source.path), root).replace(os.sep, "/")
            folders.setdefault(root, set()).add(os.path.dirname(rel))
        for given in roots:
            root = os.path.abspath(given)
            if root in self.roots or not os.path.isdir(root) or os.path.islink(root):
                continue
            self.roots[root] = self._open(root, base, run, config, folders.get(root, set()))

    def _open(self, root: str, base: Path, run: str, config: Config,
              skill_folders: set[str]) -> _Root:
        run_key = _digest(run, os.path.realpath(root))
        path = self.directory / "check" / f"{_digest(root, str(base), run_key)}.json"
        stored = _load(path, self._key_of_user or b"")
        same_run = stored.get("run") == run_key
        previous = stored.get("files", {}) if isinstance(stored.get("files"), dict) else {}
        skip = os.path.abspath(self.directory)
        tree = _scan(root, previous, config.max_file_size, skip)
        structure = _digest([(rel, tree.kinds[rel], tree.links.get(rel)) for rel in tree.order])
        outside = [tree.describe(rel) for rel in tree.order if tree.kinds[rel] == "f" and (
            rel.rsplit("/", 1)[-1] in MANIFESTS or not _under_any(rel, skill_folders))]
        entries = stored.get("entries", {}) if same_run else {}
        return _Root(path, tree, run_key, _digest(run_key, structure, outside),
                     _digest([tree.describe(rel) for rel in tree.order]),
                     entries if isinstance(entries, dict) else {}, previous)

    def _key(self, source: Source) -> tuple[_Root, str] | None:
        root = self._absolute.get(source.root)
        if root is None:
            root = self._absolute[source.root] = os.path.abspath(source.root)
        cached = self.roots.get(root)
        if cached is None:
            return None
        path = os.fspath(source.path)
        path = path if os.path.isabs(path) else os.path.abspath(path)
        if not path.startswith(root + os.sep):
            return None
        rel = path[len(root) + 1:].replace(os.sep, "/")
        folder, linked = cached.folder(os.path.dirname(rel))
        if folder is None:
            return None
        return cached, _digest(cached.shared, rel, source.kind, folder,
                               cached.everything if linked else "")

    def get(self, source: Source) -> tuple[bool, FileResult | None]:
        """``(True, result)`` when ``source``'s result is cached (the result is None for
        a Markdown page that is no skill), else ``(False, None)``."""
        keyed = self._key(source)
        if keyed is None:
            return False, None
        root, key = keyed
        entry = root.entries.get(key)
        try:
            if entry is None or entry[0] and entry[1] != root.everything or any(
                    os.path.exists(path) != bool(existed) for path, existed in entry[3]):
                return False, None
            result = _result(entry[2])
        except (TypeError, ValueError, IndexError, KeyError):
            return False, None  # a damaged entry is checked again
        root.fresh[key] = entry
        return True, result

    def put(self, source: Source, result: FileResult | None) -> None:
        """Keep ``result``, unless it says the check failed (a rule's bug, a file that
        could not be read: the next run tries again)."""
        if result is not None and any(p.rule in ("internal-error", "unreadable-file")
                                      for p in result.problems):
            return
        keyed = self._key(source)
        if keyed is None:
            return
        root, key = keyed
        wide = result is not None and result.wide
        outside = [[path, os.path.exists(path)] for path in
                   (result.outside if result is not None else ())]
        root.fresh[key] = [wide, root.everything if wide else None, _entry(result), outside]
        root.changed = True

    def save(self) -> None:
        """Write each root's entries (only those of this run's files) atomically; a cache
        that cannot be written is left as it was."""
        import json

        if self._key_of_user is None or not self.roots:
            return
        try:
            _prepare(self.directory)
        except OSError:
            return
        _forget_old(self.directory / "check")
        for root in self.roots.values():
            if not root.changed and root.fresh.keys() == root.entries.keys() and (
                    root.tree.signatures == root.signatures):
                with contextlib.suppress(OSError):
                    os.utime(root.path)  # in use: not to be forgotten (_forget_old)
                continue
            data = {"format": FORMAT, "run": root.run_key,
                    "files": root.tree.signatures, "entries": root.fresh}
            try:
                payload = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
                _write(root.path, f"{_signature(self._key_of_user, payload)}\n{payload}")
            except (OSError, ValueError):
                continue


def _signature(key: bytes, payload: str) -> str:
    import hmac

    return hmac.new(key, payload.encode("utf-8", "surrogatepass"), "sha256").hexdigest()


def _load(path: Path, key: bytes) -> dict[str, Any]:
    """The cache file's data; {} when it is missing, damaged or not signed with ``key``."""
    import hmac
    import json

    try:
        with open(path, encoding="utf-8") as handle:
            signature, _, payload = handle.read().partition("\n")
        if not hmac.compare_digest(signature, _signature(key, payload)):
            return {}  # written with another key, or by someone else
        data = json.loads(payload)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and data.get("format") == FORMAT else {}


def _secret() -> bytes | None:
    """This user's key for signing cache files, made on first use. It lives in the
    user's own cache folder whatever ``--cache-dir`` says, so that a cache file planted
    in a repository (by a pull request, to hide a skill's problems) does not verify."""
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = Path(home) / "skillsite" / "check.key"
    try:
        key = path.read_text(encoding="ascii").strip()
        if len(key) >= 64:
            return key.encode("ascii")
    except (OSError, ValueError):
        pass
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        key = os.urandom(32).hex()
        _write(path, key + "\n")  # two runs at once: the last key wins, the other's
        return key.encode("ascii")  # cache file fails to verify once and is rebuilt
    except OSError:
        return None


def _forget_old(folder: Path) -> None:
    """Delete the caches no check has used for :data:`KEEP_DAYS` (other configurations,
    older versions, corpora gone)."""
    limit = time.time() - KEEP_DAYS * 86400
    try:
        with os.scandir(folder) as listing:
            for entry in listing:
                if entry.name.endswith(".json") and entry.stat(
                        follow_symlinks=False).st_mtime < limit:
                    os.unlink(entry.path)
    except OSError:
        pass


def _prepare(directory: Path) -> None:
    (directory / "check").mkdir(parents=True, exist_ok=True)
    tag = directory / "CACHEDIR.TAG"
    if not tag.exists():
        _write(tag, CACHEDIR_TAG)
    ignore = directory / ".gitignore"
    if not ignore.exists():
        _write(ignore, "# Created by skillsite: this folder is a cache.\n*\n")


def _write(path: Path, text: str) -> None:
    import tempfile

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _entry(result: FileResult | None) -> Any:
    if result is None:
        return None
    return [result.path, [[p.path, p.line, p.column, p.rule, p.severity, p.message]
                          for p in result.problems],
            list(result.record) if result.record is not None else None,
            result.is_skill, result.trust]


def _under_any(rel: str, folders: set[str]) -> bool:
    """Whether the file ``rel`` lies under one of ``folders`` ("" is the root)."""
    while rel:
        rel = rel.rpartition("/")[0]
        if rel in folders:
            return True
    return False


def _record(fields: list[Any]) -> Any:
    from skillsite.linter.rules.corpus import SkillRecord

    path, kind, name, name_at, depends_on, depends_at, *rest = fields
    return SkillRecord(path, kind, name, tuple(name_at),
                       tuple((target, tuple(at)) for target, at in depends_on),
                       tuple(depends_at), *rest)


def _result(entry: Any) -> FileResult | None:
    from skillsite.linter.checker import FileResult

    if entry is None:
        return None
    path, problems, record, is_skill, trust = entry
    return FileResult(path, [Problem(*p) for p in problems],
                      _record(record) if record is not None else None, bool(is_skill), None,
                      trust)
