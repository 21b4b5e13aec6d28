"""The search bundle: Pagefind over trimmed pages.

Pagefind does not index the rendered pages: it indexes one small stub per skill (its
name, title, description, tags and headings), at the same URL as the skill's page. At 10k
skills this keeps the first query's download and the indexer's memory small (see the
README's figures). Stubs live in the site cache and only those that changed are rewritten;
the Pagefind binary (PyPI ``pagefind[extended]``) runs as a subprocess.
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
from skillsite.site.writing import write_if_changed

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


def write_stubs(folder: Path, stubs: dict[str, str]) -> bool:
    """``stubs`` (slug -> HTML) into ``folder``, removing those of skills that are gone.
    Returns whether any stub was written or removed."""
    skills = folder / "skills"
    skills.mkdir(parents=True, exist_ok=True)
    changed = False
    for slug, html in stubs.items():
        changed |= write_if_changed(skills / slug / "index.html", html)
    for old in skills.iterdir():
        if old.name not in stubs:
            shutil.rmtree(old, ignore_errors=True)
            changed = True
    return changed


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
