"""Load on the MCP server over streamable HTTP: mixed search / open / read requests from
concurrent clients, then the same in safe mode to show what the budgets allow.

    python bench/bench_load.py [--count 2000] [--requests 20000] [--clients 16]
                               [--seconds 600] [--dist DIR]

It generates a ``--count`` corpus (``generate.py``) and builds it, unless ``--dist`` is
given, then starts ``skillsite mcp --http 127.0.0.1:PORT`` (budgets off) and runs
``--requests`` calls, in ``--rounds`` rounds of ``--clients`` concurrent new sessions of the real SDK client, each
a chain search -> open(hit) -> read(hit, a section half the time). It prints requests per
second, p50 and p99 latency, errors (must be 0), and the server's RSS and peak RSS after a
warm-up and at the end, with 1 s samples in between (memory must stay flat). Then the same
clients run against ``--safe`` (default per-window budgets): it prints, per client, what
was served and refused, against the budgets. Every request goes to 127.0.0.1, and each run
stops after ``--requests`` calls or ``--seconds``, whichever comes first.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import generate  # noqa: E402
from load import run_load, summary  # noqa: E402

from skillsite.builder.pipeline import build  # noqa: E402
from skillsite.reader.safe import SafePolicy  # noqa: E402


def _safe_table(report) -> list[str]:  # type: ignore[no-untyped-def]
    policy = SafePolicy()
    rows = [f"safe mode budgets per window of {policy.window} s: {policy.max_searches} "
            f"searches, {policy.max_reads} reads, {policy.max_chars} characters",
            f"{'client':>6} {'search ok':>10} {'refused':>8} {'open ok':>8} {'read ok':>8} "
            f"{'refused':>8}"]
    for number, log in enumerate(report.clients, 1):
        rows.append(f"{number:>6} {log.served.get('search', 0):>10} "
                    f"{log.refused.get('search', 0):>8} {log.served.get('open', 0):>8} "
                    f"{log.served.get('read', 0):>8} "
                    f"{log.refused.get('open', 0) + log.refused.get('read', 0):>8}")
    searches = sum(log.served.get("search", 0) for log in report.clients)
    reads = sum(log.served.get("open", 0) + log.served.get("read", 0) for log in report.clients)
    rows.append(f"all clients: {searches} searches and {reads} opens/reads served")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--rounds", type=int, default=4,
                        help="rounds of fresh sessions; RSS is printed after each")
    parser.add_argument("--dist", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="skillsite-load-") as tmp:
        dist = args.dist
        if dist is None:
            generate(Path(tmp) / "corpus", args.count, seed=1)
            dist = build(Path(tmp) / "corpus", Path(tmp) / "dist", jobs=2).dist
        report = run_load(dist, clients=args.clients, total=args.requests,
                          seconds=args.seconds, rounds=args.rounds)
        print(f"normal mode, {args.clients} clients: {summary(report)}")
        print("RSS samples (MB, every 5 s): "
              + " ".join(f"{s:.0f}" for s in report.rss_samples[::5]))
        for error in report.errors[:10]:
            print("  error:", error)
        safe = run_load(dist, clients=args.clients, total=min(args.requests, 2000),
                        seconds=args.seconds, safe=True)
        print(f"\nsafe mode, {args.clients} clients: {summary(safe)}")
        print("\n".join(_safe_table(safe)))
        ok = not report.errors and report.requests >= args.requests
        print(f"\nnormal mode: {'PASS' if ok else 'FAIL'} (zero errors, every request served)")
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
