"""What the build keeps of each skill: a :class:`SkillEntry` made from its document.

Every format is brought to one shape. ``.skill.toml`` ``prompt_additions`` become the body;
a ``skill.json`` gets a body written from its description, args schema, class and entry.
"""
from __future__ import annotations

import datetime
import json
import os
from typing import Any

from skillsite.entries import IndexDoc, Section, SkillEntry
from skillsite.linter.discover import relative_path
from skillsite.linter.links import local_links
from skillsite.linter.namespaces import Namespace, skill_id
from skillsite.linter.rules.corpus import DEPENDENCY_KEYS, resolve_reference
from skillsite.linter.sections import split_sections
from skillsite.linter.supporting import supporting_of
from skillsite.models import Document


def index_doc(entry: SkillEntry) -> IndexDoc:
    """What the search index holds of a skill."""
    return IndexDoc(name=entry.key, title=entry.title, description=entry.description,
                    tags=entry.tags, intents=entry.intents, applies_to=entry.applies_to,
                    compatibility=entry.compatibility, headings=entry.headings,
                    body=entry.body)


def entry_of(doc: Document, namespace: Namespace | None = None,
             name: str | None = None,
             folder: tuple[tuple[str, ...], tuple[str, ...]] | None = None) -> SkillEntry:
    """The entry for a parsed document whose data is a mapping with a name (or ``name``,
    the one a client falls back to), in ``namespace`` (its plugin and collection);
    ``folder``: :func:`skill_folder` of it, when the caller has it already."""
    namespace = namespace or Namespace()
    data = doc.data or {}
    name = name if name is not None else str(data["name"])
    root = os.path.abspath(doc.source.root)
    kind = doc.source.kind
    body, first_line = _body(doc)
    sections = tuple(split_sections(body, first_line=first_line))
    return SkillEntry(
        name=name,
        description=_text(data.get("description")),
        format=kind,
        path=relative_path(os.path.abspath(doc.source.path), root),
        sha256=doc.sha256,
        tags=_strings(data.get("tags") or data.get("domains")
                      or ([data["category"]] if kind == "skill-json" and "category" in data
                          else None)),
        version=_version(data),
        depends_on=_depends_on(data) if kind == "virtual" else (),
        title=_text(data.get("title")) or _first_heading(sections) or name,
        intents=_strings(data.get("intents", data.get("intent"))),
        applies_to=_strings(data.get("applies_to", data.get("appliesTo"))),
        compatibility=_compatibility(data.get("compatibility")),
        sections=sections,
        files=(folder or skill_folder(doc, root))[0],
        links=tuple(sorted({relative_path(path, root) for _, _, path in local_links(doc)
                            if path and _inside(path, root)})),
        metadata=plain(data),
        id=skill_id(name, namespace),
        collection=namespace.collection,
        plugin=namespace.plugin,
    )


def _body(doc: Document) -> tuple[str, int]:
    data = doc.data or {}
    if doc.source.kind == "skill-toml":
        additions = [a for a in data.get("prompt_additions") or [] if isinstance(a, str)]
        return "\n\n".join(additions), 1
    if doc.source.kind == "skill-json":
        return _manifest_body(data), 1
    return doc.body, doc.body_line


def _manifest_body(data: dict[str, Any]) -> str:
    parts = [f"# {data.get('name')}", "", _text(data.get("description"))]
    if isinstance(data.get("schema"), dict):
        parts += ["", "## Arguments", "", "```json",
                  json.dumps(data["schema"], indent=2, sort_keys=True), "```"]
    parts += ["", "## Execution", "",
              f"- class: {data.get('class', 'safe')}",
              f"- entry: {data.get('entry')}",
              f"- timeout: {data.get('timeout_seconds') or 30} s"]
    if data.get("env_allow"):
        parts.append(f"- environment: {', '.join(map(str, data['env_allow']))}")
    return "\n".join(parts)


def skill_folder(doc: Document, root: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(supporting files, folders listed) of a SKILL.md's or skill.json's folder, relative
    to the corpus root (see :mod:`skillsite.linter.supporting` for what is one)."""
    if doc.source.kind not in ("skill-md", "skill-json"):
        return (), ()
    found = supporting_of(doc)
    folder = os.path.dirname(os.path.abspath(doc.source.path))
    return (tuple(relative_path(os.path.join(folder, rel), root) for rel in found.files),
            tuple(relative_path(os.path.join(folder, rel) if rel else folder, root)
                  for rel in found.folders))


def plain(value: Any) -> Any:
    """``value`` with anything JSON cannot hold (TOML dates) turned into text."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    return value


def _depends_on(data: dict[str, Any]) -> tuple[str, ...]:
    refs: list[str] = []
    for key in DEPENDENCY_KEYS:
        refs += _strings(data.get(key))
    return tuple(name for ref in refs if (name := resolve_reference(ref)) is not None)


def _version(data: dict[str, Any]) -> str | None:
    version = data.get("version")
    metadata = data.get("metadata")
    if version is None and isinstance(metadata, dict):
        version = metadata.get("version")
    return None if version is None or isinstance(version, (dict, list)) else str(version)


def _compatibility(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return json.dumps(plain(value), sort_keys=True)
    return _text(value)


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return ()
    return tuple(str(v) for v in value if isinstance(v, (str, int, float)))


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _first_heading(sections: tuple[Section, ...]) -> str:
    return next((s.heading for s in sections if s.level == 1), "")


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root + os.sep)
