"""A clean mkdocs build on several processes: mkdocs itself renders one page at a time.

Skill pages do not depend on each other (they are not in the nav, and their links are
HTML that mkdocs does not rewrite), so the skill pages are split into shards by name and
each shard is built by its own mkdocs process from a *view* of the docs tree (hard links)
that holds the shard, the nav's pages and the assets. The first view also holds every
other page and is built into the site itself; the others' skill pages are moved in after.
"""
from __future__ import annotations

import hashlib
import multiprocessing
import os
import shutil
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from skillsite.linter.children import die_with_parent
from skillsite.site.mkdocs_run import NAV, SETTINGS, run_mkdocs

#: Pages every view needs so that the nav resolves the same in each, and the settings.
NAV_PAGES = (*(path for item in NAV for path in item.values()), SETTINGS)


def run_mkdocs_sharded(docs: Path, site: Path, config: Path | None, workers: int) -> list[str]:
    """Build ``docs`` into ``site`` with ``workers`` mkdocs processes; returns warnings."""
    views = [site.parent / f".site-view-{n}" for n in range(workers)]
    outputs = [site] + [site.parent / f".site-part-{n}" for n in range(1, workers)]
    try:
        _make_views(docs, views)
        # A killed build must not leave its mkdocs processes behind. Spawned, not forked:
        # the build's side threads (the discovery index's SQLite, hashing) may hold a lock
        # at the moment of a fork, and a forked child would wait on it for ever.
        with ProcessPoolExecutor(max_workers=workers, initializer=die_with_parent,
                                 initargs=(os.getpid(),),
                                 mp_context=multiprocessing.get_context("spawn")) as pool:
            done = [pool.submit(run_mkdocs, view, output, config, dirty=False)
                    for view, output in zip(views, outputs, strict=True)]
            warnings = [w for future in done for w in future.result()]
        for part in outputs[1:]:
            for page in (part / "skills").iterdir():
                if page.is_dir():
                    os.replace(page, site / "skills" / page.name)
        _merge_sitemaps(site, outputs[1:])
        return warnings
    finally:
        for folder in views + outputs[1:]:
            shutil.rmtree(folder, ignore_errors=True)


def _merge_sitemaps(site: Path, parts: list[Path]) -> None:
    """Add the other shards' skill pages to the site's sitemap."""
    import gzip
    import re

    main = site / "sitemap.xml"
    if not main.is_file():
        return
    text = main.read_text(encoding="utf-8")
    extra = []
    for part in parts:
        sitemap = part / "sitemap.xml"
        if sitemap.is_file():
            extra += [url for url in re.findall(r"<url>.*?</url>", sitemap.read_text(
                encoding="utf-8"), re.DOTALL) if "/skills/" in url and "skills/</loc>" not in url]
    if extra:
        text = text.replace("</urlset>", "\n".join(extra) + "\n</urlset>")
        main.write_text(text, encoding="utf-8")
        with gzip.GzipFile(site / "sitemap.xml.gz", "wb", mtime=0) as packed:
            packed.write(text.encode("utf-8"))


def shard_of(slug: str, workers: int) -> int:
    return int(hashlib.sha1(slug.encode("utf-8")).hexdigest()[:8], 16) % workers


def _make_views(docs: Path, views: list[Path]) -> None:
    for folder, _, names in os.walk(docs):
        relative = os.path.relpath(folder, docs)
        parts = Path(relative).parts
        is_skill = len(parts) == 2 and parts[0] == "skills"
        for name in names:
            path = (Path(relative) / name).as_posix().removeprefix("./")
            if is_skill and name == "index.md":
                chosen = [views[shard_of(parts[1], len(views))]]
            elif path in NAV_PAGES or path.startswith("assets/"):
                chosen = views
            else:
                chosen = views[:1]
            for view in chosen:
                target = view / path
                target.parent.mkdir(parents=True, exist_ok=True)
                os.link(os.path.join(folder, name), target)
