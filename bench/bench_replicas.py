"""Replicas sharing budgets in Redis, under load: two ``skillsite mcp --http --safe --shared
redis://...`` replicas and one real ``redis-server``, against one ``--safe`` server that
keeps its budgets in memory (the peer: what a single replica does today), side by side.

    python bench/bench_replicas.py [--dist DIR] [--count 2000] [--requests 20000]
                                   [--clients 16] [--seconds 900]

Each of ``--clients`` clients (its own bearer token) sends its share of ``--requests``
calls, a chain search -> open(hit) -> read(hit) with the refs of the last answer, as safe
mode requires; against the replicas every HTTP request goes to the other replica than the
one before (round-robin, no sticky sessions). Safe mode's default budgets are far below
a client's share, so most calls are refused: the run shows that each client is served
exactly its one budget (the searches and reads it was served equal what the store counted
and the window's limits), whichever replica served it. It prints, for both setups:
errors (the goal is 0), clients served exactly their budget, requests per second, p50 and
p99 latency (served and refused apart too), the servers' CPU seconds, each replica's RSS
at the start, at the end and its peak, and for Redis the commands per request (INFO
commandstats before and after, commands run inside scripts included) and its CPU seconds.
Everything runs on 127.0.0.1; each setup stops after its requests or ``--seconds``.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import generate  # noqa: E402
from load import (  # noqa: E402
    ClientLog,
    _call,
    per_client_problems,
    rss_mb,
    search_open_read,
    start_server,
)
from mcp import Client  # noqa: E402
from redis_server import RedisServer  # noqa: E402
from replicas import replicas, round_robin_client  # noqa: E402

from skillsite.builder.pipeline import build  # noqa: E402

ClientFactory = Callable[[int], contextlib.AbstractAsyncContextManager[Client]]


@dataclass
class Run:
    """One setup's run: what each client did, and the servers' samples."""

    name: str
    seconds: float = 0.0
    clients: list[ClientLog] = field(default_factory=list)
    rss: dict[int, list[float]] = field(default_factory=dict)
    rss_start: dict[int, tuple[float, float]] = field(default_factory=dict)
    rss_end: dict[int, tuple[float, float]] = field(default_factory=dict)
    cpu: dict[int, float] = field(default_factory=dict)
    redis_calls: dict[str, int] = field(default_factory=dict)
    redis_cpu: float = 0.0
    redis_memory: tuple[int, int, int] = (0, 0, 0)  # used_memory before, after; keys after

    @property
    def errors(self) -> list[str]:
        return [e for log in self.clients for e in log.errors]

    @property
    def requests(self) -> int:
        return sum(len(v) for log in self.clients for v in log.latencies.values()) + len(
            self.errors)

    def latencies(self, which: str = "all") -> list[float]:
        logs = self.clients
        if which == "served":
            return sorted(s for log in logs for s in _served_latencies(log))
        if which == "refused":
            return sorted(s for log in logs for s in _refused_latencies(log))
        return sorted(s for log in logs for v in log.latencies.values() for s in v)

    @property
    def errors_and_budgets(self) -> list[str]:
        """load.per_client_problems wants a LoadReport: the fields it reads."""
        return per_client_problems(self)  # type: ignore[arg-type]


@dataclass
class TimedLog(ClientLog):
    """A client's log, with the latencies of its served and refused calls apart."""

    served_latencies: list[float] = field(default_factory=list)
    refused_latencies: list[float] = field(default_factory=list)


def _served_latencies(log: ClientLog) -> list[float]:
    return log.served_latencies if isinstance(log, TimedLog) else []


def _refused_latencies(log: ClientLog) -> list[float]:
    return log.refused_latencies if isinstance(log, TimedLog) else []


