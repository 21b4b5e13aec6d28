"""The noise of each rule, per profile, on public corpora given as paths.

    python bench/bench_noise.py /work/corpora/anthropics-skills /work/corpora/openai-skills \\
        [--labels bench/noise-sample.csv] [--sample 30 --seed 21 --out sample.csv]

For each profile (``recommended``, ``strict``, ``all``) it runs ``skillsite check
--profile P --format json`` on every corpus (a separate process each, as a user runs it)
and prints the findings per rule and per profile, and the trust levels per corpus
(``check --format json`` reports one per skill).

``--labels`` reads a hand-labelled sample (CSV: corpus, path, line, rule, verdict,
reason; verdict ``true``, ``false`` or ``taste``) and prints the false rate per rule and
per profile: a profile's rate counts the labelled findings of the rules it runs.
``--sample N`` writes N findings per corpus, picked with ``--seed``, to ``--out`` with an
empty verdict, ready to label. Nothing in the corpora is executed.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import random
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROFILES = ("recommended", "strict", "all")


def run(corpus: Path, profile: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "skillsite", "check", "--profile", profile,
                           "--format", "json", str(corpus)], capture_output=True, text=True,
                          env=env, cwd=corpus, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"check failed on {corpus}: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="+", type=Path)
    parser.add_argument("--labels", type=Path)
    parser.add_argument("--sample", type=int, default=0)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--out", type=Path, default=Path("noise-sample-new.csv"))
    args = parser.parse_args()
    counts: dict[str, Counter[str]] = {p: Counter() for p in PROFILES}
    rules_in: dict[str, set[str]] = defaultdict(set)
    levels: dict[str, Counter[str]] = {}
    picked = []
    for corpus in args.corpora:
        for profile in PROFILES:
            report = run(corpus, profile)
            for problem in report["problems"]:
                counts[profile][f"{problem['rule']} ({problem['severity']})"] += 1
                rules_in[profile].add(problem["rule"])
            if profile == "recommended":
                levels[corpus.name] = Counter(t["level"] for t in report["trust"].values())
                if args.sample:
                    chosen = random.Random(args.seed).sample(
                        report["problems"], min(args.sample, len(report["problems"])))
                    picked += [(corpus.name, p["path"], p["line"], p["rule"], "", "")
                               for p in chosen]
    print("findings per rule and profile, on", len(args.corpora), "corpora")
    print(f"{'rule':<48}" + "".join(f"{p:>13}" for p in PROFILES))
    for rule in sorted(counts["all"], key=lambda r: -counts["all"][r]):
        print(f"{rule:<48}" + "".join(f"{counts[p][rule]:>13}" for p in PROFILES))
    print(f"{'total':<48}" + "".join(f"{sum(counts[p].values()):>13}" for p in PROFILES))
    print("\ntrust levels (recommended)")
    for name, found in levels.items():
        total = sum(found.values())
        print(f"{name:<40} " + "  ".join(f"{lvl} {found[lvl]} ({found[lvl] / max(total, 1):.0%})"
                                         for lvl in ("none", "review", "high")))
    if args.labels:
        _rates(args.labels)
    if picked:
        with args.out.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["corpus", "path", "line", "rule", "verdict", "reason"])
            writer.writerows(picked)
        print(f"\nwrote {len(picked)} findings to label to {args.out}")


def _rates(labels: Path) -> None:
    sys.path.insert(0, str(REPO))
    from skillsite.config import Config
    from skillsite.linter.rules import RULES

    rows = list(csv.DictReader(labels.open()))
    by_rule: dict[str, Counter[str]] = defaultdict(Counter)
    for row in rows:
        by_rule[row["rule"]][row["verdict"]] += 1
    print(f"\nhand-labelled sample: {len(rows)} findings; false rate per rule")
    for rule, verdicts in sorted(by_rule.items()):
        total = sum(verdicts.values())
        print(f"{rule:<32} {total:>4} labelled  false {verdicts['false']:>3} "
              f"({verdicts['false'] / total:.0%})  taste {verdicts['taste']}")
    for profile in PROFILES:
        config = Config(profile=profile)
        inside = [r for r in rows if r["rule"] in RULES
                  and config.in_profile(RULES[r["rule"]].profile)]
        false = sum(r["verdict"] == "false" for r in inside)
        print(f"profile {profile:<12} {len(inside):>4} labelled  false {false} "
              f"({false / max(len(inside), 1):.1%})")


if __name__ == "__main__":
    main()
