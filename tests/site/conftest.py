"""Shared fixtures for the site tests: one real build of the fixture corpus (which holds
a hostile skill), served over HTTP on 127.0.0.1, and a real headless Chromium."""
from __future__ import annotations

import functools
import http.server
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from skillsite.builder.pipeline import BuildResult, build

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "site" / "corpus"
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def build_fixture(tmp: Path, name: str = "dist", jobs: int = 1) -> BuildResult:
    corpus = tmp / "corpus"
    if not corpus.exists():
        shutil.copytree(FIXTURE, corpus)
    return build(corpus, tmp / name, jobs=jobs, site=True)


@pytest.fixture()
def make_build() -> Callable[..., BuildResult]:
    """A fresh build of the fixture corpus: ``make_build(tmp_path, name="dist")``."""
    return build_fixture


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    return build_fixture(tmp_path_factory.mktemp("site"))


@pytest.fixture(scope="session")
def site(built: BuildResult) -> Path:
    return built.dist / "site"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".md": "text/markdown", ".json": "application/json",
                      ".gz": "application/gzip"}

    def log_message(self, *args: object) -> None:
        pass


def serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


@pytest.fixture()
def serve_folder() -> Iterator[Callable[[Path], str]]:
    """Serve a folder over HTTP for one test: the callable returns its base URL."""
    servers = []

    def start(folder: Path) -> str:
        server, url = serve(folder)
        servers.append(server)
        return url

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def base_url(site: Path) -> Iterator[str]:
    server, url = serve(site)
    yield url
    server.shutdown()
    server.server_close()


# Module scope, not session: Playwright's sync API keeps an asyncio loop running in this
# thread while it is open, and tests after tests/site run event loops of their own
# (tests/site is no package, so a "package" fixture would live for the whole session).
@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).is_file():
        pytest.fail(f"the browser tests need Debian's Chromium at {CHROMIUM}: "
                    "apt-get install chromium (bash .ci/run installs it)")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                              args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture()
def page(browser: object) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    tab = context.new_page()
    tab.console_errors = []  # type: ignore[attr-defined]
    tab.on("console", lambda m: m.type == "error" and tab.console_errors.append(m.text))
    tab.on("pageerror", lambda e: tab.console_errors.append(str(e)))
    tab.on("response", lambda r: r.status >= 400 and tab.console_errors.append(
        f"HTTP {r.status} {r.url}"))
    yield tab
    context.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
