"""Rules that need the whole corpus: duplicate names and Mini-A dependencies."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

from skillsite.linter.namespaces import Namespace
from skillsite.linter.rules.context import Context
from skillsite.linter.rules.registry import CORPUS, rule
from skillsite.models import Document

DEPENDENCY_KEYS = ("depends_on", "dependsOn", "dependencies")
Location = tuple[int, int]


class SkillRecord(NamedTuple):
    """The little a corpus rule needs to know about one skill (a tuple: the build keeps
    100k of them in its cache)."""

    path: str
    kind: str
    name: str | None
    name_at: Location
    depends_on: tuple[tuple[str, Location], ...] = ()
    depends_at: Location = (1, 1)
    #: The skill's collection and plugin (see :mod:`skillsite.linter.namespaces`): names
    #: must be unique only among skills a client loads side by side.
    collection: str = ""
    plugin: str = ""
    plugin_folder: str = ""


def record_of(doc: Document, path: str, namespace: Namespace | None = None) -> SkillRecord:
    data = doc.data or {}
    name = data.get("name") if isinstance(data.get("name"), str) else None
    depends: list[tuple[str, Location]] = []
    depends_at: Location = (1, 1)
    if doc.source.kind == "virtual":
        for key in DEPENDENCY_KEYS:
            value: Any = data.get(key)
            if value is None:
                continue
            depends_at = doc.key_where(f"/{key}")
            items = [value] if isinstance(value, str) else value
            if isinstance(items, list):
                depends += [(item, doc.where(f"/{key}/{i}" if isinstance(value, list)
                                             else f"/{key}"))
                            for i, item in enumerate(items) if isinstance(item, str)]
    namespace = namespace or Namespace()
    return SkillRecord(path, doc.source.kind, name, doc.where("/name"), tuple(depends),
                       depends_at, namespace.collection, namespace.plugin,
                       namespace.plugin_folder)


CorpusFinding = tuple[str, Location, str]


@rule("duplicate-name", "error", scope=CORPUS, family="corpus", peers={"agnix": "AS-025"})
def duplicate_name(records: list[SkillRecord], ctx: Context) -> Iterator[CorpusFinding]:
    """
    Two skills of one namespace share a ``name``.

    Agents pick skills by name, so a duplicate makes one of them unreachable: Flux treats
    it as fatal and ongrid skips the second. A namespace is what a client loads side by
    side: one Claude Code plugin (whose skills it invokes as ``plugin:name``), one
    collection, or the rest of the corpus. The same name in two plugins or two
    collections is no problem. Every occurrence after the first (in path order) is
    reported, pointing at the first; the first is the one published under that id.
    """
    first: dict[tuple[str, str, str], SkillRecord] = {}
    for record in sorted(records, key=lambda r: r.path):
        if not record.name:
            continue
        key = (record.collection, record.plugin, record.name)
        if key in first:
            other = first[key]
            where = f" in plugin {record.plugin!r}" if record.plugin else ""
            yield record.path, record.name_at, (
                f"name {record.name!r} is already used{where} by "
                f"{other.path}:{other.name_at[0]}; skill names must be unique in a namespace "
                "(rename one; only the first is published)")
        else:
            first[key] = record


def resolve_reference(ref: str) -> str | None:
    """The skill name a Mini-A dependency names, or None for a ``wiki:`` page reference."""
    ref = ref.strip()
    if ref.startswith("wiki:"):
        return None
    return ref[len("skill:"):] if ref.startswith("skill:") else ref


@rule("depends-on-unresolved", "error", formats=("virtual",), scope=CORPUS, family="corpus")
def depends_on_unresolved(records: list[SkillRecord], ctx: Context) -> Iterator[CorpusFinding]:
    """
    A Mini-A ``depends_on`` (also ``dependsOn``, ``dependencies``) entry names no skill in
    the corpus. Entries may be ``skill:<name>`` or an exact name; ``wiki:`` references point
    at wiki pages, not skills, and are not checked.
    """
    names = {r.name for r in records if r.name}
    for record in records:
        for ref, where in record.depends_on:
            target = resolve_reference(ref)
            if target is not None and target not in names:
                yield record.path, where, (f"depends_on {ref!r} names no skill in the "
                                           "corpus; fix the name or add the skill")


@rule("depends-on-cycle", "warning", formats=("virtual",), scope=CORPUS, family="corpus")
def depends_on_cycle(records: list[SkillRecord], ctx: Context) -> Iterator[CorpusFinding]:
    """
    Mini-A skills depend on each other in a cycle (a → b → a).

    ``compose`` expands dependencies one level only, so a cycle never loops at run time,
    but it means neither skill is really a prerequisite of the other. Each cycle is reported
    once, on the skill whose path sorts first.
    """
    by_name = {r.name: r for r in records if r.name}
    edges = {r.name: [t for ref, _ in r.depends_on
                      if (t := resolve_reference(ref)) in by_name]
             for r in records if r.name and r.depends_on}
    for cycle in find_cycles(edges):
        start = min((by_name[n] for n in cycle), key=lambda r: r.path)
        order = cycle[cycle.index(start.name):] + cycle[:cycle.index(start.name)]
        chain = " -> ".join([*order, order[0]])
        yield start.path, start.depends_at, f"dependency cycle: {chain}"


def find_cycles(edges: dict[Any, list[Any]]) -> Iterator[list[Any]]:
    """Each elementary cycle found by depth-first search, once per set of members."""
    seen_sets: set[frozenset[Any]] = set()
    state: dict[Any, int] = {}
    for start in sorted(edges):
        stack: list[tuple[Any, Iterator[Any]]] = [(start, iter(edges.get(start, [])))]
        path = [start]
        state[start] = state.get(start, 1)
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                state[node] = 2
                continue
            if child in path:
                cycle = path[path.index(child):]
                if frozenset(cycle) not in seen_sets:
                    seen_sets.add(frozenset(cycle))
                    yield list(cycle)
            elif state.get(child) != 2:
                state[child] = 1
                path.append(child)
                stack.append((child, iter(edges.get(child, []))))
