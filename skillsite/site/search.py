"""The search: Pagefind over trimmed pages, in bundles that an edit re-indexes one at a time.

Pagefind does not index the rendered pages: it indexes one small stub per skill (its
name, title, description, tags and headings), at the same URL as the skill's page. At 10k
skills this keeps the first query's download and the indexer's memory small (see the figures in
docs/performance.md).

Pagefind has no incremental mode, so the stubs are split into :data:`BUNDLES` bundles by
a stable hash of the skill's slug, each indexed by its own Pagefind run into
``pagefind/<n>/``; the browser joins them with Pagefind UI's ``mergeIndex`` (the merged
bundles share the first bundle's WebAssembly, so each costs the browser only its entry,
metadata and the chunks a query needs). An edit re-indexes only the bundles whose stubs
changed; the others are the previous build's, linked. The site cache keeps the stubs in
one file (``stubs.json``); those of the bundles to index are written as pages,
``<n>/skills/<slug>/index.html``, into a scratch folder that is removed after Pagefind (a
tree of every stub kept in the cache cost 10k hard links on every build). The Pagefind
binary (PyPI ``pagefind[extended]``) is run directly, as a subprocess.
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from skillsite.linter.children import dies_with_parent
from skillsite.site.data import SiteSkill
from skillsite.site.mkdocs_run import SiteError
from skillsite.site.sanitize import text
from skillsite.site.stopping import Stop
from skillsite.site.writing import link_tree, remove_tree, write_files

PAGEFIND_TIMEOUT = 1800
#: How many bundles the stubs are hashed into (empty ones are not built). Measured at 10k
#: skills: 1, 4, 8 and 16 bundles download 195, 244, 307 and 438 KB for a first query,
#: and the first result took 0.9 s up to 8 (the merges overlap the UI's own loading), 1.4 s
#: at 16 (the UI merges bundles one after another).
BUNDLES = 8


#: Pagefind's weight of each part of a stub (0-10; a heading would be 7 to 2 by its level,
#: other text 1). As the reader ranks: the name first, then the title, the description
#: and the tags; the body's headings least.
WEIGHTS = {"name": 10.0, "words": 10.0, "title": 7.0, "description": 5.0, "tags": 3.0,
           "headings": 1.0}
#: Where the site's script finds the search bundles (a file the docs tree carries).
MANIFEST = "assets/skillsite/search.json"


def stub(skill: SiteSkill, headings: list[str]) -> str:
    """The trimmed page Pagefind indexes for ``skill``: the name (also as words, so
    ``slack`` finds ``slack-automation``), the title, the description (also the result's
    excerpt, as meta), the tags and the headings, each weighted as the reader weighs it."""
    def part(kind: str, value: str, tag: str = "p", meta: str = "") -> str:
        extra = f' data-pagefind-meta="{meta}"' if meta else ""
        return (f'<{tag} data-pagefind-weight="{WEIGHTS[kind]}"{extra}>{text(value)}'
                f"</{tag}>")

    words = " ".join(re.split(r"[-_:/.]+", skill.name)).strip()
    parts = [part("name", skill.name, "h1", "title")]
    if words and words != skill.name:
        parts.append(part("words", words))
    if skill.title and skill.title != skill.name:
        parts.append(part("title", skill.title))
    parts.append(part("description", skill.description, meta="description"))
    if skill.tags:
        parts.append(part("tags", " ".join(skill.tags)))
    if headings:
        parts.append(part("headings", " · ".join(headings[:40])))
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{text(skill.name)}</title></head><body><main data-pagefind-body>"
            f"{''.join(parts)}</main></body></html>")


def manifest(slugs: list[str]) -> str:
    """What the site's script reads before a first query: the bundles to merge."""
    return json.dumps({"bundles": bundles_of(slugs)})


def bundle_of(slug: str) -> str:
    """The bundle (a folder name under ``pagefind/``) that indexes the skill ``slug``."""
    digest = hashlib.sha256(slug.encode("utf-8")).digest()
    return str(int.from_bytes(digest[:4], "big") % BUNDLES)


def bundles_of(slugs: list[str]) -> list[str]:
    """The bundles that index ``slugs``, the first one first (it holds Pagefind's UI)."""
    return sorted({bundle_of(slug) for slug in slugs}, key=int)


