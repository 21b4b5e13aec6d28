"""An incremental build's mkdocs run over a *view* of the docs tree.

mkdocs ``--dirty`` over the whole tree still lists, stats and wraps every one of its 10k+
files in Python objects (5-12 s at 10k skills) to render a handful of pages. Skill pages
do not depend on each other (they are not in the nav, and their links are HTML that
mkdocs does not rewrite: the sharded clean build relies on the same), so an incremental
build whose set of pages is the previous build's hands mkdocs a view (hard links) holding
only the pages that changed and every page that is not a skill page (the nav's pages,
tag and format pages, the canary, the user's own pages), renders it into a staging
folder, puts the security policy into those pages and moves them over the hard-linked
previous site. Every output is a new file moved in by ``os.replace``, so nothing is ever
written through a link into the previous build. The sitemap and 404 page stay the
previous build's: they only change when the set of pages does, and then the whole tree
is built with ``--dirty`` instead.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from skillsite.site.csp import CANARY, apply_policy, policy_meta, theme_hashes
from skillsite.site.mkdocs_run import run_mkdocs

#: What mkdocs writes that an incremental build keeps from the previous site: the theme's
#: assets (a new mkdocs, Material or configuration makes a clean build) and the pages
#: that only change with the set of pages.
KEPT = ("assets", "404.html", "sitemap.xml", "sitemap.xml.gz")


def view_paths(pages: dict[str, str], written: set[str]) -> list[str]:
    """The docs paths in the view: the skill pages written this time and every other
    page and asset (``pages``: every docs path of this build)."""
    return sorted(path for path in pages if path in written or not _is_skill_page(path))


def build_view(docs: Path, site: Path, staging: Path, paths: list[str],
               config: Path | None) -> tuple[list[str], int]:
    """Build the pages at ``paths`` of ``docs`` and move them into ``site`` (the previous
    site, hard-linked). Returns mkdocs' warnings and the number of files moved in."""
    view, output = staging / "docs", staging / "site"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        for path in paths:
            target = view / path
            target.parent.mkdir(parents=True, exist_ok=True)
            os.link(docs / path, target)
        warnings = run_mkdocs(view, output, config, dirty=False)
        canary = output / CANARY.replace("index.md", "index.html")
        apply_policy(output, policy_meta(theme_hashes(canary.read_text(encoding="utf-8"))))
        return warnings, _move_in(output, site)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _move_in(output: Path, site: Path) -> int:
    moved = 0
    for folder, dirs, names in os.walk(output):
        relative = os.path.relpath(folder, output)
        if relative == ".":
            dirs[:] = [d for d in dirs if d not in KEPT]
            names = [n for n in names if n not in KEPT]
        target = site if relative == "." else site / relative
        target.mkdir(parents=True, exist_ok=True)
        for name in names:
            os.replace(os.path.join(folder, name), target / name)
            moved += 1
    return moved


def _is_skill_page(path: str) -> bool:
    parts = path.split("/")
    return len(parts) == 3 and parts[0] == "skills" and parts[2] == "index.md"
