"""``skillsite serve``: build, serve ``dist/site`` on 127.0.0.1, rebuild on corpus change."""
from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    import http.server


@click.command()
@click.argument("corpus", required=False, default="corpus",
                type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("-o", "--out", default="dist", show_default=True,
              type=click.Path(file_okay=False, path_type=Path),
              help="The dist/ folder to build and whose site/ is served.")
@click.option("-p", "--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="Port on 127.0.0.1 (0 picks a free one). Example: --port 8080")
@click.option("--mkdocs-config", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="mkdocs.yml for the site (default: the package's skillsite/site/mkdocs.yml).")
@click.option("--interval", default=1.0, show_default=True, type=click.FloatRange(0.2, 60),
              help="Seconds between looks at the corpus for changes.")
def serve(corpus: Path, out: Path, port: int, mkdocs_config: Path | None,
          interval: float) -> None:
    """Build CORPUS, serve the catalog site on http://127.0.0.1:PORT/ and rebuild
    (incrementally) whenever a file in CORPUS changes. Stop with Ctrl-C.

    Only the loopback address is used: the preview is never reachable from another
    machine. A build that fails is reported and the last good site stays served.

    \b
    Examples:
      skillsite serve                        corpus/ on http://127.0.0.1:8000/
      skillsite serve skills -o /tmp/dist --port 0
    """
    from skillsite.builder.dist import BuildInterrupted
    from skillsite.builder.pipeline import build
    from skillsite.errors import SkillsiteError

    def rebuild() -> None:
        started = time.monotonic()
        try:
            result = build(corpus, out, site=True, mkdocs_config=mkdocs_config)
        except BuildInterrupted:
            raise KeyboardInterrupt from None   # Ctrl-C or SIGTERM during a build: stop
        except SkillsiteError as error:
            click.echo(f"build failed: {error}", err=True)
            return
        except Exception as error:  # a bug must not stop the preview of the last good site
            click.echo(f"build failed: internal error {type(error).__name__}: {error}; "
                       "the last good site is still served; please report this", err=True)
            return
        rendered = result.site.rendered if result.site else 0
        click.echo(f"built in {time.monotonic() - started:.1f} s: {result.included} skills "
                   f"({rendered} pages rendered)", err=True)
        for line in build_summary(result.excluded, result.unreadable,
                                  [p.severity for p in result.problems]):
            click.echo(line, err=True)

    signal.signal(signal.SIGTERM, _stop)
    # Bound before building, so that a port in use fails at once, not after the build.
    try:
        server = _server(out / "site", port)
    except OSError as error:
        raise SkillsiteError(f"cannot listen on 127.0.0.1:{port}: {error.strerror or error}; "
                             "pick another port, e.g. --port 8080 (--port 0 picks a free "
                             "one)") from None
    serving = False
    try:
        # Looked at before building, so that an edit made during a build (or just after
        # the server starts) is never taken for the state that was built.
        seen = _signature(corpus)
        rebuild()
        click.echo(f"Serving http://127.0.0.1:{server.server_address[1]}/ "
                   f"(Ctrl-C to stop)", err=False)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        serving = True
        while True:
            time.sleep(interval)
            now = _signature(corpus)
            if now != seen:
                seen = now
                rebuild()
    except KeyboardInterrupt:
        pass
    finally:
        if serving:  # shutdown() waits for serve_forever, which never ran otherwise
            server.shutdown()
        server.server_close()


def build_summary(left_out: list[str], unreadable: list[str], severities: list[str],
                  shown: int = 5) -> list[str]:
    """What a build left out or could not read, and its problems, in a few lines."""
    def paths(found: list[str]) -> str:
        more = f" and {len(found) - shown} more" if len(found) > shown else ""
        return f"{len(found)}: {', '.join(found[:shown])}{more}" if found else "none"

    errors = severities.count("error")
    lines = [f"  left out: {paths(left_out)}", f"  not readable as skills: {paths(unreadable)}"]
    if severities:
        warnings = len(severities) - errors
        lines.append(f"  {_count(len(severities), 'problem')} ({_count(errors, 'error')}, "
                     f"{_count(warnings, 'warning')}): see /problems/ on the site")
    return lines


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _server(site: Path, port: int) -> http.server.ThreadingHTTPServer:
    import functools
    import http.server

    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                          ".md": "text/markdown", ".json": "application/json",
                          ".gz": "application/gzip"}

        def log_message(self, *args: object) -> None:
            pass

        def send_error(self, code: int, message: str | None = None,
                       explain: str | None = None) -> None:
            """A missing page is the site's own 404 page (with the 404 status)."""
            page = site / "404.html"
            if code != 404 or not page.is_file():
                super().send_error(code, message, explain)
                return
            body = page.read_bytes()
            self.send_response(404, message)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def send_head(self) -> Any:
            # A path no file can have (a NUL byte, %00) makes os.stat raise ValueError.
            try:
                return super().send_head()
            except ValueError:
                self.send_error(400, "Bad request: the path cannot name a file")
                return None

    handler = functools.partial(Handler, directory=str(site.absolute()))
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)


def _signature(corpus: Path) -> tuple[int, int, int]:
    """(files, total size, newest mtime) of the corpus: any edit, addition or removal
    changes it."""
    count = size = newest = 0
    for folder, folders, names in os.walk(corpus):
        folders[:] = [f for f in folders if not f.startswith(".")]
        newest = max(newest, os.stat(folder).st_mtime_ns)
        for name in names:
            try:
                info = os.stat(os.path.join(folder, name))
            except OSError:
                continue
            count += 1
            size += info.st_size
            newest = max(newest, info.st_mtime_ns)
    return count, size, newest
