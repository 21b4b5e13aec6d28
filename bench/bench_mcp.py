"""Benchmark the MCP server: search, open and read round trips over stdio and streamable
HTTP, and the server's start-up time, with a trivial MCPServer tool as the peer.

Usage::

    python bench/bench_mcp.py [--sizes 10000,100000] [--calls 300] [--work DIR] [--seed 1]

For each size it generates a corpus with ``generate.py`` and builds it (both kept under
``--work`` and reused on the next run), then, through the real SDK client and a
``python -m skillsite mcp`` subprocess, measures:

  start      spawn -> initialized client session over stdio (Python start, importing
             the SDK, opening and hashing every file of dist/, the handshake), median of 3;
             ``import mcp.server.mcpserver`` alone in a fresh process for scale
  stdio      search / open / read round trips, p50 and p95 (default client: 2026-07-28),
             back to back as an agent makes them: the floor's figure
  paired     the same, interleaved call by call with ...
  reader     ... the same calls on an in-process Library, so that load weighs on both
             alike (paired minus reader is the MCP overhead; paired is above stdio because
             the in-process search between two calls evicts the server's CPU caches)
  legacy     the same over stdio with ``mode="legacy"`` (the 2025-11-25 handshake)
  http       the same over streamable HTTP on 127.0.0.1
  peer       a trivial ``MCPServer`` tool (returns its argument) over stdio and HTTP:
             what the SDK and transport cost alone

Budgets are off (``--max-skills 0 --max-chars 0``) so every call is served. The machine is
shared: figures are noisy, compare within one run. Floor: stdio search p50 <= 10 ms.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(1, str(REPO))

from generate import _NOUNS, _VERBS, generate  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from skillsite.store.manifest import ARTIFACT_VERSION  # noqa: E402

PEER = '''
import sys
from mcp.server.mcpserver import MCPServer
server = MCPServer("peer", log_level="WARNING")
@server.tool(structured_output=False)
def echo(text: str) -> str:
    return text
if len(sys.argv) > 1:
    server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
else:
    server.run()
'''
FLOOR_MS = 10.0
UNLIMITED = ("--max-skills", "0", "--max-chars", "0")


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO)}


def prepare(work: Path, size: int, seed: int) -> Path:
    """A built dist/ of ``size`` generated skills under ``work``, made once."""
    corpus, dist = work / f"corpus-{size}", work / f"dist-{size}"
    if not corpus.exists():
        print(f"generating {size} skills in {corpus} ...", flush=True)
        generate(corpus, size, seed)
    manifest = dist / "manifest.json"
    built = json.loads(manifest.read_text())["artifact_version"] if manifest.exists() else None
    if built != ARTIFACT_VERSION:  # a dist/ of an older artifact would measure its fallbacks
        print(f"building {dist} ...", flush=True)
        subprocess.run([sys.executable, "-m", "skillsite", "build", str(corpus), "-o",
                        str(dist), "-q", "--no-site"], env=env(), check=True)
    return dist


def queries(count: int) -> list[str]:
    return [f"{_VERBS[i % len(_VERBS)]} {_NOUNS[(i * 7) % len(_NOUNS)]}" for i in range(count)]


def figures(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return (statistics.median(ordered) * 1000,
            ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))] * 1000)


async def timed(calls: list[Callable[[], Awaitable[Any]]], warmup: int = 20) -> list[float]:
    for call in calls[:warmup]:
        await call()
    samples = []
    for call in calls:
        started = time.perf_counter()
        await call()
        samples.append(time.perf_counter() - started)
    return samples


async def tool(client: Client, name: str, **arguments: Any) -> Any:
    result = await client.call_tool(name, arguments)
    text = result.content[0].text  # type: ignore[union-attr]
    if result.is_error:
        raise RuntimeError(f"{name} failed: {text}")
    return json.loads(text)


Calls = dict[str, list[Callable[[], Awaitable[Any]]]]


async def plan(client: Client, count: int) -> tuple[Calls, dict[str, list[tuple[str, Any]]]]:
    """The search, open and read calls to time (refs and sections found first), and the
    same calls as (operation, arguments) for the in-process twin."""
    texts = queries(count)
    names: list[str] = []
    for text in texts[:40]:
        names += [hit["name"] for hit in (await tool(client, "search", query=text))["results"]]
    names = sorted(set(names))[:40] or ["missing"]
    sections = {}
    for name in names:
        headings = (await tool(client, "open", ref=name))["headings"]
        sections[name] = next((h["heading"] for h in headings if h["heading"]), None)
    pick = [names[i % len(names)] for i in range(count)]
    wanted = {"search": [("search", {"query": text, "limit": 10}) for text in texts],
              "open": [("open", {"ref": name}) for name in pick],
              "read": [("read", {"ref": name, "section": sections[name], "max_chars": 4000})
                       for name in pick]}

    def remote(name: str, arguments: dict[str, Any]) -> Callable[[], Awaitable[Any]]:
        return lambda: tool(client, name, **arguments)

    return {op: [remote(*call) for call in calls] for op, calls in wanted.items()}, wanted


async def session_figures(client: Client, count: int) -> dict[str, tuple[float, float]]:
    calls, _ = await plan(client, count)
    return {op: figures(await timed(ops)) for op, ops in calls.items()}


async def paired_figures(client: Client, library: Any, count: int) -> dict[str, Any]:
    """The stdio round trips interleaved call by call with the same calls on an in-process
    Library, so that the load of a shared machine weighs on both alike."""
    calls, wanted = await plan(client, count)
    out: dict[str, Any] = {"stdio": {}, "reader": {}}
    for op, remote_calls in calls.items():
        for remote_call, (name, arguments) in list(zip(remote_calls, wanted[op]))[:20]:
            await remote_call()  # warm up both, as timed() does
            local(library, name, arguments)
        mine, theirs = [], []
        for remote_call, (name, arguments) in zip(remote_calls, wanted[op]):
            started = time.perf_counter()
            await remote_call()
            mine.append(time.perf_counter() - started)
            started = time.perf_counter()
            local(library, name, arguments)
            theirs.append(time.perf_counter() - started)
        out["stdio"][op], out["reader"][op] = figures(mine), figures(theirs)
    return out


def local(library: Any, name: str, arguments: dict[str, Any]) -> Any:
    arguments = dict(arguments)
    if name == "search":
        return library.search(arguments.pop("query"), **arguments)
    if name == "open":
        return library.open(arguments["ref"])
    return library.read(arguments.pop("ref"), arguments.pop("section"), **arguments)


async def peer_figures(client: Client, count: int) -> tuple[float, float]:
    return figures(await timed([lambda: client.call_tool("echo", {"text": "x"})] * count))


def stdio(dist: Path | None) -> StdioServerParameters:
    if dist is None:
        return StdioServerParameters(command=sys.executable, args=["-c", PEER], env=env())
    return StdioServerParameters(command=sys.executable, env=env(), args=[
        "-m", "skillsite", "mcp", "--dist", str(dist), *UNLIMITED])


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def spawn_http(args: list[str]) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    command = [sys.executable, *args]
    command += [str(port)] if args[0] == "-c" else ["--http", f"127.0.0.1:{port}"]
    log = tempfile.TemporaryFile()
    process = subprocess.Popen(command, env=env(), stderr=log)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and process.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return process, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.05)
    process.kill()
    log.seek(0)
    raise RuntimeError(f"the HTTP server did not start: {log.read()[-2000:]!r}")


async def startup(dist: Path) -> float:
    samples = []
    for _ in range(3):
        started = time.perf_counter()
        async with Client(stdio(dist)) as client:
            samples.append(time.perf_counter() - started)
            await client.list_tools()
    return statistics.median(samples)


def import_seconds() -> float:
    done = subprocess.run([sys.executable, "-c", "import time; t = time.perf_counter(); "
                           "import mcp.server.mcpserver; print(time.perf_counter() - t)"],
                          capture_output=True, text=True, check=True)
    return float(done.stdout)


async def measure(dist: Path, count: int) -> dict[str, Any]:
    results: dict[str, Any] = {}

    def done(key: str, value: Any) -> None:
        results[key] = value
        print(f"  {key}: {value}", flush=True)

    done("start_s", await startup(dist))
    done("import_mcp_s", import_seconds())
    sys.path.insert(0, str(REPO))
    from skillsite.reader import Library

    library = Library(dist, max_skills=None, max_chars=None)
    async with Client(stdio(dist)) as client:
        done("stdio", await session_figures(client, count))
        paired = await paired_figures(client, library, count)
    done("paired", paired["stdio"])
    done("reader", paired["reader"])
    async with Client(stdio(dist), mode="legacy") as client:
        done("legacy", await session_figures(client, count))
    async with Client(stdio(None)) as client:
        done("peer_stdio", await peer_figures(client, count))
    for key, args in (("http", ["-m", "skillsite", "mcp", "--dist", str(dist), *UNLIMITED]),
                      ("peer_http", ["-c", PEER])):
        process, url = spawn_http(args)
        try:
            async with Client(url) as client:
                done(key, await session_figures(client, count) if key == "http"
                     else await peer_figures(client, count))
        finally:
            process.terminate()
            process.wait(10)
    return results


def report(size: int, results: dict[str, Any]) -> None:
    print(f"\n== {size} skills: round trips in ms, p50 / p95")
    print(f"{'':10}{'search':>16}{'open':>16}{'read':>16}")
    for key in ("stdio", "legacy", "http", "paired", "reader"):
        row = results[key]
        print(f"{key:10}" + "".join(f"{row[op][0]:>8.2f} /{row[op][1]:>6.2f}"
                                    for op in ("search", "open", "read")))
    for key in ("peer_stdio", "peer_http"):
        p50, p95 = results[key]
        print(f"{key:10}{p50:>8.2f} /{p95:>6.2f}   (a trivial MCPServer tool)")
    print(f"start-up over stdio: {results['start_s']:.2f} s "
          f"(import mcp.server.mcpserver alone: {results['import_mcp_s']:.2f} s)")
    p50 = results["stdio"]["search"][0]
    print(f"floor: stdio search p50 {p50:.2f} ms <= {FLOOR_MS} ms: "
          f"{'PASS' if p50 <= FLOOR_MS else 'FAIL'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "bench-mcp")
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    options.work.mkdir(parents=True, exist_ok=True)
    for size in (int(s) for s in options.sizes.split(",")):
        dist = prepare(options.work, size, options.seed)
        results = asyncio.run(measure(dist, options.calls))
        report(size, results)
        print(json.dumps({"size": size, **results}))


if __name__ == "__main__":
    main()
