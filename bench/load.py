"""The load generator behind ``bench_load.py`` and ``tests/test_load.py``: concurrent MCP
clients over streamable HTTP against a ``skillsite mcp --http 127.0.0.1:PORT`` process.

Every request goes to 127.0.0.1, the run is bounded in count and in time (``deadline``),
and the server is stopped at the end, however the run ends.
"""
from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from mcp import Client

from skillsite.reader.safe import SafePolicy

REPO = Path(__file__).resolve().parents[1]
WORDS = ["pdf", "deploy", "incident", "review", "test", "debug", "migrate", "index",
         "release", "certificate", "logs", "schema", "cache", "rollback", "notes"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(dist: Path, *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen([sys.executable, "-m", "skillsite", "mcp", "--dist", str(dist),
                                "--http", f"127.0.0.1:{port}", *extra],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited: {process.stderr.read().decode()}")  # type: ignore[union-attr]
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return process, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("server did not start within 60 s")


def rss_mb(pid: int) -> tuple[float, float]:
    """(current RSS, peak RSS) of ``pid`` in MB, from /proc."""
    fields = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            key, _, value = line.partition(":")
            fields[key] = value
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


@dataclass
class ClientLog:
    """What one client did: latencies (s) per operation, errors, the safe-mode budget
    refusals it met, and (safe mode) the server's own count of its session's use, as
    ``context`` reports it at the end: ``{"searches": [used, limit], ...}``."""

    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    refused: dict[str, int] = field(default_factory=dict)
    served: dict[str, int] = field(default_factory=dict)
    budgets: dict[str, Any] = field(default_factory=dict)


async def _call(client: Client, log: ClientLog, tool: str, **arguments: Any) -> Any:
    started = time.perf_counter()
    try:
        result = await client.call_tool(tool, arguments)
    except Exception as error:  # a transport failure counts as an error, never a crash
        log.errors.append(f"{tool}: {type(error).__name__}: {error}")
        return None
    log.latencies.setdefault(tool, []).append(time.perf_counter() - started)
    text = result.content[0].text  # type: ignore[union-attr]
    if result.is_error:
        code = json.loads(text[text.index("{"):]).get("error", "") if "{" in text else ""
        if code in ("restricted-budget-exhausted", "budget-exceeded"):
            log.refused[tool] = log.refused.get(tool, 0) + 1
        else:
            log.errors.append(f"{tool}: {text[:200]}")
        return None
    log.served[tool] = log.served.get(tool, 0) + 1
    return json.loads(text)


async def search_open_read(call: Callable[..., Awaitable[Any]], rng: random.Random,
                           requests: int, deadline: float) -> None:
    """The load's workload, ``requests`` calls of ``call(tool, **arguments)``: a search,
    then open and read of a hit (refs from the last answer, as safe mode requires), a
    section read half the time, again."""
    done = 0
    while done < requests and time.monotonic() < deadline:
        found = await call("search", query=" ".join(rng.sample(WORDS, 2)), limit=5)
        done += 1
        hits = (found or {}).get("results") or []
        if not hits or done >= requests:
            continue
        opened = await call("open", ref=rng.choice(hits)["ref"])
        done += 1
        if not opened or done >= requests:
            continue
        headings = opened.get("headings") or []
        section = rng.choice(headings)["index"] if headings and rng.random() < 0.5 else None
        arguments = {"ref": opened["ref"]} | ({"section": section} if section else {})
        await call("read", **arguments)
        done += 1


async def _client(url: str, requests: int, seed: int, deadline: float,
                  safe: bool) -> ClientLog:
    """``requests`` mixed calls: a search, then open and read of a hit (refs from the
    last answer, as safe mode requires), a section read now and then."""
    log = ClientLog()
    async with Client(url) as client:
        await search_open_read(partial(_call, client, log), random.Random(seed), requests,
                               deadline)
        if safe:  # not counted as a request of the load
            result = await client.call_tool("context", {})
            log.budgets = json.loads(result.content[0].text)["budgets"]["safe"]  # type: ignore[union-attr]
    return log


@dataclass
class LoadReport:
    requests: int
    seconds: float
    errors: list[str]
    latencies: list[float]
    rss_start: tuple[float, float]
    rss_end: tuple[float, float]
    rss_samples: list[float]
    clients: list[ClientLog]
    rss_after_rounds: list[float] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def percentile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else 0.0


async def _sample(pid: int, samples: list[float], stop: asyncio.Event) -> None:
    while not stop.is_set():
        samples.append(rss_mb(pid)[0])
        try:
            await asyncio.wait_for(stop.wait(), timeout=1.0)
        except TimeoutError:
            pass


async def _run(url: str, pid: int, clients: int, total: int, seconds: float,
               safe: bool, rounds: int) -> LoadReport:
    """``total`` requests in ``rounds`` rounds of ``clients`` fresh sessions each; the
    server's RSS after each round tells a cache that fills up from a leak."""
    await _client(url, 30, 0, time.monotonic() + 60, safe)  # warm the server up
    rss_start = rss_mb(pid)
    samples: list[float] = []
    stop = asyncio.Event()
    sampler = asyncio.create_task(_sample(pid, samples, stop))
    started = time.monotonic()
    deadline = started + seconds
    logs: list[ClientLog] = []
    after_rounds: list[float] = []
    for number in range(rounds):
        share = _split(total // rounds + (total % rounds if number == 0 else 0), clients)
        logs += await asyncio.gather(*(_client(url, n, number * clients + i + 1, deadline,
                                               safe) for i, n in enumerate(share)))
        after_rounds.append(rss_mb(pid)[0])
    elapsed = time.monotonic() - started
    stop.set()
    await sampler
    latencies = [s for log in logs for values in log.latencies.values() for s in values]
    errors = [e for log in logs for e in log.errors]
    return LoadReport(len(latencies) + len(errors), elapsed, errors, latencies, rss_start,
                      rss_mb(pid), samples, logs, after_rounds)


def _split(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def run_load(dist: Path, *, clients: int = 16, total: int = 20_000, seconds: float = 600,
             safe: bool = False, rounds: int = 1,
             server_args: tuple[str, ...] = ()) -> LoadReport:
    """Start the server on ``dist``, run the load, stop the server."""
    args = ("--safe",) if safe else ("--max-skills", "0", "--max-chars", "0")
    process, url = start_server(dist, *args, *server_args)
    try:
        return asyncio.run(_run(url, process.pid, clients, total, seconds, safe, rounds))
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def summary(report: LoadReport) -> str:
    return (f"{report.requests} requests in {report.seconds:.1f} s: {report.rate:.0f} req/s, "
            f"p50 {report.percentile(0.5):.1f} ms, p99 {report.percentile(0.99):.1f} ms, "
            f"{len(report.errors)} errors; server RSS {report.rss_start[0]:.0f} MB at start "
            f"(peak {report.rss_start[1]:.0f}), {report.rss_end[0]:.0f} MB at the end (peak "
            f"{report.rss_end[1]:.0f}); after each round: "
            + ", ".join(f"{mb:.0f}" for mb in report.rss_after_rounds) + " MB")


def per_client_problems(report: LoadReport) -> list[str]:
    """Why the safe run does not show budgets holding per client (empty when it does):
    a client served more than a budget, served other than the server counted, or
    stopped before spending one of its own budgets (as a shared budget would stop it)."""
    policy = SafePolicy()
    limits = {"searches": policy.max_searches, "reads": policy.max_reads,
              "chars": policy.max_chars}
    problems = [f"error: {error}" for error in report.errors[:5]]
    for number, log in enumerate(report.clients, 1):
        if not log.budgets:
            problems.append(f"client {number}: no budgets reported")
            continue
        used = {key: log.budgets[key][0] for key in limits}
        over = [key for key in limits if used[key] > limits[key]]
        served = (log.served.get("search", 0),
                  log.served.get("open", 0) + log.served.get("read", 0))
        if over:
            problems.append(f"client {number}: over its {', '.join(over)} budget: {used}")
        if served != (used["searches"], used["reads"]):
            problems.append(f"client {number}: served {served}, the server counted {used}")
        if not sum(log.refused.values()):
            problems.append(f"client {number}: never refused, so it never met its budget")
        elif not spent(log.budgets, policy):
            problems.append(f"client {number}: refused before spending a budget: {used}")
    return problems


def spent(budgets: dict[str, list[int]], policy: SafePolicy) -> list[str]:
    """The budgets a client has spent: searches or reads at their limit, or fewer
    characters left than one more search or read could take."""
    if not budgets:
        return []
    most = max(2 * policy.meta_chars * policy.search_limit, 200)
    return [key for key in ("searches", "reads", "chars")
            if budgets[key][0] >= budgets[key][1]
            or key == "chars" and budgets[key][1] - budgets[key][0] < most]
