"""Keep secrets out of problem messages, and so out of every report and log.

A rule that quotes a value (``name 'sk-proj-...' does not match the file name``) would
otherwise print a credential that ``embedded-credential`` has just flagged, into CI logs,
SARIF uploads and the build cache. Two layers: every message loses anything shaped like a
token (the patterns of ``embedded-credential``), and a document's messages also lose the
literal values of its secret-named fields (``api_key: hunter2``).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

# The patterns belong to the rule that flags them; this module only reuses them.
from skillsite.linter.rules.fields import (
    _ANY_MARKER,
    _ANY_TOKEN,
    _ENV_REFERENCE,
    ROOT,
    _secret_key,
)
from skillsite.linter.rules.fields import _strings as strings_of

_KEEP = 4  # characters of a secret kept, so the reader can still tell which one it was


def _mask(secret: str) -> str:
    return secret[:_KEEP] + "…(redacted)" if len(secret) > 2 * _KEEP else "…(redacted)"


def redact(message: str, secrets: Iterable[str] = ()) -> str:
    """``message`` with every token-shaped substring and every one of ``secrets`` masked."""
    for secret in secrets:
        if secret in message:
            message = message.replace(secret, _mask(secret))
    if _ANY_MARKER.search(message):
        message = _ANY_TOKEN.sub(lambda found: _mask(found.group()), message)
    return message


def secrets_of(data: Any) -> list[str]:
    """The literal values of secret-named fields in ``data``, longest first."""
    found = {value for _, _, key, value in strings_of(data, "", ROOT)
             if key and _secret_key(key) and len(value) >= 4
             and not _ENV_REFERENCE().match(value)}
    return sorted(found, key=len, reverse=True)