def cpu_seconds(pid: int) -> float:
    """user + system CPU seconds of ``pid`` so far (children not counted)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _timed(client: Client, log: TimedLog, tool: str, **arguments: Any) -> Any:
    """load._call, and the latency filed as served or refused."""
    refused_before = sum(log.refused.values())
    started = time.perf_counter()
    answer = await _call(client, log, tool, **arguments)
    took = time.perf_counter() - started
    if sum(log.refused.values()) > refused_before:
        log.refused_latencies.append(took)
    elif answer is not None:
        log.served_latencies.append(took)
    return answer


async def _client(make: ClientFactory, number: int, requests: int,
                  deadline: float) -> TimedLog:
    """``requests`` calls: search, open a hit, read it (a section half the time), again."""
    log = TimedLog()
    async with make(number) as client:
        await search_open_read(partial(_timed, client, log), random.Random(number), requests,
                               deadline)
        result = await client.call_tool("context", {})  # not counted as a request
        text = result.content[0].text  # type: ignore[union-attr]
        if result.is_error:
            log.errors.append(f"context: {text[:200]}")
        else:
            log.budgets = json.loads(text)["budgets"]["safe"]
    return log


async def _sample(pids: list[int], run: Run, stop: asyncio.Event) -> None:
    while not stop.is_set():
        for pid in pids:
            run.rss.setdefault(pid, []).append(rss_mb(pid)[0])
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=1.0)


async def _load(run: Run, make: ClientFactory, pids: list[int], clients: int, total: int,
                seconds: float) -> None:
    run.rss_start = {pid: rss_mb(pid) for pid in pids}
    cpu_before = {pid: cpu_seconds(pid) for pid in pids}
    stop = asyncio.Event()
    sampler = asyncio.create_task(_sample(pids, run, stop))
    started = time.monotonic()
    shares = [total // clients + (1 if i < total % clients else 0) for i in range(clients)]
    run.clients = list(await asyncio.gather(*(
        _client(make, number + 1, share, started + seconds)
        for number, share in enumerate(shares))))
    run.seconds = time.monotonic() - started
    stop.set()
    await sampler
    run.rss_end = {pid: rss_mb(pid) for pid in pids}
    run.cpu = {pid: cpu_seconds(pid) - cpu_before[pid] for pid in pids}


def _token(number: int) -> dict[str, str]:
    return {"Authorization": f"Bearer load-client-{number}"}


def run_memory(dist: Path, clients: int, total: int, seconds: float) -> Run:
    """The peer: one ``--safe`` server, budgets in its memory, one MCP session per client."""
    run = Run("one replica, memory")
    process, url = start_server(dist, "--safe")
    try:
        @contextlib.asynccontextmanager
        async def make(number: int) -> AsyncIterator[Client]:
            async with Client(url, mode="legacy") as client:
                yield client

        asyncio.run(_warm(make))
        asyncio.run(_load(run, make, [process.pid], clients, total, seconds))
    finally:
        _stop(process)
    return run


def run_replicas(dist: Path, clients: int, total: int, seconds: float) -> Run:
    """Two ``--safe --shared`` replicas and Redis, every client round-robin over both."""
    import redis

    run = Run("two replicas, Redis")
    with RedisServer() as server, replicas(dist, server.url, 2, "--safe") as running:
        urls = [url for _, url in running]

        @contextlib.asynccontextmanager
        async def make(number: int) -> AsyncIterator[Client]:
            async with round_robin_client(urls, _token(number)) as (client, _):
                yield client

        asyncio.run(_warm(make))
        stats = redis.Redis.from_url(server.url)
        stats.flushdb()  # the warm-up's budgets: the clients start afresh
        before = stats.info("commandstats")
        memory_before = int(stats.info("memory")["used_memory"])
        redis_cpu = cpu_seconds(server.process.pid)  # type: ignore[union-attr]
        asyncio.run(_load(run, make, [p.pid for p, _ in running], clients, total, seconds))
        after = stats.info("commandstats")
        run.redis_memory = (memory_before, int(stats.info("memory")["used_memory"]),
                            int(stats.dbsize()))
        run.redis_cpu = cpu_seconds(server.process.pid) - redis_cpu  # type: ignore[union-attr]
        run.redis_calls = {name.removeprefix("cmdstat_"): after[name]["calls"]
                           - before.get(name, {}).get("calls", 0)
                           for name in after if name not in ("cmdstat_info", "cmdstat_flushdb")}
    return run


async def _warm(make: ClientFactory) -> None:
    """One client's few calls first (imports, the index), under a token of its own."""
    async with make(0) as client:
        await client.call_tool("search", {"query": "warm up the index"})


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()


def _percentile(values: list[float], q: float) -> str:
    if not values:
        return "-"
    return f"{values[min(len(values) - 1, int(q * len(values)))] * 1000:.1f}"


