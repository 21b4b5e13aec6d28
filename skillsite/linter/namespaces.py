"""Which namespace a skill lives in: its Claude Code plugin and its collection.

A skill's id is what a client invokes it by (see :func:`skill_id`):

- inside a Claude Code plugin (a folder with ``.claude-plugin/plugin.json``, or a local
  plugin that a ``.claude-plugin/marketplace.json`` lists) it is ``<plugin>:<name>``;
- under a collection (a top-level folder of the corpus that is a git work tree, or a folder
  named in the ``collections`` setting) it is prefixed ``<collection>/``;
- elsewhere it is the name.

Everything is worked out from the file's path and the manifests above it, so a worker can
name a skill without seeing the rest of the corpus. Manifests are read once per folder.
"""
from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from skillsite.models import Issue

PLUGIN_DIR = ".claude-plugin"
PLUGIN_FILE = "plugin.json"
MARKETPLACE_FILE = "marketplace.json"
#: The fields of a plugin that the catalog keeps, as the manifests spell them.
PLUGIN_FIELDS = ("name", "displayName", "description", "version", "author", "category",
                 "keywords", "tags", "homepage", "repository", "license")
MAX_MANIFEST_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Namespace:
    """Where a skill lives: its collection (a folder relative to the root, or ``""``) and
    its plugin's name (or ``""``), with the plugin's folder relative to the root."""

    collection: str = ""
    plugin: str = ""
    plugin_folder: str = ""
    #: The manifests that decided this namespace, absolute (a build watches them).
    manifests: tuple[str, ...] = ()


#: The namespace of a skill in no collection and no plugin (most skills; it is frozen).
_NOWHERE = Namespace()
#: Not worked out yet (a plugin may be None).
_UNKNOWN: Any = object()


def skill_id(name: str, namespace: Namespace) -> str:
    """``[<collection>/][<plugin>:]<name>``."""
    plugin = f"{namespace.plugin}:" if namespace.plugin else ""
    collection = f"{namespace.collection}/" if namespace.collection else ""
    return f"{collection}{plugin}{name}"


@dataclass
class ManifestFile:
    """One ``plugin.json`` or ``marketplace.json``: its data, or the issue that kept it out."""

    path: str                     # absolute
    data: dict[str, Any] | None
    issue: Issue | None = None


