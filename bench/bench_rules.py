"""Side by side: skillsite, skillsaw and agnix on the same real corpora.

    python bench/bench_rules.py /work/corpora/anthropics-skills \\
        /work/corpora/trailofbits-skills /work/corpora/obra-superpowers [--sample 24]

For each corpus (a checked-out repository, kept outside this one) it runs the three
linters with their JSON output, each once untimed and then timed (``--repeat``, median),
and prints:

1. findings per rule family per tool (the peers' rules are mapped to skillsite's families
   by the tables below; ``other`` is what has no skillsite family: plugins, marketplaces,
   memory files, hooks outside skills);
2. wall time per corpus per tool;
3. a deterministic sample of ``--sample`` findings per tool (seeded), to be checked by
   hand; the latest verdicts are summed up in ``docs/performance.md``.

``--json FILE`` also writes every finding. ``--speed CORPUS --before DIR`` instead times
``skillsite.check([CORPUS], jobs=1)`` in fresh processes, the skillsite source tree in DIR
(an older checkout) against this one, interleaved, and prints CPU and wall medians. The measured skillsite is the one this script
sits in (``PYTHONPATH`` is set to the repository). Nothing in the corpora is executed.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parent.parent
TOOLS = ("skillsite", "skillsaw", "agnix")

#: agnix rule ID (or prefix) -> skillsite family.
AGNIX = {
    "AS-009": "description", "AS-020": "description", "AS-012": "body", "AS-021": "body",
    "AS-027": "body", "AS-013": "links", "AS-026": "links", "AS-015": "bundled",
    "AS-022": "bundled", "AS-023": "bundled", "AS-024": "security", "AS-025": "corpus",
    "AS-": "spec", "CC-SK-017": "spec", "CC-SK-021": "other", "CC-SK-022": "description",
    "CC-SK-025": "body", "CC-SK-030": "description", "CC-SK-031": "description",
    "CC-SK-032": "description", "CC-SK-033": "description", "CC-SK-034": "bundled",
    "CC-SK-": "claude-code", "XP-SK-003": "security", "REF-": "links", "XML-": "body",
}
#: skillsaw rule ID (or prefix) -> skillsite family.
SKILLSAW = {
    "agentskill-description": "description", "agentskill-unreferenced-files": "bundled",
    "agentskill-evals": "other", "agentskill-": "spec",
    "content-broken-internal-reference": "links",
    "content-unlinked-internal-reference": "links", "content-progressive-disclosure": "links",
    "content-embedded-secrets": "security", "content-description-routing": "description",
    "security-": "security", "context-budget": "body", "content-": "body",
}


class Finding(NamedTuple):
    tool: str
    corpus: str
    rule: str
    family: str
    severity: str
    path: str
    line: int
    message: str


def family_of(rule: str, table: dict[str, str]) -> str:
    if rule in table:
        return table[rule]
    prefixes = [p for p in table if p.endswith(("-", "_")) and rule.startswith(p)]
    return table[max(prefixes, key=len)] if prefixes else "other"


def _run(command: list[str], cwd: Path) -> tuple[float, str]:
    env = dict(os.environ, PYTHONPATH=str(REPO), NO_COLOR="1")
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=900)
    return time.perf_counter() - start, done.stdout


def _relative(path: str, corpus: Path) -> str:
    """``path`` (absolute, or relative to the corpus, where the tools run) below it."""
    try:
        return str((corpus / path).resolve().relative_to(corpus.resolve()))
    except ValueError:
        return path


def skillsite(corpus: Path, out: str, families: dict[str, str]) -> list[Finding]:
    return [Finding("skillsite", corpus.name, p["rule"], families.get(p["rule"], "other"),
                    p["severity"], _relative(p["path"], corpus), p["line"], p["message"])
            for p in json.loads(out)["problems"]]


def skillsaw(corpus: Path, out: str) -> list[Finding]:
    return [Finding("skillsaw", corpus.name, v["rule_id"], family_of(v["rule_id"], SKILLSAW),
                    v["severity"], v.get("file_path") or "", v.get("line") or 1, v["message"])
            for v in json.loads(out)["violations"]]


def agnix(corpus: Path, out: str) -> list[Finding]:
    return [Finding("agnix", corpus.name, d["rule"], family_of(d["rule"], AGNIX), d["level"],
                    _relative(d["file"], corpus), d.get("line") or 1, d["message"])
            for d in json.loads(out)["diagnostics"]]


COMMANDS = {
    "skillsite": lambda c: [sys.executable, "-m", "skillsite", "check", str(c), "--format",
                            "json"],
    "skillsaw": lambda c: ["skillsaw", "lint", str(c), "--format", "json", "--no-progress"],
    "agnix": lambda c: ["agnix", str(c), "--format", "json"],
}


def skillsite_families() -> dict[str, str]:
    _, out = _run([sys.executable, "-m", "skillsite", "rules", "--format", "json"], REPO)
    return {r["id"]: r["family"] for r in json.loads(out)}


def measure(corpus: Path, tool: str, repeat: int, families: dict[str, str]
            ) -> tuple[float, list[Finding]]:
    command = COMMANDS[tool](corpus)
    _run(command, corpus)  # warm-up: imports, page cache
    runs = [_run(command, corpus) for _ in range(repeat)]
    out = runs[-1][1]
    parse = {"skillsite": lambda: skillsite(corpus, out, families),
             "skillsaw": lambda: skillsaw(corpus, out), "agnix": lambda: agnix(corpus, out)}
    return statistics.median(t for t, _ in runs), parse[tool]()


_TIMED = """
import sys, time, skillsite
from pathlib import Path
corpus = [Path(sys.argv[1])]
skillsite.check(corpus, jobs=1)
cpu, wall = time.process_time(), time.perf_counter()
result = skillsite.check(corpus, jobs=1)
print(time.process_time() - cpu, time.perf_counter() - wall, len(result.problems))
"""


def speed(corpus: Path, before: Path, repeat: int) -> None:
    """Interleaved fresh-process runs of the two source trees; CPU and wall medians."""
    runs: dict[str, list[list[float]]] = {"before": [], "after": []}
    for _ in range(repeat):
        for label, tree in (("before", before), ("after", REPO)):
            env = dict(os.environ, PYTHONPATH=str(tree))
            # cwd=tree: "python -c" puts the current folder first on sys.path.
            out = subprocess.run([sys.executable, "-c", _TIMED, str(corpus)], env=env,
                                 cwd=tree, capture_output=True, text=True, check=True).stdout
            runs[label].append([float(x) for x in out.split()])
    for label, found in runs.items():
        print(f"{label}: CPU {statistics.median(r[0] for r in found):.2f} s, wall "
              f"{statistics.median(r[1] for r in found):.2f} s, {int(found[0][2])} problems")
    ratio = (statistics.median(r[0] for r in runs["after"])
             / statistics.median(r[0] for r in runs["before"]))
    print(f"after / before (CPU): {ratio:.2f}x")


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |" for row in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="*", type=Path)
    parser.add_argument("--speed", type=Path, help="time check on this corpus instead")
    parser.add_argument("--before", type=Path, help="with --speed: the older source tree")
    parser.add_argument("--sample", type=int, default=24)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.speed:
        speed(args.speed, args.before or REPO, args.repeat)
        return
    tools = [t for t in TOOLS if t == "skillsite" or shutil.which(t)]
    for missing in set(TOOLS) - set(tools):
        print(f"note: {missing} is not installed; it is left out", file=sys.stderr)
    families = skillsite_families()
    findings: list[Finding] = []
    times: dict[tuple[str, str], float] = {}
    for corpus in args.corpora:
        for tool in tools:
            seconds, found = measure(corpus.resolve(), tool, args.repeat, families)
            times[corpus.name, tool] = seconds
            findings += found
    _report(args, tools, findings, times)


def _report(args: argparse.Namespace, tools: list[str], findings: list[Finding],
            times: dict[tuple[str, str], float]) -> None:
    counts = Counter((f.family, f.tool) for f in findings)
    names = sorted({f.family for f in findings})
    print("## Findings per rule family (all corpora)\n")
    print(_table([["family", *tools]] + [[n, *(str(counts[n, t]) for t in tools)]
                                          for n in names]
                 + [["total", *(str(sum(counts[n, t] for n in names)) for t in tools)]]))
    per_corpus = Counter((f.corpus, f.tool) for f in findings)
    print(f"\n## Wall time per corpus (median of {args.repeat} runs, seconds) and findings\n")
    print(_table([["corpus", *tools]] + [
        [c.name, *(f"{times[c.name, t]:.2f} s / {per_corpus[c.name, t]}" for t in tools)]
        for c in args.corpora]))
    rng = random.Random(args.seed)
    for tool in tools:
        mine = sorted(f for f in findings if f.tool == tool)
        print(f"\n## Sample of {tool} findings (seed {args.seed})\n")
        for number, f in enumerate(rng.sample(mine, min(args.sample, len(mine))), 1):
            print(f"{number:2}. {f.corpus}/{f.path}:{f.line} [{f.rule}] {f.message[:150]}")
    if args.json:
        args.json.write_text(json.dumps([f._asdict() for f in findings], indent=1))


if __name__ == "__main__":
    main()
