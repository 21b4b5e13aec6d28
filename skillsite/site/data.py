"""What the site knows of each skill, read from the ``dist/`` being built (catalog.json,
graph.json and the content store), never from the builder."""
from __future__ import annotations

import calendar
import hashlib
import heapq
import json
import marshal
import os
import posixpath
import re
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any

from skillsite.linter.rules.context import dialect_of_fields
from skillsite.models import Problem
from skillsite.site.writing import write_new
from skillsite.store.content import ContentStore

#: Front-matter keys that mark the Claude Code dialect of SKILL.md.
CLAUDE_FIELDS = ("user-invocable", "disable-model-invocation", "argument-hint", "model",
                 "when_to_use", "context", "agent", "hooks")
#: Related skills shown per page (by shared tags).
MAX_RELATED = 8
#: Skills of each tag looked at for the related skills.
RELATED_PER_TAG = 200
_SLUG_SAFE = re.compile(r"[a-z0-9_-]")
_PLAIN_NAME = re.compile(r"[a-z0-9_-]+")
#: Characters in a page's slug (a folder name: well under the 255-byte limit).
MAX_SLUG = 160


@dataclass
class SiteSkill:
    name: str                         # the id: [collection/][plugin:]name
    slug: str
    description: str
    format: str
    dialect: str
    path: str                         # the skill's file, relative to the corpus root
    sha256: str
    tags: list[str]
    version: str | None
    title: str
    metadata: dict[str, Any]
    files: list[str]                  # supporting files, relative to the corpus root
    changed: int = 0                  # last changed (git, else mtime): seconds since epoch
    changed_in_git: bool = False      # ``changed`` is the time of its last commit
    headings: list[str] = field(default_factory=list)
    depends_on: list[str] = field(default_factory=list)   # names that exist
    unresolved: list[str] = field(default_factory=list)   # depends_on that name nothing
    dependents: list[str] = field(default_factory=list)
    links_to: list[str] = field(default_factory=list)
    linked_from: list[str] = field(default_factory=list)
    related: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    #: The files whose bytes the build kept (its own and supporting files, by path
    #: relative to the corpus root) -> their sha256: the only bytes the site publishes.
    stored: dict[str, str] = field(default_factory=dict)
    plugin: str = ""
    collection: str = ""
    copies: list[str] = field(default_factory=list)   # ids of byte-identical skills
    source_url: str | None = None                     # the file on its forge, from git
    #: The build's trust assessment (catalog.json's ``trust``): level, summary, reasons
    #: and capabilities.
    trust: dict[str, Any] = field(default_factory=dict)
    #: The name its own file gives (the id without collection and plugin): the folder
    #: name a client installs it under.
    short_name: str = ""
    #: The key of what the content store gave of it (:func:`parts_key` of its title,
    #: metadata, headings, files and kept files), or "" (a skill not read by
    #: :func:`load_site`).
    parts_key: str = ""

    @property
    def level(self) -> str:
        return str(self.trust.get("level") or "none")

    @property
    def folder(self) -> str:
        return posixpath.dirname(self.path)


def slug_of(name: str) -> str:
    """A URL and file-name safe, stable name for a skill's or a tag's page, unique by
    construction (an injective encoding, no hash a name could spell).

    ``a-z``, ``0-9``, ``_`` and ``-`` stay as they are; any other character becomes
    ``-_<hex code point>_``, and so does a ``-`` that a ``_`` follows, so ``-_`` only ever
    starts an escape: ``Deploy Production`` is ``-_44_eploy-_20_-_50_roduction`` and
    ``telegram:access`` is ``telegram-_3a_access``, while the name
    ``deploy-production-b92556ecd9`` keeps its own slug. A slug over :data:`MAX_SLUG`
    characters keeps its start and ends in ``-_h<sha256>_`` (``h`` is no hex digit)."""
    if len(name) <= MAX_SLUG and "-_" not in name and _PLAIN_NAME.fullmatch(name):
        return name  # what the loop below makes of it, without the loop (most names)
    out = []
    for index, char in enumerate(name):
        if _SLUG_SAFE.fullmatch(char) and not (char == "-" and name[index + 1:index + 2] == "_"):
            out.append(char)
        else:
            out.append(f"-_{ord(char):x}_")
    slug = "".join(out) or "-__"
    if len(slug) <= MAX_SLUG:
        return slug
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{slug[:MAX_SLUG - 68]}-_h{digest}_"


def load_skills(dist: Path, root: Path, problems: list[Problem],
                previous: Path | None = None) -> list[SiteSkill]:
    """Every skill in ``dist`` (sorted by name) with its neighbours and problems."""
    return load_site(dist, root, problems, previous)[0]