@dataclass
class Namespaces:
    """Namespaces of the files under one corpus root (``collections`` from the
    configuration), with each folder's manifests read once."""

    root: str
    collections: tuple[str, ...] = ()
    _manifests: dict[tuple[str, str], ManifestFile | None] = field(default_factory=dict)
    _folders: dict[str, Namespace] = field(default_factory=dict)
    #: Whether each top-level folder is a git work tree (a collection), looked up once.
    _work_trees: dict[str, bool] = field(default_factory=dict)
    #: Each marketplace's local plugins, by the marketplace's folder (worked out once).
    _listed: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict)
    #: Folders known to have no ``.claude-plugin`` entry (see :meth:`of`).
    _bare: set[str] = field(default_factory=set)
    #: Per folder, the marketplaces of its chain of folders up to the root (the nearest
    #: first) and its plugin (see :meth:`_plugin`).
    _plugins: dict[str, tuple[list[tuple[str, ManifestFile]], _Plugin | None]] = field(
        default_factory=dict)
    #: Per folder whose chain of folders holds no marketplace, the plugin of any folder in
    #: it without a ``.claude-plugin`` entry (its own plugin, or None): such a folder's
    #: namespace is that plugin and its own collection, without walking its chain again.
    _above: dict[str, _Plugin | None] = field(default_factory=dict)

    def of(self, path: str, names: Iterable[str] | None = None) -> Namespace:
        """The namespace of the file at ``path`` (absolute or relative to the root).
        ``names``, when given, are the names in the file's folder (as discovery listed
        it): a folder without a ``.claude-plugin`` entry holds no manifest, and the file
        system is not asked."""
        return self.of_folder(os.path.dirname(os.path.join(self.root, path)), names)

    def of_folder(self, folder: str, names: Iterable[str] | None = None) -> Namespace:
        """:meth:`of` a file in ``folder``, an absolute and normalized path."""
        found = self._folders.get(folder)
        if found is None:
            if names is not None and PLUGIN_DIR not in names:
                self._bare.add(folder)
                # os.path.dirname of a normalized folder below the root (if it differs,
                # as for a folder at the file system's root, the lookup misses, harmlessly)
                above = self._above.get(folder.rpartition(os.sep)[0], _UNKNOWN)
                if above is not _UNKNOWN:  # a bare folder beside one already worked out
                    collection = self.collection_of(_relative(folder, self.root), names)
                    found = self._folders[folder] = (
                        Namespace(collection, *above) if above is not None
                        else Namespace(collection) if collection else _NOWHERE)
                    return found
            found = self._folders[folder] = self._work_out(folder, names)
        return found

    def collection_of(self, folder: str, names: Iterable[str] | None = None) -> str:
        """The collection of a folder given relative to the root (``""`` for none).
        ``names``, when given, are the names in that folder (as discovery listed it): a
        top-level folder's own listing then says whether it holds ``.git``."""
        for configured in self.collections:
            if folder == configured or folder.startswith(configured + "/"):
                return configured
        top = folder.split("/", 1)[0]
        if top and top not in self._work_trees:
            self._work_trees[top] = (".git" in names if names is not None and top == folder
                                     else os.path.lexists(os.path.join(self.root, top, ".git")))
        return top if top and self._work_trees[top] else ""

    def manifest(self, folder: str, name: str) -> ManifestFile | None:
        """``folder/.claude-plugin/<name>``, parsed; None when there is none."""
        if folder in self._bare:
            return None
        key = (folder, name)  # looked up for every skill below: no path joined for that
        if key not in self._manifests:
            self._manifests[key] = read_manifest_file(os.path.join(folder, PLUGIN_DIR, name))
        return self._manifests[key]

    def _work_out(self, folder: str, names: Iterable[str] | None = None) -> Namespace:
        relative = _relative(folder, self.root)
        if relative == ".." or relative.startswith("../"):
            return Namespace()
        collection = self.collection_of(relative, names)
        plugin = self._plugin(folder, relative)[1]
        if plugin is not None:
            return Namespace(collection, *plugin)
        return Namespace(collection) if collection else _NOWHERE

    def _plugin(self, folder: str, relative: str
                ) -> tuple[list[tuple[str, ManifestFile]], _Plugin | None]:
        """The marketplaces of ``folder``'s chain (``folder`` and its parents up to the
        root, nearest first) and the plugin the nearest of those folders decides, if any.

        A folder without a ``.claude-plugin`` entry adds no marketplace and no manifest to
        its parent's chain: unless a marketplace lists it, it is in its parent's plugin,
        worked out once for all the skills beside it."""
        found = self._plugins.get(folder)
        if found is not None:
            return found
        parent = os.path.dirname(folder)
        # Near the chain's cap of 64 folders the parent's chain would reach one further.
        if (folder in self._bare and relative and parent != folder
                and relative.count("/") < 60):
            markets, above = self._plugin(parent, parent_relative(relative))
            if not markets:  # no marketplace can list a folder of ``parent``: see of_folder
                self._above[parent] = above
            listed = self._listed_by(folder, markets)
            found = (markets, self._from_listing(listed) if listed is not None else above)
        else:
            chain = _ancestors(folder, self.root)
            markets = [(ancestor, market) for ancestor in chain  # the nearest first: it wins
                       if (market := self.manifest(ancestor, MARKETPLACE_FILE)) is not None
                       and market.data is not None]
            found = (markets, self._chain_plugin(chain, markets))
        self._plugins[folder] = found
        return found

    def _chain_plugin(self, chain: list[str], markets: list[tuple[str, ManifestFile]]
                      ) -> _Plugin | None:
        for ancestor in chain:  # the nearest plugin wins
            listed = self._listed_by(ancestor, markets)
            if listed is not None:
                return self._from_listing(listed)
            own = self.manifest(ancestor, PLUGIN_FILE)
            if own is not None:
                name = (own.data or {}).get("name")
                plugin = name if isinstance(name, str) and name.strip() else \
                    os.path.basename(ancestor) or "plugin"
                return plugin, _relative(ancestor, self.root), (own.path,)
        return None

    def _from_listing(self, listed: tuple[str, str, str]) -> _Plugin:
        plugin, source, decided_by = listed
        own = self.manifest(source, PLUGIN_FILE)
        return plugin, _relative(source, self.root), (decided_by, *((own.path,) if own else ()))

    def _listed_by(self, folder: str, markets: list[tuple[str, ManifestFile]]
                   ) -> tuple[str, str, str] | None:
        """(plugin, plugin folder, marketplace path) of the nearest marketplace that lists
        ``folder`` as a local plugin (or one of its skills), else None."""
        for market_folder, market in markets:
            plugins = self._listed.get(market_folder)
            if plugins is None:
                plugins = self._listed[market_folder] = local_plugins(
                    market_folder, market.data or {})
            if folder in plugins:
                plugin, source = plugins[folder]
                return plugin, source, market.path
        return None


