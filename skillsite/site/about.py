"""What the home page says the corpus is: its name and a description, from the site's
configuration (a ``site_name`` of your own in ``--mkdocs-config``), else the corpus's
``.claude-plugin/marketplace.json``, else its README (first heading and paragraph), else
the repository's or folder's name. Read as plain files at the corpus root, never
followed out of it; every value is text (escaped where it is shown)."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillsite.site.cards import short

#: The packaged configuration's site_name: not a name the user chose.
DEFAULT_NAME = "Skills catalog"
MAX_BYTES = 256 * 1024
MAX_NAME = 80
MAX_DESCRIPTION = 300
_FORGE = re.compile(r"(?:github\.com|gitlab\.com|codeberg\.org|bitbucket\.org)[:/]"
                    r"([\w.-]+/[\w.-]+?)(?:\.git)?/?$")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_TAG = re.compile(r"<[^>]*>")
_H1_HTML = re.compile(r"<h1[^>]*>(.*?)</h1>", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class About:
    name: str
    description: str = ""
    #: Where the name came from: configuration, marketplace, readme, repository or folder.
    source: str = "folder"


def about_corpus(root: Path, *, site_name: str = "", site_description: str = "",
                 remote: str = "") -> About:
    """The corpus's name and description (``site_name``/``site_description``: the
    site's configuration; ``remote``: the URL of its git remote, if any)."""
    readme_name, readme_text = _readme(root)
    market = _marketplace(root)
    description = short(site_description or _string(market, "description")
                        or _string(market.get("metadata"), "description") or readme_text,
                        MAX_DESCRIPTION)
    if site_name and site_name != DEFAULT_NAME:
        return About(short(site_name, MAX_NAME), description, "configuration")
    if _string(market, "name"):
        return About(short(_string(market, "name"), MAX_NAME), description, "marketplace")
    if readme_name:
        return About(short(readme_name, MAX_NAME), description, "readme")
    found = _FORGE.search(remote.strip())
    if found:
        return About(found.group(1), description, "repository")
    return About(root.resolve().name or "Skills", description, "folder")


def _marketplace(root: Path) -> dict[str, Any]:
    data = _read(root / ".claude-plugin" / "marketplace.json", root)
    try:
        found = json.loads(data) if data else {}
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def _readme(root: Path) -> tuple[str, str]:
    """(the README's first heading, its first paragraph of prose) as plain text."""
    text = ""
    for name in ("README.md", "readme.md", "README.markdown", "README"):
        text = _read(root / name, root)
        if text:
            break
    html_heading = _H1_HTML.search(text)
    heading = _plain(html_heading.group(1)) if html_heading else ""
    paragraph = ""
    for block in re.split(r"\n\s*\n", text):
        lines = block.strip().splitlines()
        if not lines:
            continue
        first = lines[0].lstrip()
        if first.startswith("# ") and not heading:
            heading = _plain(first[2:])
            lines = lines[1:]
            first = lines[0].lstrip() if lines else ""
        if not paragraph and first and not first.startswith(("#", "<", ">", "[!", "![", "|",
                                                              "-", "*", "```", "[![")):
            paragraph = _plain(" ".join(lines))
        if heading and paragraph:
            break
    return heading, paragraph


def _read(path: Path, root: Path) -> str:
    """A regular file's text under the corpus root, or "": never through a link, the
    file's or a folder's on the way (a symlinked ``.claude-plugin/`` could lead out)."""
    try:
        if path.resolve() != root.resolve() / path.relative_to(root) or not path.is_file():
            return ""
        with open(path, "rb") as handle:
            return handle.read(MAX_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _plain(markdown: str) -> str:
    text = _TAG.sub("", _LINK.sub(r"\1", markdown))
    return " ".join(text.replace("**", "").replace("`", "").split())


def _string(data: Any, key: str) -> str:
    value = data.get(key) if isinstance(data, dict) else None
    return " ".join(value.split()) if isinstance(value, str) else ""


