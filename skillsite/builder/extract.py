"""What the build's worker processes make of each file: its cache record, and the skill's
content-store row and index terms (:func:`finish`), so the build process never holds
every skill.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from skillsite.builder.entries import entry_of, index_doc, skill_folder
from skillsite.builder.files import file_rows, files_fingerprint
from skillsite.builder.records import (
    Cached,
    Dependency,
    content_fingerprint,
    dependency_state,
    problem_rows,
    stat_key,
)
from skillsite.index.fields import field_texts
from skillsite.index.ranking_record import record_of
from skillsite.linter.checker import FileResult, display_path
from skillsite.models import ERROR, Document, SkillEntry, Source
from skillsite.store.catalog import catalog_entry, record_json
from skillsite.store.content import ContentRow, FileRow, row_of
from skillsite.store.hits import HitRow, hit_row


@dataclass(frozen=True)
class Extracted:
    """What a build worker makes of one document, besides its problems."""

    entry: SkillEntry | None
    deps: list[Dependency]
    fingerprint: str | None
    #: The entry's search-index fields, tokenized here so workers share that work.
    index_fields: dict[str, str] | None = None
    #: Of the file's bytes.
    sha256: str | None = None
    #: The skill's own file and supporting files, for the content store's ``files``.
    files: tuple[FileRow, ...] = ()


def extract(doc: Document, max_file_size: int) -> Extracted:
    """The build's extractor for :func:`skillsite.linter.checker.check_files` (runs in
    workers; bind ``max_file_size`` with :func:`functools.partial`)."""
    if not isinstance((doc.data or {}).get("name"), str):
        return Extracted(None, [], None, sha256=doc.sha256)
    entry = entry_of(doc)
    files = file_rows(doc, entry, max_file_size)
    root = os.path.abspath(doc.source.root)
    # Whether a link target or an entry script exists changes only with the listing of
    # its folder; the skill folder's listings decide the supporting files.
    watched = [os.path.dirname(os.path.join(root, link)) for link in entry.links]
    watched += [os.path.join(root, folder) for folder in skill_folder(doc, root)[1]]
    entry_field = (doc.data or {}).get("entry")
    if doc.source.kind == "skill-json" and isinstance(entry_field, str):
        folder = os.path.dirname(os.path.abspath(doc.source.path))
        watched.append(os.path.dirname(os.path.normpath(os.path.join(folder, entry_field))))
    # The bytes of the supporting files are kept, so an edit in place (which leaves the
    # folder's mtime alone) must be seen: each file is a dependency too.
    watched += [os.path.join(root, path) for path in entry.files]
    deps = [(path, dependency_state(path)) for path in sorted(set(watched))]
    fingerprint = _hash(content_fingerprint(entry), files_fingerprint(files))
    return Extracted(entry, deps, fingerprint, field_texts(index_doc(entry)), doc.sha256,
                     files)


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
    index_fields: dict[str, str]
    files: tuple[FileRow, ...] = ()


@dataclass(frozen=True)
class Built:
    """What a build worker sends back for one file: its cache record, and the skill's
    payload when it has one. The full entry stays in the worker."""

    key: str
    cached: Cached
    payload: Payload | None


def finish(source: Source, result: FileResult | None) -> Built:
    """The build's ``finish`` for :func:`skillsite.linter.checker.check_files` (runs in workers)."""
    try:
        stat = stat_key(source.path)
    except OSError:  # vanished, or a broken link: never valid again
        stat = [0, 0, 0]
    key = display_path(source.path, source.root)
    if result is None:
        return Built(key, Cached(stat, [], None, False, found=False), None)
    extracted: Extracted | None = result.extracted
    entry = extracted.entry if extracted else None
    cached = Cached(stat, problem_rows(result.problems, key),
                    tuple(result.record) if result.record else None,
                    result.is_skill, extracted.deps if extracted else [],
                    sha256=extracted.sha256 if extracted else None)
    # The store keeps the file's own warnings, so they are part of what it fingerprints.
    warnings = [[p.line, p.column, p.rule, p.message] for p in result.problems
                if p.severity != ERROR]
    fingerprint = (_hash(extracted.fingerprint or "", repr(warnings))
                   if extracted is not None and extracted.fingerprint else None)
    if entry is not None:
        # A file with errors of its own is never in the catalog until it changes, and the
        # cache is published with dist/: its record must not carry what the catalog would
        # (a description holding the credential that made it an error).
        own_error = any(p.severity == ERROR for p in result.problems)
        cached = cached._replace(
            name=entry.name, format=entry.format,
            graph=(list(entry.tags), list(entry.depends_on), list(entry.links)),
            fingerprint=fingerprint,
            catalog_json=None if own_error else record_json(catalog_entry(entry)))
    payload = None
    if entry is not None and extracted is not None and extracted.index_fields is not None:
        hit = hit_row(entry.name, record_of(extracted.index_fields), entry.format,
                      entry.title, entry.description, list(entry.tags))
        payload = Payload(entry.name, fingerprint or "", row_of(entry, warnings), hit,
                          extracted.index_fields, extracted.files)
    return Built(key, cached, payload)


