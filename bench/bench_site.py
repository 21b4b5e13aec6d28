"""Benchmark the catalog site (``dist/site/``) at several corpus sizes.

    python bench/bench_site.py [--sizes 1000,10000] [--jobs 2] [--peer-sizes 1000]
                               [--workdir DIR] [--curve 1000,2000,5000] [--extrapolate N]

For each size it generates the synthetic corpus of ``bench/generate.py``, then reports:

- the site stage's time in a clean ``skillsite build`` (a fresh process), the whole
  build's time, and peak memory (the build process and its largest child: mkdocs shards,
  render workers, Pagefind);
- the site's size on disk and its number of files;
- two one-skill changes, a line added to a body and a description edited (which also
  changes the listings that show it and the search index): the site stage's time, the
  whole build's wall and CPU time, and how many skill pages were rendered again;
- in headless Chromium (Debian's), over a local HTTP server: the bytes the home page
  downloads, then for a common term (``review``, in most skills) and a rare one (a skill's
  name) the bytes the first query downloads and the time to its first result (a fresh
  browser context each, so nothing is cached);
- with ``--curve``: a clean build at more sizes, and a least-squares line through every
  clean build (whole build, site stage, CPU, peak memory of the largest process) taken
  to ``--extrapolate`` skills (100k);
- with ``--peer-sizes``: the same pages built by plain mkdocs-material with Material's
  built-in search (``plugins: [search]``), its build time, memory, index size and first
  query, side by side.

Targets (issues 10 and 22, 2 cores): 10k skills in <= 90 s; a one-skill change <= 15 s;
the first query at 10k <= 300 KB and <= 1 s; peak memory <= 2 GB. The machine is shared: figures are
noisy, so the load average is printed with them.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from generate import generate  # noqa: E402

ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests" / "site"))


def _build(corpus: Path, dist: Path, jobs: int, clean: bool) -> dict[str, Any]:
    command = [sys.executable, str(HERE / "_measure.py"), "build", str(corpus), "-o", str(dist),
               "--jobs", str(jobs), "-q", "-v", *(["--clean"] if clean else [])]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    site = re.search(r"^\s+site\s+([\d.]+) s$", done.stdout, re.MULTILINE)
    rendered = re.search(r"\((\d+) rendered\)", done.stdout)
    figures["site_s"] = float(site.group(1)) if site else None
    figures["rendered"] = int(rendered.group(1)) if rendered else None
    if figures["code"] != 0:
        raise SystemExit(f"build failed: {done.stdout[-2000:]} {done.stderr[-2000:]}")
    return figures


def _size(folder: Path) -> tuple[int, int]:
    files = [p for p in folder.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files), len(files)


def _edit_one(corpus: Path) -> None:
    skill = sorted((corpus / "skills").glob("*/SKILL.md"))[len(list((corpus / "skills").iterdir())) // 2]
    skill.write_text(skill.read_text() + "\nOne more line for the benchmark.\n")


def _edit_description(corpus: Path) -> None:
    """Change one skill's description: its page, the listings that show it (A-Z, its tag
    and format pages, home's recently changed) and the search index change."""
    skill = sorted((corpus / "skills").glob("*/SKILL.md"))[len(list((corpus / "skills").iterdir())) // 3]
    text = skill.read_text()
    skill.write_text(text.replace("\ndescription: ", "\ndescription: Edited for the benchmark. ", 1))


def _query(browser: Any, url: str, fill: str, wait: str, term: str,
           open_search: str | None = None) -> dict[str, Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    sizes: list[int] = []

    def finished(request: Any) -> None:
        try:
            sizes.append(request.sizes()["responseBodySize"])
        except Exception:  # the context closed first: that request is not counted
            pass

    page.on("requestfinished", finished)
    page.goto(url)
    page.wait_for_load_state("networkidle")
    loaded = sum(sizes)
    sizes.clear()
    if open_search:
        page.locator(open_search).first.click()
    # The page's own clock marks when the first result is in the DOM; Playwright's wait
    # adds its round trips to the browser (about 0.3 s on this machine).
    page.evaluate("""(wait) => { window.__hit = null; new MutationObserver(() => {
        if (window.__hit === null && document.querySelector(wait))
          window.__hit = performance.now(); }).observe(document.body,
        {subtree: true, childList: true}); window.__start = performance.now(); }""", wait)
    started = time.perf_counter()
    page.fill(fill, term)
    page.wait_for_selector(wait, timeout=120_000)
    first = time.perf_counter() - started
    in_page = page.evaluate("window.__hit - window.__start") / 1000
    page.wait_for_load_state("networkidle")
    result = {"page_kb": loaded / 1024, "query_kb": sum(sizes) / 1024, "first_result_s": first,
              "in_page_s": in_page}
    context.close()
    return result


def _search_figures(site: Path, rare: str, peer: bool = False) -> dict[str, Any]:
    from conftest import CHROMIUM, CHROMIUM_ARGS, serve
    from playwright.sync_api import sync_playwright

    server, url = serve(site)
    figures = {}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for label, term in (("common", "review"), ("rare", rare)):
                if peer:
                    figures[label] = _query(browser, url, ".md-search__input",
                                            ".md-search-result__item", term,
                                            open_search=".md-search__input")
                else:
                    figures[label] = _query(browser, url, "#skillsite-find-home",
                                            ".skillsite-hits__list a", term)
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    return figures


def _peer(corpus: Path, out: Path) -> dict[str, Any]:
    """Plain mkdocs-material with Material's own search over the same docs tree: that of
    a build whose skill pages mkdocs renders (the docs tree of a stamping build holds no
    skill page)."""
    dist = out.parent / f"{out.name}-dist"
    build = ("import sys; from skillsite.site import stage; stage.STAMP = False; "
             "from skillsite.cli import main; main(sys.argv[1:])")
    subprocess.run([sys.executable, "-c", build, "build", str(corpus), "-o", str(dist), "-q",
                    "--clean"], capture_output=True, check=True, cwd=ROOT,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    config = out.parent / "peer-mkdocs.yml"
    text = (ROOT / "skillsite" / "site" / "mkdocs.yml").read_text().replace("plugins: []", "plugins: [search]")
    config.write_text(text + f"\ndocs_dir: {dist / 'site-cache' / 'docs'}\nsite_dir: {out}\n"
                      "nav:\n  - Home: index.md\n  - Skills A-Z: skills/index.md\n")
    code = ("import resource, time, os; os.environ['NO_MKDOCS_2_WARNING']='1';"
            "from mkdocs.config import load_config; from mkdocs.commands.build import build;"
            f"t=time.perf_counter(); build(load_config({str(config)!r})); "
            "print(time.perf_counter()-t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    seconds, rss = done.stdout.split()[-2:]
    index = out / "search" / "search_index.json"
    return {"seconds": float(seconds), "rss_mb": int(rss) / 1024,
            "index_kb": index.stat().st_size / 1024 if index.exists() else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--peer-sizes", default="1000")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--curve", default="", help="sizes that get a clean build only, "
                        "fitted with those of --sizes (e.g. 1000,2000,5000)")
    parser.add_argument("--extrapolate", type=int, default=100_000,
                        help="the size the fitted curve is taken to (with --curve)")
    args = parser.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="bench-site-"))
    peers = {int(s) for s in args.peer_sizes.split(",") if s}
    full = [int(s) for s in args.sizes.split(",") if s]
    curve = [int(s) for s in args.curve.split(",") if s]
    points: list[tuple[int, dict[str, Any]]] = []
    for count in sorted(set(full) | set(curve)):
        corpus, dist = work / f"corpus-{count}", work / f"dist-{count}"
        if not corpus.exists():
            generate(corpus, count)
        print(f"== {count} skills (load average {os.getloadavg()[0]:.1f})", flush=True)
        clean = _build(corpus, dist, args.jobs, clean=True)
        points.append((count, clean))
        size, files = _size(dist / "site")
        print(f"clean build: {clean['seconds']:.1f} s (CPU {clean['cpu_s']:.1f} s), site stage {clean['site_s']:.1f} s, "
              f"peak {clean['rss_mb']:.0f} MB (largest child {clean['children_rss_mb']:.0f} MB)"
              f"; site {size / 2**20:.1f} MB in {files} files", flush=True)
        if count not in full:
            continue
        for label, edit in (("body", _edit_one), ("description", _edit_description)):
            edit(corpus)
            load = os.getloadavg()[0]
            again = _build(corpus, dist, args.jobs, clean=False)
            print(f"one-skill change ({label}): site stage {again['site_s']:.1f} s, "
                  f"{again['rendered']} page(s) rendered; whole build {again['seconds']:.1f} s"
                  f", CPU {again['cpu_s']:.1f} s (load average {load:.1f})", flush=True)
        rare = json.loads((dist / "catalog.json").read_text())["skills"][0]["name"]
        for label, figures in _search_figures(dist / "site", rare).items():
            print(f"pagefind, {label} term: home page {figures['page_kb']:.0f} KB; first query "
                  f"{figures['query_kb']:.0f} KB, first result in "
                  f"{figures['in_page_s']:.2f} s (Playwright saw it at "
                  f"{figures['first_result_s']:.2f} s)", flush=True)
        if count in peers:
            peer = _peer(corpus, work / f"peer-{count}")
            print(f"peer (mkdocs-material + its search, same pages): build {peer['seconds']:.1f} s,"
                  f" peak {peer['rss_mb']:.0f} MB, index {peer['index_kb']:.0f} KB", flush=True)
            for label, figures in _search_figures(work / f"peer-{count}", rare, peer=True).items():
                print(f"peer, {label} term: page {figures['page_kb']:.0f} KB; first query "
                      f"{figures['query_kb']:.0f} KB, first result in "
                      f"{figures['first_result_s']:.2f} s", flush=True)

    if curve and len(points) > 1:
        _fit(points, args.extrapolate)


def _fit(points: list[tuple[int, dict[str, Any]]], target: int) -> None:
    """A least-squares line through the clean builds, taken to ``target`` skills."""
    figures = {"whole build (s)": [p["seconds"] for _, p in points],
               "site stage (s)": [p["site_s"] for _, p in points],
               "CPU (s)": [p["cpu_s"] for _, p in points],
               "peak, largest process (MB)": [max(p["rss_mb"], p["children_rss_mb"])
                                              for _, p in points]}
    xs = [float(n) for n, _ in points]
    mean_x = sum(xs) / len(xs)
    print(f"== fitted over {', '.join(str(n) for n, _ in points)} skills, taken to {target}")
    for label, ys in figures.items():
        mean_y = sum(ys) / len(ys)
        slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / \
            sum((x - mean_x) ** 2 for x in xs)
        at = mean_y + slope * (target - mean_x)
        worst = max(abs(y - (mean_y + slope * (x - mean_x))) for x, y in zip(xs, ys))
        print(f"{label}: {slope * 1000:.2f} per 1000 skills, {at:.0f} at {target} "
              f"(largest miss of the line {worst:.1f})", flush=True)


if __name__ == "__main__":
    main()