def load_site(dist: Path, root: Path, problems: list[Problem],
              previous: Path | None = None) -> tuple[list[SiteSkill], CatalogGroups]:
    """Every skill in ``dist`` (sorted by name) with its neighbours and problems, and the
    plugins and collections of its catalog (read once: 75 MB of JSON at 100k skills).

    What the site takes of each skill's rows in the content store is kept per shard in
    ``site-cache/skills/``; a shard that is the same file as when ``previous`` (an earlier
    dist) read it is not read again (see :func:`_stored_parts`)."""
    whole = json.loads((dist / "catalog.json").read_text(encoding="utf-8"))
    catalog = whole["skills"]
    skills: dict[str, SiteSkill] = {}
    times = [_git_time(record.get("changed")) for record in catalog]
    undated = [record for record, at in zip(catalog, times, strict=True) if not at]
    mtimes = _Mtimes(str(root), [record["path"] for record in undated])
    parts, keys = _stored_parts(dist, previous)
    for record, at in zip(catalog, times, strict=True):
        key = record["id"]
        title, metadata, headings, files, stored = parts.get(key) or _NOTHING
        skill = _skill(record, title, metadata, headings, files, at)
        skill.parts_key = keys.get(key) or parts_key(_NOTHING)
        start = skill.folder + "/" if skill.folder else ""
        skill.stored = {start + path: digest for path, digest in stored}
        skills[key] = skill
    _neighbours(skills, dist, previous)
    by_path: dict[str, list[Problem]] = defaultdict(list)
    for problem in problems:
        by_path[problem.path].append(problem)
    for skill in skills.values():   # its own file's problems, then its files'
        skill.problems = [p for path in (skill.path, *skill.files)
                          for p in by_path.get(path, ())]
    for record, mtime in zip(undated, mtimes.result(), strict=True):
        skills[record["id"]].changed = mtime
    return [skills[name] for name in sorted(skills)], _groups_of(whole)


#: What the site takes of a skill's rows: title, metadata, headings, supporting files and
#: the (path, sha256) of each file whose bytes were kept.
Parts = tuple[str, dict[str, Any], list[str], list[str], list[tuple[str, str]]]
_NOTHING: Parts = ("", {}, [], [], [])
#: Where the parts of each content shard are kept, in the site cache (``NN.sqlite`` ->
#: ``NN.bin``: marshal of the shard's (size, mtime_ns, inode), its parts by name and the
#: key of each skill's parts, see :func:`parts_key`).
PARTS = "site-cache/skills"
_PARTS_VERSION = 2


def parts_key(parts: Parts) -> str:
    """The sha256 of a skill's parts, as marshal's version 2 writes them (by value):
    made once when their shard is read, and kept with them, so that a page's key need
    not take them again (they are half of every skill's fields)."""
    return hashlib.sha256(marshal.dumps(parts, 2)).hexdigest()


def _stored_parts(dist: Path, previous: Path | None
                  ) -> tuple[dict[str, Parts], dict[str, str]]:
    """The parts of every skill in ``dist``'s content store, by name. A shard whose size,
    mtime and inode are those recorded with its parts in ``previous`` (an unchanged shard
    the build hard-linked: the content store never writes a linked shard in place) takes
    those parts and links their file; the others are read, and their parts written.
    Returns the parts and their keys (:func:`parts_key`), by name."""
    found: dict[str, Parts] = {}
    keys: dict[str, str] = {}
    into = dist / PARTS
    into.mkdir(parents=True, exist_ok=True)
    content = dist / "content"
    with ContentStore(content) as store:
        for shard in sorted(p.name for p in content.glob("*.sqlite")):
            stat = os.stat(content / shard)
            seen = (_PARTS_VERSION, stat.st_size, stat.st_mtime_ns, stat.st_ino)
            name = shard.replace(".sqlite", ".bin")
            before = previous / PARTS / name if previous is not None else None
            kept = _kept_parts(before, seen) if before is not None else None
            if before is not None and kept is not None:
                found.update(kept[0])
                keys.update(kept[1])
                os.link(before, into / name)
                continue
            parts = store.site_parts(shard)
            made = {key: parts_key(value) for key, value in parts.items()}
            found.update(parts)
            keys.update(made)
            write_new(into / name, marshal.dumps((seen, parts, made)))
    return found, keys


