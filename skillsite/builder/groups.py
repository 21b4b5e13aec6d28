"""The plugins, collections and byte-identical copies of a build, for ``groups.json`` and
the catalog, and the problems of the plugin manifests that were read.
"""
from __future__ import annotations

import json
import os
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import compress
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import Any

from skillsite.builder.records import Cached
from skillsite.linter.lint import make_problem
from skillsite.linter.namespaces import (
    MARKETPLACE_FILE,
    PLUGIN_FIELDS,
    PLUGIN_FILE,
    ManifestFile,
    Namespaces,
    local_source,
)
from skillsite.linter.rules.context import Context
from skillsite.linter.rules.corpus import SkillRecord
from skillsite.models import Problem
from skillsite.store.catalog import record_json

_RECORD, _GROUP = attrgetter("record"), itemgetter(6, 7)  # (collection, plugin)
_COLLECTION, _PLUGIN, _SHA256 = itemgetter(6), itemgetter(7), attrgetter("sha256")


@dataclass
class Groups:
    plugins: list[dict[str, Any]] = field(default_factory=list)
    collections: list[dict[str, Any]] = field(default_factory=list)
    copies: dict[str, list[str]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    #: By path: ``source_url`` and ``changed`` from git (see ``builder.provenance``).
    origins: dict[str, dict[str, str]] = field(default_factory=dict)
    repositories: list[dict[str, Any]] = field(default_factory=list)


def groups_of(included: dict[str, Cached], root: Path, ctx: Context) -> Groups:
    """What ``included`` (the published skills, by path) holds of plugins and collections."""
    namespaces = ctx.namespaces_of(root)
    # Only the few records in a plugin or a collection are made: at 100k skills making
    # them all costs a tenth of a one-skill rebuild.
    records = [SkillRecord._make(r) for r in _grouped(included)]
    groups = Groups(copies=_copies(included))
    plugins = Counter((r.collection, r.plugin, r.plugin_folder) for r in records if r.plugin)
    read: dict[str, ManifestFile] = {}
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for (collection, plugin, folder), count in sorted(plugins.items()):
        own = namespaces.manifest(os.path.join(namespaces.root, folder), PLUGIN_FILE)
        if own is not None:
            read[own.path] = own
        found[(collection, plugin)] = {
            "name": plugin, "collection": collection, "folder": folder, "skills": count,
            "source": "local", **_fields(own.data if own else None)}
        found[(collection, plugin)] = {k: v for k, v in found[(collection, plugin)].items()
                                       if v is not None}
    for folder in _marketplace_folders(namespaces, plugins, records):
        market = namespaces.manifest(folder, MARKETPLACE_FILE)
        if market is None:
            continue
        read[market.path] = market
        _add_listed(found, market, namespaces.collection_of(_relative(folder, root)))
    groups.plugins = [found[key] for key in sorted(found)]
    groups.collections = [{"name": name, "skills": count} for name, count in sorted(
        Counter(r.collection for r in records if r.collection).items())]
    for manifest in sorted(read.values(), key=lambda m: m.path):
        if manifest.issue is not None:
            issue = manifest.issue
            problem = make_problem(ctx, issue.rule, _relative(manifest.path, root),
                                   (issue.line, issue.column), issue.message)
            groups.problems += [problem] if problem else []
    return groups


def _grouped(included: dict[str, Cached]) -> Iterable[tuple[Any, ...]]:
    """The records (as stored) of the skills in a collection or a plugin."""
    records = list(filter(None, map(_RECORD, included.values())))
    if records and min(map(len, records)) > 8:  # (the loops stay in C: 100k records)
        if not any(map(_COLLECTION, records)) and not any(map(_PLUGIN, records)):
            return []  # a corpus without plugins or collections: no tuple made per record
        return compress(records, map(any, map(_GROUP, records)))
    return [r for r in records if len(r) > 8 and (r[6] or r[7])]


def with_extras(record: str, cached: Cached, copies: dict[str, list[str]],
                origin: dict[str, str] | None) -> str:
    """A catalog record (compact JSON) with ``copies`` (the other skills with the same
    bytes) and its ``source_url`` and ``changed`` time from git. Re-encoded only for the
    skills that have any."""
    same = copies.get(cached.sha256 or "")
    if not same and not origin:
        return record
    data = json.loads(record)
    if same:
        data["copies"] = [other for other in same if other != cached.name]
    data.update(origin or {})
    return record_json(data)


def _copies(included: dict[str, Cached]) -> dict[str, list[str]]:
    digests = list(map(_SHA256, included.values()))
    if len(set(digests)) == len(digests):
        return {}  # no two skills with the same bytes (a set costs less than a Counter)
    counts: Counter[str | None] = Counter(digests)
    shared = set(compress(counts, map((1).__lt__, counts.values())))  # (in C: 100k)
    shared.difference_update((None, ""))
    by_digest: dict[str, list[str]] = defaultdict(list)
    # Only the records of a shared digest are looked at in Python (found in C: 100k).
    for cached in compress(included.values(), map(shared.__contains__, digests)) \
            if shared else ():
        if cached.name and cached.sha256:
            by_digest[cached.sha256].append(cached.name)
    return {digest: sorted(ids) for digest, ids in sorted(by_digest.items()) if len(ids) > 1}


def _marketplace_folders(namespaces: Namespaces, plugins: Counter[tuple[str, str, str]],
                         records: list[SkillRecord]) -> list[str]:
    """The root, each collection, and every folder above a plugin: where a marketplace
    that lists the build's plugins can be."""
    root = namespaces.root
    folders = {root, *(os.path.join(root, c) for c in namespaces.collections)}
    folders |= {os.path.join(root, r.collection) for r in records if r.collection}
    for _, _, folder in plugins:
        path = os.path.join(root, folder)
        while path.startswith(root) and path not in folders:
            folders.add(path)
            path = os.path.dirname(path)
    return sorted(folders)


def _add_listed(found: dict[tuple[str, str], dict[str, Any]], market: ManifestFile,
                collection: str) -> None:
    """The plugins a marketplace lists: its fields fill in a local plugin's, and a remote
    plugin is listed from them alone."""
    entries = (market.data or {}).get("plugins")
    name = (market.data or {}).get("name")
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            continue
        key = (collection, entry["name"])
        listed = {k: v for k, v in _fields(entry).items() if v not in (None, "", [])}
        if isinstance(name, str) and name:
            listed["marketplace"] = name     # what `/plugin install PLUGIN@MARKETPLACE` names
        if key in found:
            found[key] = {**listed, **{k: v for k, v in found[key].items()
                                       if v not in (None, "", [])}}
        else:
            remote = local_source(entry) is None
            found[key] = {"name": entry["name"], "collection": collection, "skills": 0,
                          "source": _remote_source(entry.get("source")) if remote
                          else "local", **listed}


def _fields(data: dict[str, Any] | None) -> dict[str, Any]:
    data = data or {}
    fields: dict[str, Any] = {}
    for key in PLUGIN_FIELDS[1:]:
        value = data.get(key)
        if isinstance(value, dict) and key == "author":
            value = value.get("name") if isinstance(value.get("name"), str) else None
        elif isinstance(value, list):
            value = [str(v) for v in value if isinstance(v, (str, int, float))]
        elif value is not None and not isinstance(value, str):
            value = None
        fields["display_name" if key == "displayName" else key] = value
    return fields


def _remote_source(source: Any) -> str:
    if isinstance(source, dict):
        for key in ("url", "repo", "package"):
            if isinstance(source.get(key), str):
                return f"{source.get('source', 'remote')}:{source[key]}"
    return str(source) if isinstance(source, str) else "remote"


def _relative(path: str, root: Path) -> str:
    relative = os.path.relpath(path, root).replace(os.sep, "/")
    return "" if relative == "." else relative
