"""Screenshots of a corpus's catalog site, for the docs and the README.

    python bench/screenshots.py CORPUS OUT_DIR [--dist DIST] [--skill ID] [--query WORDS]

Builds CORPUS (into ``--dist``, default a temporary folder), serves its site on 127.0.0.1
and, in headless Chromium (Debian's, through Playwright), takes the home page, the A-Z
listing, a skill page (``--skill``, default the skill with the most supporting files) and
the search results for ``--query`` (typed into the header's box) at desktop (1280 px) and
phone (390 px) widths: ``OUT_DIR/site-{home,listing,skill,search}-{desktop,phone}.png``.
Each is one screen (not the whole page), so that it stays small.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "site"))
SIZES = {"desktop": (1280, 800), "phone": (390, 760)}


def build(corpus: Path, dist: Path) -> None:
    subprocess.run([sys.executable, "-m", "skillsite", "build", str(corpus), "-o", str(dist),
                    "-q"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def busiest_skill(dist: Path) -> str:
    """The skill with the most supporting files (ties: the first A-Z)."""
    from skillsite.site.data import slug_of

    skills = json.loads((dist / "catalog.json").read_text())["skills"]
    with_files = []
    for skill in skills:
        folder = dist / "site" / "skills" / slug_of(skill["id"])
        count = sum(1 for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else 0
        with_files.append((-count, skill["id"]))
    return min(with_files)[1]


def shoot(site: Path, out: Path, skill: str, query: str) -> list[Path]:
    from conftest import CHROMIUM, CHROMIUM_ARGS, serve
    from playwright.sync_api import sync_playwright

    from skillsite.site.data import slug_of

    server, url = serve(site)
    taken = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for size, (width, height) in SIZES.items():
                context = browser.new_context(viewport={"width": width, "height": height})
                page = context.new_page()
                for name, path in (("home", ""), ("listing", "skills/"),
                                   ("skill", f"skills/{slug_of(skill)}/"), ("search", "")):
                    page.goto(url + path)
                    page.wait_for_load_state("networkidle")
                    if name == "search":
                        _search(page, query)
                    target = out / f"site-{name}-{size}.png"
                    page.screenshot(path=str(target))
                    taken.append(target)
                context.close()
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    return taken


def _search(page: Any, query: str) -> None:
    page.fill("#skillsite-find-header", query)
    page.locator(f"form[data-searched={json.dumps(query)}] .skillsite-hits__list a"
                 ).first.wait_for(timeout=60_000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--dist", type=Path)
    parser.add_argument("--skill", help="the skill page to take (its id)")
    parser.add_argument("--query", default="test", help="what to search for")
    args = parser.parse_args()
    dist = args.dist or Path(tempfile.mkdtemp(prefix="screenshots-")) / "dist"
    build(args.corpus, dist)
    args.out.mkdir(parents=True, exist_ok=True)
    for path in shoot(dist / "site", args.out, args.skill or busiest_skill(dist), args.query):
        print(f"{path} {path.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
