"""Load on the MCP server over streamable HTTP: mixed search / open / read requests from
concurrent clients, then the same in safe mode to show what the budgets allow.

    python bench/bench_load.py [--count 2000] [--requests 20000] [--clients 16]
                               [--seconds 600] [--dist DIR] [--safe-requests 2000]
                               [--no-normal]

It generates a ``--count`` corpus (``generate.py``) and builds it, unless ``--dist`` is
given, then starts ``skillsite mcp --http 127.0.0.1:PORT`` (budgets off) and runs
``--requests`` calls, in ``--rounds`` rounds of ``--clients`` concurrent new sessions of the real SDK client, each
a chain search -> open(hit) -> read(hit, a section half the time). It prints requests per
second, p50 and p99 latency, errors (must be 0), and the server's RSS and peak RSS after a
warm-up and at the end, with 1 s samples in between (memory must stay flat). Then the same
clients run against ``--safe`` (default per-window budgets, ``--safe-requests`` calls in
all, far more than one client's budgets allow): it prints, per client (per MCP session),
what was served and refused and what the server counted for that session (its ``context``
at the end), and PASS when each client was served its own full budget and none more than
its budgets. ``--no-normal`` runs the safe part only. Every request goes to 127.0.0.1, and
each run stops after its request count or ``--seconds``, whichever comes first.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import generate  # noqa: E402
from load import per_client_problems, run_load, spent, summary  # noqa: E402

from skillsite.builder.pipeline import build  # noqa: E402
from skillsite.reader.safe import SafePolicy  # noqa: E402


def _safe_table(report) -> list[str]:  # type: ignore[no-untyped-def]
    """Per client: what it was served and refused, and the server's count of its
    session against the budgets."""
    policy = SafePolicy()
    rows = [f"safe mode budgets of each client, per window of {policy.window} s: "
            f"{policy.max_searches} searches, {policy.max_reads} reads (open and read), "
            f"{policy.max_chars} characters",
            f"{'client':>6} {'search ok':>9} {'refused':>7} {'read ok':>7} {'refused':>7}   "
            f"{'server: searches':>16} {'reads':>6} {'characters':>12}  spent"]
    for number, log in enumerate(report.clients, 1):
        used = {key: log.budgets.get(key, [0, 0])[0] for key in ("searches", "reads", "chars")}
        rows.append(f"{number:>6} {log.served.get('search', 0):>9} "
                    f"{log.refused.get('search', 0):>7} "
                    f"{log.served.get('open', 0) + log.served.get('read', 0):>7} "
                    f"{log.refused.get('open', 0) + log.refused.get('read', 0):>7}   "
                    f"{used['searches']:>16} {used['reads']:>6} {used['chars']:>12}  "
                    f"{', '.join(spent(log.budgets, policy)) or '-'}")
    searches = sum(log.served.get("search", 0) for log in report.clients)
    reads = sum(log.served.get("open", 0) + log.served.get("read", 0) for log in report.clients)
    rows.append(f"all clients: {searches} searches and {reads} opens/reads served "
                f"({len(report.clients)} x {policy.max_searches} searches would be "
                f"{len(report.clients) * policy.max_searches})")
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
    parser.add_argument("--safe-requests", type=int, default=2000,
                        help="requests of the safe-mode run (all clients together)")
    parser.add_argument("--normal", action=argparse.BooleanOptionalAction, default=True,
                        help="run the normal-mode load first (--no-normal: safe mode only)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="skillsite-load-") as tmp:
        dist = args.dist
        if dist is None:
            generate(Path(tmp) / "corpus", args.count, seed=1)
            dist = build(Path(tmp) / "corpus", Path(tmp) / "dist", jobs=2).dist
        ok = True
        if args.normal:
            report = run_load(dist, clients=args.clients, total=args.requests,
                              seconds=args.seconds, rounds=args.rounds)
            print(f"normal mode, {args.clients} clients: {summary(report)}")
            print("RSS samples (MB, every 5 s): "
                  + " ".join(f"{s:.0f}" for s in report.rss_samples[::5]))
            for error in report.errors[:10]:
                print("  error:", error)
            ok = not report.errors and report.requests >= args.requests
        safe = run_load(dist, clients=args.clients, total=args.safe_requests,
                        seconds=args.seconds, safe=True)
        print(f"\nsafe mode, {args.clients} clients: {summary(safe)}")
        print("\n".join(_safe_table(safe)))
        problems = per_client_problems(safe)
        if args.normal:
            print(f"\nnormal mode: {'PASS' if ok else 'FAIL'} (zero errors, every request "
                  "served)")
        print(f"safe mode: {'PASS' if not problems else 'FAIL'} (each client is served its "
              "own budgets, no more)")
        for problem in problems[:10]:
            print("  ", problem)
        return 0 if ok and not problems else 1


if __name__ == "__main__":
    sys.exit(main())
