"""Rules for ongrid ``skill.json`` subprocess-skill manifests."""
from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import jsonschema_rs

from skillsite.linter.rules.context import Context, text_field
from skillsite.linter.rules.registry import Finding, rule
from skillsite.models import Document


def _entry_path(doc: Document) -> Path | None:
    entry = text_field(doc, "entry")
    if not entry:
        return None
    return Path(os.path.abspath(doc.source.path.parent / entry))


def _escapes(path: Path, ctx: Context, doc: Document) -> bool:
    root = ctx.real_root(doc)
    real = Path(os.path.realpath(path))
    return real != root and root not in real.parents


@rule("entry-escapes-root", "error", formats=("skill-json",), family="security")
def entry_escapes_root(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    ``entry`` must stay inside the corpus root after resolving ``..`` and symlinks.

    ongrid resolves a relative ``entry`` against the folder of ``skill.json`` and refuses
    any entry that lands outside its allow-listed root; skillsite uses the corpus root as
    that allow-list. Absolute paths outside the root fail too.
    """
    path = _entry_path(doc)
    if path is not None and _escapes(path, ctx, doc):
        yield "/entry", (f"entry {text_field(doc, 'entry')!r} resolves outside the corpus "
                         "root; ship the executable inside the skill folder")


@rule("entry-missing", "error", formats=("skill-json",), family="manifest")
def entry_missing(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    ``entry`` must name a file that exists, relative to the folder of ``skill.json``.
    ongrid rejects a manifest whose entry is missing. (skillsite never runs it.)
    """
    path = _entry_path(doc)
    if path is None or _escapes(path, ctx, doc):
        return
    if not path.is_file():
        yield "/entry", (f"entry {text_field(doc, 'entry')!r} does not exist next to "
                         "skill.json; fix the path or add the file")


@rule("args-schema-invalid", "error", formats=("skill-json",), family="manifest")
def args_schema_invalid(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    ``schema``, the JSON Schema ongrid validates the skill's arguments with, must itself be
    a valid JSON Schema (checked against its declared ``$schema`` meta-schema, or the
    latest draft when it declares none). Only the standard drafts are known; skillsite
    never fetches a meta-schema or ``$ref`` over the network, so any other ``$schema``
    cannot be checked and is reported.

    Failing example::

        "schema": {"type": "objekt"}
    """
    schema = (doc.data or {}).get("schema")
    if not isinstance(schema, dict):
        return
    try:
        # An empty registry turns off retrieval: a manifest must not make us fetch URLs.
        jsonschema_rs.meta.validate(schema, registry=jsonschema_rs.Registry([]))
    except jsonschema_rs.ValidationError as exc:
        inner = "".join(f"/{p}" for p in exc.instance_path)
        yield f"/schema{inner}", f"args schema is not a valid JSON Schema: {exc.message}"
    except Exception as exc:  # unknown $schema and the like
        yield "/schema", f"args schema cannot be checked: {exc}"
