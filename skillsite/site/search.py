"""The search bundle: Pagefind over trimmed pages.

Pagefind does not index the rendered pages: it indexes one small stub per skill (its
name, title, description, tags and headings), at the same URL as the skill's page. At 10k
skills this keeps the first query's download and the indexer's memory small (see the
README's figures). The site cache keeps the stubs in one file (``stubs.json``) and as a tree of pages
(``stubs/``, hard links to the previous build's but for the stubs that changed). A build
whose stubs are the previous build's keeps the previous bundle; any other runs the
Pagefind binary (PyPI ``pagefind[extended]``) over the tree as a subprocess. (Pagefind has
no incremental mode: it indexes the 10k stubs again, 4-9 s here, beside the rest of the
build.)
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from skillsite.site.data import SiteSkill
from skillsite.site.mkdocs_run import SiteError
from skillsite.site.sanitize import text
from skillsite.site.writing import link_tree, write_new

PAGEFIND_TIMEOUT = 1800


def stub(skill: SiteSkill, headings: list[str]) -> str:
    """The trimmed page Pagefind indexes for ``skill``."""
    heads = "".join(f"<h2>{text(h)}</h2>" for h in headings[:40])
    tags = f"<p>{text(' '.join(skill.tags))}</p>" if skill.tags else ""
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{text(skill.name)}</title></head><body><main data-pagefind-body>"
            f"<h1 data-pagefind-meta=\"title\">{text(skill.name)}</h1>"
            f"<p>{text(skill.title)}</p><p>{text(skill.description)}</p>{tags}{heads}"
            "</main></body></html>")


def update_stubs(folder: Path, stubs: dict[str, str], known: dict[str, str],
                 previous: Path | None) -> None:
    """Make ``folder`` the tree of ``stubs`` (slug -> HTML) Pagefind indexes: a tree of
    hard links to ``previous`` (the previous build's, whose stubs were ``known``) in
    which only the stubs that changed are written again (as new files) and those that
    are gone removed. Without a previous tree every stub is written."""
    if previous is not None and previous.is_dir():
        link_tree(previous, folder)
    else:
        known = {}
    for slug, html in stubs.items():
        if known.get(slug) != html:
            write_new(folder / "skills" / slug / "index.html", html.encode("utf-8"))
    for slug in known.keys() - stubs.keys():
        shutil.rmtree(folder / "skills" / slug, ignore_errors=True)


def run_pagefind(stubs: Path, output: Path) -> None:
    """Index ``stubs`` into ``output`` (the site's ``pagefind/`` folder)."""
    shutil.rmtree(output, ignore_errors=True)
    command = [sys.executable, "-m", "pagefind", "--site", str(stubs), "--output-path",
               str(output), "--force-language", "en", "--silent"]
    try:
        done = subprocess.run(command, capture_output=True, text=True,
                              timeout=PAGEFIND_TIMEOUT, env={**os.environ, "NO_COLOR": "1"})
    except (OSError, subprocess.TimeoutExpired) as error:
        raise SiteError(f"the search index (Pagefind) could not run: {error}; install "
                        "`pagefind[extended]`, or pass --no-site") from None
    if done.returncode != 0 or not (output / "pagefind-ui.js").is_file():
        detail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise SiteError("the search index (Pagefind) failed: " + " / ".join(detail)
                        + "; dist/ was not changed")
