"""Not a speed benchmark: what one page of each kind of a built catalog site weighs in
Chromium (every response body the page loads, uncompressed), side by side for several
sites (for example the same corpus built before and after a change).

    python bench/page_weight.py dist/site [OTHER_SITE ...]

Page kinds: home, A-Z, a tag, a plugin, a skill page without a graph and one with a
graph, the problems page, and search (the home page and its first query, typed into the
first search box). A kind a site lacks is shown as "-". Needs Debian's Chromium at
/usr/bin/chromium and Playwright.
"""
from __future__ import annotations

import argparse
import functools
import http.server
import re
import sys
import threading
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
QUERY = "release"
#: A skill page draws a graph (an SVG drawn at build time, or Mermaid's source before).
_GRAPH = re.compile(r'class="skillsite-graph"')


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def _serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def _first(folder: Path, skip: str = "index.html") -> str:
    """The first page in a section folder (``tags/x/``), or ""."""
    if not folder.is_dir():
        return ""
    for child in sorted(folder.iterdir()):
        if (child / skip).is_file():
            return f"{folder.name}/{child.name}/"
    return ""


def page_kinds(site: Path) -> dict[str, str]:
    """One page of each kind, by kind (a path relative to the site, "" for none)."""
    kinds = {"home": "", "A-Z": "skills/", "tag": _first(site / "tags"),
             "plugin": _first(site / "plugins"), "skill (no graph)": "",
             "skill (graph)": "", "problems": "problems/", "search": ""}
    for page in sorted((site / "skills").glob("*/index.html")):
        key = "skill (graph)" if _GRAPH.search(page.read_text(encoding="utf-8",
                                                              errors="replace")) \
            else "skill (no graph)"
        if not kinds[key]:
            kinds[key] = f"skills/{page.parent.name}/"
        if kinds["skill (graph)"] and kinds["skill (no graph)"]:
            break
    return kinds


def _weigh(page: Any, url: str, query: str = "") -> tuple[int, int]:
    """(bytes, requests) of everything the page loads, and its first query if given."""
    sizes: dict[str, int] = {}

    def record(response: Any) -> None:
        try:
            sizes[response.url] = len(response.body())
        except Exception:  # a redirect or an aborted request has no body
            sizes.setdefault(response.url, 0)
    page.on("response", record)
    page.goto(url)
    page.wait_for_load_state("networkidle")
    if query:
        box = page.locator("input[type=search], .pagefind-ui__search-input").first
        box.fill(query)
        page.wait_for_timeout(300)
        page.wait_for_load_state("networkidle")
    page.remove_listener("response", record)
    return sum(sizes.values()), len(sizes)


def measure(site: Path, browser: Any) -> dict[str, tuple[int, int] | None]:
    server, base = _serve(site)
    try:
        kinds = page_kinds(site)
        found: dict[str, tuple[int, int] | None] = {}
        for kind, path in kinds.items():
            wanted = kind in ("home", "A-Z", "problems", "search") or path
            if not wanted or (path and not (site / path / "index.html").is_file()):
                found[kind] = None
                continue
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            found[kind] = _weigh(page, base + path, QUERY if kind == "search" else "")
            context.close()
        return found
    finally:
        server.shutdown()
        server.server_close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sites", nargs="+", type=Path, help="built sites (dist/site)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=["--no-sandbox"])
        results = {site: measure(site, browser) for site in args.sites}
        browser.close()
    kinds = list(next(iter(results.values())))
    print(f"{'page kind':<18}" + "".join(f"{str(site)[-34:]:>36}" for site in results))
    for kind in kinds:
        cells = []
        for site in results:
            value = results[site].get(kind)
            cells.append(f"{value[0] / 1024:>10.0f} KB in {value[1]:>3} requests"
                         if value else f"{'-':>36}")
        print(f"{kind:<18}" + "".join(f"{cell:>36}" for cell in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
