"""The ``skill://`` URIs of a skill's files, made and parsed in this one place from the
reader's key of a skill (today its name: ``skill://<name>/SKILL.md``).

Templates, ``resources/list``, ``skills/list`` and directory reads all use these, so that
a change of keys (a ``<plugin>:<name>`` id, a path whose last segment is the name) is a
change here."""
from __future__ import annotations

import mimetypes
import re
from urllib.parse import quote, unquote

SCHEME = "skill://"
ECHO_CHARS = 200  # of a client's string quoted back in an error
# RFC 3986 pchar and "/", left as they are in a file's URI.
PATH_SAFE = "/!$&'()*+,;=:@~"
SKILL_URI = re.compile(r"skill://([^/]+)/SKILL\.md")
TEXT_TYPES = {".md": "text/markdown", ".toml": "application/toml", ".json": "application/json",
              ".yaml": "application/yaml", ".yml": "application/yaml"}


def skill_md_uri(key: str) -> str:
    """The URI of the SKILL.md of the skill the reader knows as ``key``."""
    return f"{SCHEME}{quote(key, safe=PATH_SAFE.replace('/', ''))}/SKILL.md"


def file_uri(key: str, path: str) -> str:
    """The resource URI of a skill's file, its path percent-encoded where a URI needs it
    (spaces, ``#``, ``%``, non-ASCII); the resource template decodes it back."""
    return f"{SCHEME}{quote(key, safe=PATH_SAFE.replace('/', ''))}/{quote(path, safe=PATH_SAFE)}"


def skill_name(uri: str) -> str | None:
    """The skill key in ``skill://<key>/SKILL.md``, or None for any other URI."""
    match = SKILL_URI.fullmatch(uri)
    return unquote(match.group(1)) if match else None


def parse_directory(uri: str) -> tuple[str, str] | None:
    """(skill key, folder inside it, "" for the root) of a directory URI, or None when
    ``uri`` is not a ``skill://`` URI."""
    if not uri.startswith(SCHEME):
        return None
    key, _, folder = uri[len(SCHEME):].partition("/")
    return unquote(key), unquote(folder).strip("/")


def mime_type(uri: str) -> str:
    """The MIME type a file's name implies; text/plain when unknown."""
    suffix = uri[uri.rfind("."):].lower() if "." in uri.rsplit("/", 1)[-1] else ""
    return TEXT_TYPES.get(suffix) or mimetypes.guess_type("f" + suffix)[0] or "text/plain"
