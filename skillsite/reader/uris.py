"""The ``skill://`` URIs of a skill's files, made and parsed in this one place from the
reader's key of a skill, its id: ``skill://<id with ":" as "/">/SKILL.md``, so that the
last segment is the skill's name (SEP-2640): ``skill://telegram/access/SKILL.md``.

The MCP server's templates, ``resources/list``, ``skills/list`` and directory reads use
these, and the reader accepts such a URI as a ref (``read skill://pdf/forms.md``), so that
a change of keys (a ``<plugin>:<name>`` id, a path whose last segment is the name) is a
change here."""
from __future__ import annotations

import mimetypes
import re
from collections.abc import Callable
from urllib.parse import quote, unquote

SCHEME = "skill://"
ECHO_CHARS = 200  # of a client's string quoted back in an error
# RFC 3986 pchar and "/", left as they are in a file's URI.
PATH_SAFE = "/!$&'()*+,;=:@~"
SKILL_URI = re.compile(r"skill://(.+)/SKILL\.md")
TEXT_TYPES = {".md": "text/markdown", ".toml": "application/toml", ".json": "application/json",
              ".yaml": "application/yaml", ".yml": "application/yaml"}


def skill_path(key: str) -> str:
    """A skill id as URI segments (``telegram:access`` is ``telegram/access``), each
    percent-encoded."""
    return "/".join(quote(part, safe=PATH_SAFE.replace("/", "").replace(":", ""))
                    for part in key.replace(":", "/").split("/"))


def skill_md_uri(key: str) -> str:
    """The URI of the SKILL.md of the skill the reader knows as ``key``."""
    return f"{SCHEME}{skill_path(key)}/SKILL.md"


def file_uri(key: str, path: str) -> str:
    """The resource URI of a skill's file, its path percent-encoded where a URI needs it
    (spaces, ``#``, ``%``, non-ASCII); the resource template decodes it back."""
    return f"{SCHEME}{skill_path(key)}/{quote(path, safe=PATH_SAFE)}"


def skill_name(uri: str) -> str | None:
    """The skill's URI path in ``skill://<path>/SKILL.md`` (``telegram/access``), or
    None for any other URI; :func:`resolve` turns it into an id."""
    match = SKILL_URI.fullmatch(uri)
    return unquote(match.group(1)) if match else None


def id_candidates(path: str) -> list[str]:
    """The ids a URI path may stand for, most likely first: ``a/b`` is ``a:b`` (plugin
    ``a``) or ``a/b`` (collection ``a``); ``a/b/c`` may also be ``a/b:c``."""
    head, _, last = path.rpartition("/")
    found = [f"{head.rpartition('/')[0]}/{head.rpartition('/')[2]}:{last}".lstrip("/"), path] \
        if head else [path]
    return list(dict.fromkeys(found))


def resolve(exists: Callable[[str], bool], path: str) -> tuple[str, str] | None:
    """(skill id, file path in the skill) for ``<skill path>/<file path>``: the longest
    leading segments that name a skill (``exists`` says which ids do). None when none
    does."""
    segments = path.split("/")
    for cut in range(min(len(segments) - 1, 6), 0, -1):
        for candidate in id_candidates("/".join(segments[:cut])):
            if exists(candidate):
                return candidate, "/".join(segments[cut:])
    return None


def parse_directory(uri: str, exists: Callable[[str], bool] | None = None
                    ) -> tuple[str, str] | None:
    """(skill key, folder inside it, "" for the root) of a directory URI, or None when
    ``uri`` is not a ``skill://`` URI. With ``exists``, a key of several segments (a
    plugin's or a collection's skill) is found as :func:`resolve` does."""
    if not uri.startswith(SCHEME):
        return None
    rest = unquote(uri[len(SCHEME):]).strip("/")
    if exists is not None:
        found = resolve(exists, rest + "/")
        if found is not None:
            return found[0], found[1].strip("/")
    key, _, folder = rest.partition("/")
    return key, folder.strip("/")


def mime_type(uri: str) -> str:
    """The MIME type a file's name implies; text/plain when unknown."""
    suffix = uri[uri.rfind("."):].lower() if "." in uri.rsplit("/", 1)[-1] else ""
    return TEXT_TYPES.get(suffix) or mimetypes.guess_type("f" + suffix)[0] or "text/plain"


def parse_ref(uri: str, exists: Callable[[str], bool]) -> tuple[str, str]:
    """(skill id or bare name, file path in the skill, "" for the skill itself) that a
    ``skill://`` ref names: ``skill://<path>/SKILL.md`` and ``skill://<path>`` are the
    skill, ``skill://<path>/<file>`` one of its files. A path that names no id whole is
    taken as a bare name with what follows as the file (``skill://pdf/forms.md``)."""
    rest = unquote(uri[len(SCHEME):]).strip("/")
    for candidate in id_candidates(rest):
        if exists(candidate):
            return candidate, ""
    found = resolve(exists, rest)
    if found is None:
        key, _, file = rest.partition("/")
    else:
        key, file = found
    return key, "" if file == "SKILL.md" else file