def place(stubs: dict[str, str]) -> dict[str, str]:
    """``stubs`` (slug -> HTML) keyed by their bundle too, ``bundle/slug``."""
    return {f"{bundle_of(slug)}/{slug}": html for slug, html in stubs.items()}


def changed_bundles(stubs: dict[str, str], known: dict[str, str]) -> set[str]:
    """The bundles whose stubs (``bundle/slug`` -> HTML) are not those ``known``."""
    changed = {key.split("/", 1)[0] for key in stubs.keys() ^ known.keys()}
    changed |= {key.split("/", 1)[0] for key in stubs.keys() & known.keys()
                if stubs[key] != known[key]}
    return changed


def build_bundles(stubs: dict[str, str], scratch: Path, output: Path, bundles: list[str],
                  stale: set[str], previous: Path | None, *, link: bool = True,
                  decided: Callable[[], None] = lambda: None, stop: Stop | None = None
                  ) -> None:
    """Each bundle of ``bundles`` into ``output/<bundle>``: those in ``stale`` (or missing
    from ``previous``, the previous build's ``pagefind/``) indexed by Pagefind from their
    stubs (``bundle/slug`` -> HTML) written as pages under ``scratch`` (removed after),
    the others linked from ``previous`` (or, without ``link``, left out: the previous
    site moves into the build with them). ``decided`` is called once ``previous`` has
    been looked at. Once ``stop`` is set, no further Pagefind run starts and the one
    running is killed (:class:`~skillsite.site.stopping.Stopped` is raised; ``scratch`` is
    left to whoever removes the build's folder)."""
    stop = stop or Stop()
    kept = {b for b in bundles if b not in stale and previous is not None
            and (previous / b / "pagefind-entry.json").is_file()}
    output.mkdir(parents=True, exist_ok=True)
    if kept and previous is not None and link:
        link_tree(previous, output, tuple(sorted(set(os.listdir(previous)) - kept)))
    decided()
    try:
        write_files((str(_stub_path(scratch, key)), html.encode("utf-8"))
                    for key, html in stubs.items() if key.split("/", 1)[0] not in kept)
        for bundle in bundles:
            if bundle not in kept:
                run_pagefind(scratch / bundle, output / bundle, stop)
    finally:
        if not stop.is_set():
            remove_tree(scratch)


def run_pagefind(stubs: Path, output: Path, stop: Stop | None = None) -> None:
    """Index ``stubs`` into ``output`` (one bundle); ``stop`` kills the run."""
    shutil.rmtree(output, ignore_errors=True)
    command = [*_pagefind_command(), "--site", str(stubs), "--output-path", str(output),
               "--force-language", "en", "--silent"]
    try:
        done = (stop or Stop()).run(command, timeout=PAGEFIND_TIMEOUT,
                                    env={**os.environ, "NO_COLOR": "1"},
                                    preexec_fn=dies_with_parent())  # noqa: PLW1509 (no locks taken)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise SiteError(f"the search index (Pagefind) could not run: {error}; install "
                        "`pagefind[extended]`, or pass --no-site") from None
    if done.returncode != 0 or not (output / "pagefind-ui.js").is_file():
        detail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        said = " ".join(detail)
        if "os error 28" in said or "No space left" in said:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(output))
        raise SiteError("the search index (Pagefind) failed: " + " / ".join(detail)
                        + "; dist/ was not changed")


@lru_cache(maxsize=1)
def _pagefind_command() -> tuple[str, ...]:
    """Pagefind's binary itself (``python -m pagefind`` costs 0.4 s more a run, in
    Python starting up and importing Pagefind's Python API), or ``python -m pagefind``
    where the binary cannot be found."""
    try:
        from pagefind.service import get_executable

        found = get_executable()
    except Exception:  # an old or broken Pagefind package: let `python -m pagefind` say
        found = None
    if found is not None and os.access(found, os.X_OK):
        return (str(found),)
    return (sys.executable, "-m", "pagefind")


def _stub_path(folder: Path, key: str) -> Path:
    bundle, slug = key.split("/", 1)
    return folder / bundle / "skills" / slug / "index.html"
