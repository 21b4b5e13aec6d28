"""The ``skill://`` URIs of a skill's files. They are made and parsed in
:mod:`skillsite.reader.uris`, since the reader accepts them as refs too; the MCP faces use
them from here."""
from __future__ import annotations

from skillsite.reader.uris import (
    ECHO_CHARS,
    PATH_SAFE,
    SCHEME,
    file_uri,
    id_candidates,
    mime_type,
    parse_directory,
    resolve,
    skill_md_uri,
    skill_name,
    skill_path,
)

__all__ = ["ECHO_CHARS", "PATH_SAFE", "SCHEME", "file_uri", "id_candidates", "mime_type",
           "parse_directory", "resolve", "skill_md_uri", "skill_name", "skill_path"]
