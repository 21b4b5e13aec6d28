"""How the catalog site's search agrees with ``skillsite search``, in a real browser.

    python bench/bench_site_search.py CORPUS [--dist DIST] [--queries FILE] [--show]

Builds CORPUS (into ``--dist``, default a temporary folder; an existing dist/ is built
incrementally), serves its site on 127.0.0.1 and, for each query of
``bench/site_search_queries.json`` listed under the corpus's folder name (or of
``--queries``, a JSON list), types it into the home page's search box in headless
Chromium (Debian's, through Playwright) and reads the results, as a visitor sees them.
The same query goes to ``skillsite search --json`` (the reader, as the CLI and MCP
serve it). Prints, side by side:

- top-1 agreement: the share of queries whose first result is the same skill;
- top-5 overlap: the mean share of the CLI's first five that are in the site's first five;
- with ``--show``, both top fives for each query.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests" / "site"))
TOP = 5


def cli_top(dist: Path, query: str) -> list[str]:
    done = subprocess.run([sys.executable, "-m", "skillsite", "search", query, "--dist",
                           str(dist), "--json", "-n", str(TOP)], capture_output=True,
                          text=True, check=True)
    return [hit.get("id") or hit["name"] for hit in json.loads(done.stdout)["results"]]


def site_tops(site: Path, queries: list[str]) -> list[list[str]]:
    from conftest import CHROMIUM, CHROMIUM_ARGS, serve
    from playwright.sync_api import sync_playwright

    server, url = serve(site)
    found = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(url)
            page.wait_for_load_state("networkidle")
            for query in queries:
                page.fill("#skillsite-find-home", query)
                form = page.locator(f"form[data-searched={json.dumps(query)}]"
                                    ":has(#skillsite-find-home)")
                form.wait_for(timeout=60_000)
                names = form.locator(".skillsite-hits__list .skillsite-hit__name")
                found.append(names.all_inner_texts()[:TOP])
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    return found


def build(corpus: Path, dist: Path) -> None:
    subprocess.run([sys.executable, "-m", "skillsite", "build", str(corpus), "-o", str(dist),
                    "-q"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def compare(cli: list[list[str]], site: list[list[str]]) -> dict[str, Any]:
    pairs = [(c, s) for c, s in zip(cli, site) if c]
    top1 = sum(1 for c, s in pairs if s and s[0] == c[0])
    overlap = sum(len(set(c) & set(s)) / len(c) for c, s in pairs)
    return {"queries": len(pairs), "top1": top1 / len(pairs), "top5": overlap / len(pairs)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--dist", type=Path)
    parser.add_argument("--queries", type=Path, help="a JSON list of queries")
    parser.add_argument("--show", action="store_true", help="print both top fives")
    args = parser.parse_args()
    if args.queries:
        queries = json.loads(args.queries.read_text())
    else:
        known = json.loads((HERE / "site_search_queries.json").read_text())
        queries = known.get(args.corpus.resolve().name) or sys.exit(
            f"no queries for {args.corpus.resolve().name} in site_search_queries.json; "
            "pass --queries FILE (a JSON list)")
    dist = args.dist or Path(tempfile.mkdtemp(prefix="bench-site-search-")) / "dist"
    build(args.corpus, dist)
    cli = [cli_top(dist, q) for q in queries]
    site = site_tops(dist / "site", queries)
    if args.show:
        for query, c, s in zip(queries, cli, site):
            mark = "=" if c and s and c[0] == s[0] else "≠"
            print(f"{mark} {query!r}\n    cli:  {c}\n    site: {s}")
    figures = compare(cli, site)
    print(f"{args.corpus.resolve().name}: {figures['queries']} queries; top-1 agreement "
          f"{figures['top1']:.0%}, top-5 overlap {figures['top5']:.0%} "
          f"(load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