def report(runs: list[Run], clients: int) -> list[str]:
    rows: list[tuple[str, list[str]]] = []

    def row(label: str, value: Callable[[Run], str]) -> None:
        rows.append((label, [value(run) for run in runs]))

    row("requests", lambda r: f"{r.requests} in {r.seconds:.1f} s")
    row("errors (goal 0)", lambda r: str(len(r.errors)))
    row("clients served exactly their budget",
        lambda r: f"{clients - len({p.split(':')[0] for p in r.errors_and_budgets})}/{clients}")
    row("served / refused", lambda r: f"{len(r.latencies('served'))} / "
        f"{len(r.latencies('refused'))}")
    row("requests per second", lambda r: f"{r.requests / r.seconds:.0f}" if r.seconds else "-")
    row("p50 / p99 ms, all", lambda r: f"{_percentile(r.latencies(), 0.5)} / "
        f"{_percentile(r.latencies(), 0.99)}")
    row("p50 / p99 ms, served", lambda r: f"{_percentile(r.latencies('served'), 0.5)} / "
        f"{_percentile(r.latencies('served'), 0.99)}")
    row("p50 / p99 ms, refused", lambda r: f"{_percentile(r.latencies('refused'), 0.5)} / "
        f"{_percentile(r.latencies('refused'), 0.99)}")
    row("server CPU s (user+sys), per replica",
        lambda r: " + ".join(f"{cpu:.1f}" for cpu in r.cpu.values()))
    row("RSS MB per replica: start -> end (peak)", lambda r: ", ".join(
        f"{r.rss_start[pid][0]:.0f} -> {r.rss_end[pid][0]:.0f} ({r.rss_end[pid][1]:.0f})"
        for pid in r.rss_start))
    row("RSS MB per replica, 1 s samples: min-max", lambda r: ", ".join(
        f"{min(s):.0f}-{max(s):.0f}" for s in r.rss.values()))
    row("Redis commands per request", lambda r: f"{sum(r.redis_calls.values()) / r.requests:.2f}"
        if r.redis_calls and r.requests else "-")
    row("Redis CPU s (user+sys)", lambda r: f"{r.redis_cpu:.1f}" if r.redis_calls else "-")
    row("Redis memory MB before -> after (keys)", lambda r: (
        f"{r.redis_memory[0] / 2**20:.1f} -> {r.redis_memory[1] / 2**20:.1f} "
        f"({r.redis_memory[2]})") if r.redis_calls else "-")
    width = max(len(label) for label, _ in rows)
    columns = [max(len(run.name), *(len(values[i]) for _, values in rows))
               for i, run in enumerate(runs)]
    lines = [" " * width + "  " + "  ".join(run.name.rjust(columns[i])
                                            for i, run in enumerate(runs))]
    lines += [label.ljust(width) + "  " + "  ".join(value.rjust(columns[i])
                                                    for i, value in enumerate(values))
              for label, values in rows]
    for run in runs:
        if run.redis_calls:
            shown = sorted(run.redis_calls.items(), key=lambda item: -item[1])
            lines.append(f"Redis commands of {run.requests} requests ({run.name}): "
                         + ", ".join(f"{name} {calls}" for name, calls in shown if calls))
        lines += [f"{run.name}: {problem}" for problem in run.errors_and_budgets[:10]]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dist", type=Path, help="a built dist/ (default: generate --count)")
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=900,
                        help="stop each setup's load after this long")
    parser.add_argument("--peer", action=argparse.BooleanOptionalAction, default=True,
                        help="run the one-replica, in-memory setup too")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="skillsite-replicas-") as tmp:
        dist = args.dist
        if dist is None:
            generate(Path(tmp) / "corpus", args.count, seed=1)
            dist = build(Path(tmp) / "corpus", Path(tmp) / "dist", jobs=2).dist
        runs = [run_replicas(dist, args.clients, args.requests, args.seconds)]
        print("\n".join(report(runs, args.clients)), flush=True)  # in case the peer fails
        if args.peer:
            runs.insert(0, run_memory(dist, args.clients, args.requests, args.seconds))
    print(f"{args.clients} clients, {args.requests} requests each setup, safe mode, "
          "127.0.0.1")
    print("\n".join(report(runs, args.clients)))
    return 0 if all(not run.errors_and_budgets for run in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
