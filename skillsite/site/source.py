"""Where the corpus came from: the repository and commit of a git checkout, read from
``.git`` as files, so that rendering needs no git (the build's provenance, which does run
git read-only, is ``skillsite/builder/provenance.py``)."""
from __future__ import annotations

import re
from pathlib import Path

from skillsite.urls import without_credentials

_URL = re.compile(r'^\s*url\s*=\s*(\S+)\s*$', re.MULTILINE)


def repository_of(root: Path) -> tuple[str, str]:
    """(remote URL of ``origin`` or the first remote, commit) or empty strings."""
    for folder in (root, *root.parents):
        git = folder / ".git"
        if git.is_dir():
            return _remote(git), _commit(git)
    return "", ""


def _remote(git: Path) -> str:
    try:
        config = (git / "config").read_text(encoding="utf-8", errors="replace")[:65536]
    except OSError:
        return ""
    origin = config.find('[remote "origin"]')
    found = _URL.search(config, origin if origin >= 0 else 0)
    return without_credentials(found.group(1)) if found else ""


def _commit(git: Path) -> str:
    try:
        head = (git / "HEAD").read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return ""
    if not head.startswith("ref: "):
        return head if re.fullmatch(r"[0-9a-f]{40,64}", head) else ""
    ref = head[5:].strip()
    if ".." in ref:
        return ""
    try:
        value = (git / ref).read_text(encoding="ascii", errors="replace").strip()
        return value if re.fullmatch(r"[0-9a-f]{40,64}", value) else ""
    except OSError:
        pass
    try:
        packed = (git / "packed-refs").read_text(encoding="ascii", errors="replace")
    except OSError:
        return ""
    for line in packed.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1] == ref and re.fullmatch(r"[0-9a-f]{40,64}", parts[0]):
            return parts[0]
    return ""


_GITHUB = re.compile(r"^(?:https://|ssh://git@|git@)github\.com[:/]"
                     r"([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+?)(?:\.git)?/?$")
_HTTPS = re.compile(r"^https://[A-Za-z0-9.-]+(?::\d+)?/[A-Za-z0-9_./~-]+$")


def repo_ref(remote: str) -> str:
    """What ``/plugin marketplace add`` and ``npx skills add`` take for a repository:
    ``OWNER/REPO`` on GitHub, the URL of another https remote, else "" (a local path or
    an ssh remote elsewhere means nothing to a reader of the site)."""
    found = _GITHUB.match(remote)
    if found:
        return found.group(1)
    return remote if _HTTPS.match(remote) else ""
