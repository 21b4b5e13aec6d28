"""The search bundle: Pagefind over trimmed pages.

Pagefind does not index the rendered pages: it indexes one small stub per skill (its
name, title, description, tags and headings), at the same URL as the skill's page. At 10k
skills this keeps the first query's download and the indexer's memory small (see the
README's figures). The site cache keeps the stubs in one file (``stubs.json``); a build
whose stubs are the previous build's keeps the previous bundle, and any other writes them
as pages in a temporary tree and runs the Pagefind binary (PyPI ``pagefind[extended]``)
over it as a subprocess.
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


def index_stubs(stubs: dict[str, str], folder: Path, output: Path) -> None:
    """Write ``stubs`` (slug -> HTML) as pages under ``folder``, a fresh temporary tree
    (the caller removes it), and index them into ``output`` with Pagefind."""
    shutil.rmtree(folder, ignore_errors=True)
    for slug, html in stubs.items():
        page = folder / "skills" / slug / "index.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(html, encoding="utf-8")
    run_pagefind(folder, output)


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
