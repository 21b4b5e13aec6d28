"""Rules about which fields a document has and what they hold."""
from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache, lru_cache
from typing import Any

import ahocorasick_rs

from skillsite.linter.lazy import lazy
from skillsite.linter.pointer import child
from skillsite.linter.rules.context import Context, dialect
from skillsite.linter.rules.registry import Finding, rule
from skillsite.linter.schema import load_schema
from skillsite.models import Document


@cache
def known_fields(kind: str) -> frozenset[str]:
    """The top-level fields a format's schema describes."""
    return frozenset(load_schema(kind).get("properties", {}))


@cache
def dialect_of_field(kind: str) -> dict[str, tuple[str, ...]]:
    """The fields that only some dialects define (``x-skillsite-dialect``), with those."""
    return {key: tuple(spec["x-skillsite-dialect"])
            for key, spec in load_schema(kind).get("properties", {}).items()
            if isinstance(spec, dict) and "x-skillsite-dialect" in spec}


@rule("unknown-field", "warning", peers={"agnix": "CC-SK-017"})
def unknown_field(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    A top-level field that neither the format nor a known dialect defines.

    The Agent Skills specification lists six fields and is silent on others, and real
    corpora use many more, so this is a warning, never an error. Known dialect fields are
    accepted: Claude Code (``argument-hint``, ``disable-model-invocation``,
    ``user-invocable``, ``model``, ``when_to_use``, ...), oxo-flow and ongrid (``version``,
    ``activation``, ``tools``, ``config_section``) and Mini-A, but only in a file of that
    dialect: a top-level ``version:`` or ``type:`` in a plain ``SKILL.md`` is reported (it
    is outside the Agent Skills specification, and some clients refuse it on upload), and
    that dialect's value rules are not applied to it. The schemas in ``schemas/`` list
    them all. Accept your own with ``allow-fields = ["x-owner"]``. A ``$schema`` key,
    which points editors at a schema, is always accepted.
    """
    known = known_fields(doc.source.kind)
    only = dialect_of_field(doc.source.kind)
    here = dialect(doc) if only else ""
    for key in doc.data or {}:
        if key in ctx.config.allow_fields or key == "$schema":
            continue
        owners = only.get(key, ())
        if key not in known:
            yield doc.key_where(child("", key)), (
                f"unknown field {key!r}; if it is intended, add it to allow-fields in the "
                "configuration")
        elif owners and here not in owners:
            yield doc.key_where(child("", key)), (
                f"{key!r} is not an Agent Skills field (only {' and '.join(owners)} defines it, "
                f"and this file is not {owners[0]}); some clients refuse it on upload: move "
                "it under metadata:, or add it to allow-fields")


@rule("metadata-value-type", "warning", formats=("skill-md",))
def metadata_value_type(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    ``metadata`` should map string keys to string values (Agent Skills specification).

    Numbers and booleans are coerced by most loaders, so this is a warning. An
    ongrid-native ``SKILL.md`` nests maps in ``metadata`` by design and is exempt.

    Failing example::

        metadata:
          version: 1.0

    Passing example::

        metadata:
          version: "1.0"
    """
    metadata = (doc.data or {}).get("metadata")
    if not isinstance(metadata, dict) or dialect(doc) == "ongrid":
        return
    for key, value in metadata.items():
        if not isinstance(value, str):
            yield f"/metadata/{key}", (f"metadata value {key!r} should be a string, not "
                                       f"{type(value).__name__}; quote it")


_TOKEN_PATTERNS = [
    (re.compile(r"\bsk-(?:live-|proj-|ant-)?[A-Za-z0-9_-]{20,}"), "an API secret key"),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}"), "a GitHub token"),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{30,}"), "a GitHub token"),
    (re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"), "a Slack token"),
    (re.compile(r"\bAKIA[0-9A-Z]{16}\b"), "an AWS access key"),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"), "a Google API key"),
    (re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"), "a private key"),
    (re.compile(r"://[^/\s:@]+:[^/\s@]+@"), "a password in a URL"),
    (re.compile(r"[?&](?:access_token|api_key|apikey|token|secret|password|key)=[^&\s]+",
                re.IGNORECASE), "a credential in a URL query"),
]
# One pass over each value instead of one per pattern; the group name says which matched.
_ANY_TOKEN = re.compile("|".join(f"(?P<p{i}>{pattern.pattern})" if not pattern.flags & re.I
                                 else f"(?P<p{i}>(?i:{pattern.pattern}))"
                                 for i, (pattern, _) in enumerate(_TOKEN_PATTERNS)))
# Every match of a pattern above contains one of these; values without any skip the regex
# (10x cheaper). A GitHub token's marker is its whole prefix: "gh" alone stands in much
# prose ("through", "high").
_MARKERS = ("sk-", "github_pat_", "xox", "AKIA", "AIza", "PRIVATE KEY", "@", "?", "&")
#: The token of the whole document, for :func:`_strings`.
ROOT = object()
_ANY_MARKER = re.compile("|".join([*(re.escape(marker) for marker in _MARKERS),
                                   "gh[pousr]_"]))
#: The same markers for one pass over all of a document's values, which the regex engine,
#: trying the alternation at each character, reads several times slower.
_MARKER_AUTOMATON = ahocorasick_rs.AhoCorasick(
    [*_MARKERS, *(f"gh{letter}_" for letter in "pousr")])
_SECRET_KEYS = re.compile(r"^(?:.*[_-])?(?:token|api[_-]?key|password|passwd|secret|"
                          r"client[_-]secret|access[_-]key)$", re.IGNORECASE)
_ENV_REFERENCE = lazy(r"^\$\{?[A-Z_][A-Z0-9_]*\}?$|^env:", re.IGNORECASE)


@rule("embedded-credential", "error", family="security",
      peers={"agnix": "XP-SK-003", "skillsaw": "content-embedded-secrets"})
def embedded_credential(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    A token, key or password written into a manifest or front matter.

    oxo-flow's documentation says tokens never belong in a manifest: they come from the
    environment. skillsite looks for well-known token shapes (GitHub, Slack, AWS, Google,
    ``sk-`` keys, private keys), passwords in URLs (``https://user:pass@host``), credentials
    in URL queries (``?token=...``) and secret-named fields (``api_key``, ``password``,
    ``token``) holding a literal value. An environment reference such as ``${API_TOKEN}``
    is fine. The Markdown body is not scanned.

    Failing example::

        requires = ["https://bot:hunter2@tools.example.com/mcp"]
    """
    strings = list(_strings(doc.data or {}, "", ROOT))
    # One search of all the values (no marker holds a line break) settles most documents.
    try:
        marked = bool(_MARKER_AUTOMATON.find_matches_as_indexes(
            "\n".join([value for _, _, _, value in strings])))
    except UnicodeEncodeError:  # a lone surrogate (a YAML escape), which it cannot read
        marked = True  # each value is searched
    for parent, token, key, value in strings:
        found = _ANY_TOKEN.search(value) if marked and _ANY_MARKER.search(value) else None
        if found:
            what = _TOKEN_PATTERNS[int(found.lastgroup[1:])][1]  # type: ignore[index]
            yield _pointer(parent, token), (f"value looks like {what}; load secrets from the "
                                            "environment")
        else:
            if key and _secret_key(key) and value and not _ENV_REFERENCE().match(value):
                yield _pointer(parent, token), (f"field {key!r} holds a literal secret; "
                                                "reference an environment variable instead")


def _strings(value: Any, parent: str, token: object,
             key: str = "") -> Iterator[tuple[str, object, str, str]]:
    """Every string inside ``value`` as ``(parent pointer, token, key, string)``: the
    pointer itself is only built for the few strings that are reported."""
    if isinstance(value, str):
        yield parent, token, key, value
    elif isinstance(value, dict):
        pointer = _pointer(parent, token)
        for child_key, value_ in value.items():
            if isinstance(value_, str):  # the usual case, without a generator per value
                yield pointer, child_key, str(child_key), value_
            else:
                yield from _strings(value_, pointer, child_key, str(child_key))
    elif isinstance(value, list):
        pointer = _pointer(parent, token)
        for index, item in enumerate(value):
            yield from _strings(item, pointer, index, key)


def _pointer(parent: str, token: object) -> str:
    return parent if token is ROOT else child(parent, token)


@lru_cache(maxsize=256)
def _secret_key(key: str) -> bool:
    """Whether ``key`` names a secret (the same few keys come back in every document)."""
    return _SECRET_KEYS.match(key) is not None
