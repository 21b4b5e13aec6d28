"""What the build's worker processes make of each file: its cache record, and the skill's
content-store row and index terms (:func:`finish`), so the build process never holds
every skill.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from skillsite.builder.file_rows import file_rows, files_fingerprint
from skillsite.builder.records import (
    Cached,
    Dependency,
    content_fingerprint,
    dependency_state,
    problem_rows,
    stat_key,
)
from skillsite.builder.shapes import entry_of, index_doc, skill_folder
from skillsite.entries import SkillEntry
from skillsite.filenames import utf8
from skillsite.index.fields import field_terms
from skillsite.index.ranking_record import record_of_terms
from skillsite.linter.checker import FileResult, display_path
from skillsite.linter.discover import own_path
from skillsite.linter.rules.context import Context
from skillsite.models import ERROR, WITHHOLDING_RULES, Document, Source
from skillsite.semantic.model import Model
from skillsite.semantic.text import semantic_text
from skillsite.store.catalog import catalog_entry, record_json
from skillsite.store.content import ContentRow, FileRow, row_of
from skillsite.store.hits import HitRow, hit_row


@dataclass(frozen=True)
class Extracted:
    """What a build worker makes of one document, besides its problems."""

    entry: SkillEntry | None
    deps: list[Dependency]
    fingerprint: str | None
    #: The entry's search-index fields with their terms (:func:`~skillsite.index.fields.
    #: field_terms`), tokenized here so workers share that work.
    index_terms: dict[str, tuple[str, list[str]]] | None = None
    #: Of the file's bytes.
    sha256: str | None = None
    #: The skill's own file and supporting files, for the content store's ``files``.
    files: tuple[FileRow, ...] = ()


def extract(doc: Document, max_file_size: int, ctx: Context | None = None) -> Extracted:
    """The build's extractor for :func:`skillsite.linter.checker.check_files` (runs in
    workers; bind ``max_file_size`` and ``ctx`` with :func:`functools.partial`)."""
    name = loaded_name(doc)
    if name is None or not utf8(own_path(doc)):
        # Nothing of a path that is not valid UTF-8 can be written: file-not-published.
        return Extracted(None, [], None, sha256=doc.sha256)
    namespace = ctx.namespace_of(doc) if ctx is not None else None
    root = os.path.abspath(doc.source.root)
    listed = skill_folder(doc, root)
    entry = entry_of(doc, namespace, name, listed)
    files = file_rows(doc, entry, max_file_size)
    # Whether a link target or an entry script exists changes only with the listing of
    # its folder; the skill folder's listings decide the supporting files.
    watched = [os.path.dirname(os.path.join(root, link)) for link in entry.links]
    watched += [os.path.join(root, folder) for folder in listed[1]]
    entry_field = (doc.data or {}).get("entry")
    if doc.source.kind == "skill-json" and isinstance(entry_field, str):
        folder = os.path.dirname(os.path.abspath(doc.source.path))
        watched.append(os.path.dirname(os.path.normpath(os.path.join(folder, entry_field))))
    # The bytes of the supporting files are kept, so an edit in place (which leaves the
    # folder's mtime alone) must be seen: each file is a dependency too.
    watched += [os.path.join(root, path) for path in entry.files]
    watched += list(namespace.manifests) if namespace else []  # they decide the id
    deps = [(path, dependency_state(path)) for path in sorted(set(watched))]
    fingerprint = _hash(content_fingerprint(entry), files_fingerprint(files))
    return Extracted(entry, deps, fingerprint, field_terms(index_doc(entry)), doc.sha256,
                     files)


def loaded_name(doc: Document) -> str | None:
    """The name a client loads the skill by: its ``name``, or for a ``SKILL.md`` with
    front matter but no name its folder's name (as Claude Code falls back to); None when
    no client would load it."""
    data = doc.data
    if not isinstance(data, dict):
        return None
    name = data.get("name")
    if isinstance(name, str):
        return name
    if doc.source.kind == "skill-md" and name is None:
        folder = os.path.basename(os.path.dirname(os.path.abspath(doc.source.path)))
        return folder or None
    return None


def _hash(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()


@dataclass(frozen=True)
class Payload:
    """A skill's rows for the content store and its hits, and terms for the index, made in
    a worker."""

    name: str
    fingerprint: str
    content: ContentRow
    hit: HitRow
    #: The index's fields, ready for :meth:`~skillsite.index.base.IndexWriter.add_prepared`.
    index_fields: dict[str, str]
    files: tuple[FileRow, ...] = ()
    #: What the skill's vector is made from (:mod:`skillsite.semantic.text`), or, when the
    #: worker had the model, its token ids (:meth:`~skillsite.semantic.model.Model.token_ids`).
    semantic_text: str | bytes = ""


@dataclass(frozen=True)
class Built:
    """What a build worker sends back for one file: its cache record, and the skill's
    payload when it has one. The full entry stays in the worker."""

    key: str
    cached: Cached
    payload: Payload | None


def finish(source: Source, result: FileResult | None,
           prepare: Callable[[dict[str, str]], dict[str, str]] = dict,
           model: Model | None = None) -> Built:
    """The build's ``finish`` for :func:`skillsite.linter.checker.check_files` (runs in
    workers): ``prepare`` makes the index's fields (:meth:`~skillsite.index.base.Backend.
    prepare`), and with the embedding ``model`` the semantic text is tokenized here."""
    try:
        stat = stat_key(source.path)
    except OSError:  # vanished, or a broken link: never valid again
        stat = [0, 0, 0]
    key = display_path(source.path, source.root)
    if result is None:
        return Built(key, Cached.of(stat, [], None, False, found=False), None)
    extracted: Extracted | None = result.extracted
    entry = extracted.entry if extracted else None
    rows = problem_rows(result.problems, key)
    record = tuple(result.record) if result.record else None
    deps = extracted.deps if extracted else []
    sha256 = extracted.sha256 if extracted else None
    # The store keeps the file's own problems, so they are part of what it fingerprints.
    warnings = [[p.line, p.column, p.rule, p.message] for p in result.problems
                if p.severity != ERROR]
    everything = [[p.line, p.column, p.rule, p.severity, p.message] for p in result.problems]
    fingerprint = (_hash(extracted.fingerprint or "", repr(everything))
                   if extracted is not None and extracted.fingerprint else None)
    withheld = any(p.rule in WITHHOLDING_RULES for p in result.problems)
    if entry is not None:
        # A withheld skill is never in the catalog until it changes, and the cache is
        # published with dist/: its record must not carry what the catalog would (a
        # description holding the credential that withheld it).
        summary = problem_summary(result.problems)
        cached = Cached.of(
            stat, rows, record, result.is_skill, deps, name=entry.key, format=entry.format,
            graph=(list(entry.tags), list(entry.depends_on), list(entry.links)),
            fingerprint=fingerprint,
            catalog_json=None if withheld else record_json(
                catalog_entry(entry, summary, trust=result.trust)),
            sha256=sha256)
    else:
        cached = Cached.of(stat, rows, record, result.is_skill, deps, sha256=sha256)
    payload = None
    if entry is not None and extracted is not None and extracted.index_terms is not None \
            and not withheld:
        terms = extracted.index_terms
        hit = hit_row(entry.key, record_of_terms({field: pair[1] for field, pair in terms.items()}),
                      entry.format, entry.title, entry.description, list(entry.tags),
                      entry.name)
        problems = [[p.line, p.column, p.rule, p.message] for p in result.problems
                    if p.severity == ERROR]
        text = semantic_text(entry.name, entry.title, entry.description, entry.intents,
                             [(s.heading, s.text) for s in entry.sections])
        payload = Payload(entry.key, fingerprint or "",
                          row_of(entry, warnings, problems, summary, trust=result.trust), hit,
                          prepare({field: pair[0] for field, pair in terms.items()}),
                          extracted.files, text if model is None else model.token_ids(text))
    return Built(key, cached, payload)


def problem_summary(problems: list[Any]) -> dict[str, Any]:
    """What the catalog says of a skill's own problems: counts and the rule IDs."""
    errors = sorted({p.rule for p in problems if p.severity == ERROR})
    warned = sorted({p.rule for p in problems if p.severity != ERROR})
    return {"errors": sum(p.severity == ERROR for p in problems),
            "warnings": sum(p.severity != ERROR for p in problems),
            "rules": sorted({*errors, *warned})}