#: A plugin's name, its folder relative to the root and the manifests that decided it.
_Plugin = tuple[str, str, tuple[str, ...]]


def parent_relative(relative: str) -> str:
    """The parent of a folder given relative to the root (``""`` for the root)."""
    return relative.rsplit("/", 1)[0] if "/" in relative else ""


def _ancestors(folder: str, root: str) -> list[str]:
    """``folder`` and its parents up to ``root`` (inclusive), nearest first."""
    chain = [folder]
    while chain[-1] != root and len(chain) < 64:
        parent = os.path.dirname(chain[-1])
        if parent == chain[-1]:
            break
        chain.append(parent)
    return chain


def _relative(path: str, root: str) -> str:
    if path.startswith(root + os.sep) and root != os.sep:  # the usual case, without relpath
        return path[len(root) + 1:].replace(os.sep, "/")
    relative = os.path.relpath(path, root).replace(os.sep, "/")
    return "" if relative == "." else relative


def local_plugins(marketplace_root: str, data: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """Absolute folder -> (plugin name, plugin folder) of each plugin a marketplace lists
    with a local
    source inside ``marketplace_root`` (a remote source is never fetched). An entry that
    lists its ``skills`` (folders relative to its source) owns those folders, so several
    plugins may share one source (anthropics/skills lists three with ``./``)."""
    found: dict[str, tuple[str, str]] = {}
    found_metadata = data.get("metadata")
    metadata: dict[str, Any] = found_metadata if isinstance(found_metadata, dict) else {}
    root_value = metadata.get("pluginRoot")
    plugin_root: str = root_value if isinstance(root_value, str) else ""
    for entry in data.get("plugins") or []:
        source = local_source(entry, plugin_root)
        if source is None or not isinstance(entry.get("name"), str):
            continue
        folder = os.path.normpath(os.path.join(marketplace_root, source))
        listed = [os.path.normpath(os.path.join(folder, skill))
                  for skill in entry.get("skills") or [] if isinstance(skill, str)] \
            if isinstance(entry.get("skills"), list) else []
        for owned in listed or [folder]:
            if owned == marketplace_root or owned.startswith(marketplace_root + os.sep):
                found.setdefault(owned, (entry["name"], folder))
    return found


def local_source(entry: Any, plugin_root: str = "") -> str | None:
    """The relative folder of a marketplace entry whose source is local, else None."""
    if not isinstance(entry, dict):
        return None
    source = entry.get("source")
    if isinstance(source, dict) and source.get("source") in ("local", "directory"):
        source = source.get("path")
    if not isinstance(source, str) or "://" in source or source.startswith("git@"):
        return None
    if not source.startswith((".", "/")) and plugin_root:
        source = os.path.join(plugin_root, source)
    return source.lstrip("/") or "."


def read_manifest_file(path: str) -> ManifestFile | None:
    """A ``plugin.json`` or ``marketplace.json``: None when absent, else its data or the
    located issue that makes it unusable."""
    try:
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as handle:
            raw = handle.read(MAX_MANIFEST_BYTES + 1)
    except OSError as exc:
        return ManifestFile(path, None, Issue("plugin-manifest-invalid", 1, 1,
                                              f"cannot read this file: {exc.strerror}"))
    if len(raw) > MAX_MANIFEST_BYTES:
        return ManifestFile(path, None, Issue("plugin-manifest-invalid", 1, 1,
                                              "over 1 MiB; not read"))
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        return ManifestFile(path, None, Issue("plugin-manifest-invalid", 1, 1,
                                              "not UTF-8 text; save it as UTF-8"))
    except json.JSONDecodeError as exc:
        return ManifestFile(path, None, Issue("plugin-manifest-invalid", exc.lineno, exc.colno,
                                              f"not valid JSON: {exc.msg}"))
    if not isinstance(data, dict):
        return ManifestFile(path, None, Issue("plugin-manifest-invalid", 1, 1,
                                              "must be a JSON object"))
    return ManifestFile(path, data)