def _kept_parts(path: Path, seen: tuple[int, ...]
                ) -> tuple[dict[str, Parts], dict[str, str]] | None:
    try:
        recorded, parts, keys = marshal.loads(path.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if tuple(recorded) != seen or not isinstance(parts, dict) or not isinstance(keys, dict) \
            or keys.keys() != parts.keys():
        return None
    return parts, keys


@dataclass
class CatalogGroups:
    """The plugins and collections of ``catalog.json`` (see ``builder/groups.py``)."""

    plugins: list[dict[str, Any]] = field(default_factory=list)
    collections: list[dict[str, Any]] = field(default_factory=list)


def catalog_groups(dist: Path) -> CatalogGroups:
    """The plugins and collections of the dist/ being built (none when unreadable)."""
    try:
        catalog = json.loads((dist / "catalog.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return CatalogGroups()
    return _groups_of(catalog)


def _groups_of(catalog: Any) -> CatalogGroups:
    if not isinstance(catalog, dict):
        return CatalogGroups()

    def named(key: str) -> list[dict[str, Any]]:
        found = catalog.get(key)
        return [g for g in found if isinstance(g, dict) and isinstance(g.get("name"), str)
                and g["name"]] if isinstance(found, list) else []

    return CatalogGroups(named("plugins"), named("collections"))


def _skill(record: dict[str, Any], title: str, metadata: dict[str, Any],
           headings: list[str], files: list[str], in_git: int) -> SiteSkill:
    """The skill of a catalog record; ``changed`` is ``in_git``, the time of its last
    commit, else 0 (the caller sets the file's mtime, see :class:`_Mtimes`)."""
    return SiteSkill(
        name=record["id"], slug=slug_of(record["id"]), description=record["description"],
        format=record["format"], dialect=dialect_of(record["format"], metadata),
        path=record["path"], sha256=record["sha256"], tags=list(record["tags"]),
        version=record.get("version"), title=title or record["name"],
        plugin=str(record.get("plugin", "")), collection=str(record.get("collection", "")),
        copies=list(record.get("copies", ())), source_url=record.get("source_url"),
        metadata=metadata, files=list(files), changed=in_git, changed_in_git=bool(in_git),
        headings=list(headings),
        trust=record["trust"] if isinstance(record.get("trust"), dict) else {},
        short_name=str(record.get("name") or record["id"]))


#: Stats the files named on its standard input (a marshalled list of paths) and writes
#: the marshalled list of their mtimes, ``int(st_mtime)`` or 0 where the stat fails.
_MTIMES = (
    "import marshal, os, sys\n"
    "out = []\n"
    "for path in marshal.load(sys.stdin.buffer):\n"
    "    try:\n"
    "        out.append(int(os.stat(path).st_mtime))\n"
    "    except (OSError, ValueError):\n"
    "        out.append(0)\n"
    "sys.stdout.buffer.write(marshal.dumps(out))\n")
#: Below this many files, they are stat'ed in this process.
_MTIMES_APART_FROM = 2000


class _Mtimes:
    """The mtime (whole seconds, as ``int(os.stat(path).st_mtime)``; 0 when the stat
    fails) of each of ``paths`` (relative to ``root``), found by a child process while
    this one reads the rest: 100k stats took 2.2 s of the build process at 100k skills,
    and a stat releases the interpreter lock, which the side threads then keep for a
    switch interval each time. Where the child cannot run, the stats are taken here."""

    def __init__(self, root: str, paths: list[str]) -> None:
        self.paths = [os.path.join(root, path) for path in paths]
        self.child: Any = None
        if len(self.paths) < _MTIMES_APART_FROM:
            return
        import subprocess
        import sys

        from skillsite.linter.children import dies_with_parent

        try:
            self.child = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _MTIMES], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                preexec_fn=dies_with_parent())  # noqa: PLW1509 (no locks taken)
            self.child.stdin.write(marshal.dumps(self.paths))
            self.child.stdin.close()
        except (OSError, ValueError):
            self._reap()

    def _reap(self) -> None:
        if self.child is not None:
            self.child.kill()
            self.child.wait()
            self.child = None

    def result(self) -> list[int]:
        if self.child is not None:
            try:
                found = marshal.loads(self.child.stdout.read())
                self.child.stdout.close()
                if self.child.wait() == 0 and isinstance(found, list) \
                        and len(found) == len(self.paths):
                    return found
            except (OSError, ValueError, EOFError, TypeError):
                pass
            self._reap()
        found = []
        for path in self.paths:
            try:
                found.append(int(os.stat(path).st_mtime))
            except (OSError, ValueError):
                found.append(0)
        return found


def _git_time(value: Any) -> int:
    """Seconds since the epoch of a catalog ``changed`` time (from git), else 0."""
    if not isinstance(value, str):
        return 0
    try:
        return calendar.timegm(time.strptime(value, "%Y-%m-%dT%H:%M:%SZ"))
    except ValueError:
        return 0


def dialect_of(kind: str, metadata: dict[str, Any]) -> str:
    """The SKILL.md dialect a skill's fields show (the linter's evidence, and Claude
    Code's own fields), or its format for other formats."""
    if kind != "skill-md":
        return kind
    found = dialect_of_fields(metadata)
    if found == "agent-skills" and any(k in metadata for k in CLAUDE_FIELDS):
        return "claude-code"
    return found


#: Where each skill's neighbours are kept, in the site cache: marshal of the sha256 of
#: graph.json, the skills' names and tags and, by name, the lists :data:`NEIGHBOURS` name.
NEIGHBOURS_FILE = "site-cache/neighbours.bin"
NEIGHBOURS = ("depends_on", "unresolved", "dependents", "links_to", "linked_from", "related")


def _neighbours(skills: dict[str, SiteSkill], dist: Path, previous: Path | None) -> None:
    """Each skill's neighbours (:func:`_connect`), or those ``previous`` (an earlier dist)
    kept when its graph.json held the same bytes and it had the same skills with the same
    tags: they are made from nothing else (the related skills of 100k skills cost 1.3 s a
    build)."""
    graph = (dist / "graph.json").read_bytes()
    digest = hashlib.sha256(graph).digest()
    names: list[list[Any]] = [list(skills), [skill.tags for skill in skills.values()]]
    kept = _kept_neighbours(previous / NEIGHBOURS_FILE, digest, names) \
        if previous is not None else None
    target = dist / NEIGHBOURS_FILE
    if kept is not None:
        for name, lists in kept.items():
            skill = skills[name]
            (skill.depends_on, skill.unresolved, skill.dependents, skill.links_to,
             skill.linked_from, skill.related) = lists
        assert previous is not None
        target.parent.mkdir(parents=True, exist_ok=True)
        target.unlink(missing_ok=True)
        os.link(previous / NEIGHBOURS_FILE, target)
        return
    _connect(skills, json.loads(graph.decode("utf-8")))
    # Version 2: no object is shared between two skills' lists when read back.
    write_new(target, marshal.dumps((digest, names, {
        name: tuple(getattr(skill, field) for field in NEIGHBOURS)
        for name, skill in skills.items()}), 2))


def _kept_neighbours(path: Path, digest: bytes, names: list[list[Any]]
                     ) -> dict[str, tuple[list[str], ...]] | None:
    try:
        kept_digest, kept_names, lists = marshal.loads(path.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if kept_digest != digest or kept_names != names or not isinstance(lists, dict) \
            or lists.keys() != set(names[0]):
        return None
    return lists


def _connect(skills: dict[str, SiteSkill], graph: dict[str, Any]) -> None:
    tagged: dict[str, list[str]] = defaultdict(list)
    for edge in graph.get("edges", ()):
        source, target, kind = edge["source"], edge["target"], edge["type"]
        if source not in skills:
            continue
        if kind == "tag":
            tagged[target].append(source)
        elif target in skills and kind == "depends_on":
            skills[source].depends_on.append(target)
            skills[target].dependents.append(source)
        elif target in skills and kind == "link":
            skills[source].links_to.append(target)
            skills[target].linked_from.append(source)
    for ref in graph.get("unresolved", ()):
        if ref.get("source") in skills:
            skills[ref["source"]].unresolved.append(str(ref.get("ref")))
    for skill in skills.values():
        skill.related = _related(skill, tagged)


def _related(skill: SiteSkill, tagged: dict[str, list[str]]) -> list[str]:
    """Skills that share the most tags with ``skill`` (ties by name), among the first
    :data:`RELATED_PER_TAG` skills of each of its tags."""
    shared = Counter(chain.from_iterable(tagged.get(f"tag:{t}", ())[:RELATED_PER_TAG]
                                         for t in skill.tags))
    shared.pop(skill.name, None)
    if len(shared) <= MAX_RELATED:
        return sorted(shared, key=lambda name: (-shared[name], name))
    # The MAX_RELATED largest by count, then name: only names counted at least as often
    # as the MAX_RELATED-th largest count can be among them (counted in C, not per name).
    floor = heapq.nlargest(MAX_RELATED, shared.values())[-1]
    return [name for _, name in heapq.nsmallest(
        MAX_RELATED, [(-count, name) for name, count in shared.items() if count >= floor])]
