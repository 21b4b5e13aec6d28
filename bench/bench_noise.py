"""The noise of each rule, per profile, on public corpora given as paths.

    python bench/bench_noise.py /work/corpora/* [--labels bench/noise_labels.csv]
        [--sample 8 --seed 21 --out to-label.csv]

For each profile (``recommended``, ``strict``, ``all``) it runs ``skillsite check
--profile P --format json`` on every corpus (a separate process each, as a user runs it)
and prints the findings per rule and per profile, and the trust levels per corpus
(``check --format json`` reports one per skill).

``--labels`` reads a hand-labelled sample (CSV: corpus, commit, path, line, column, rule,
verdict, reason; ``verdict`` is ``true``, ``false`` or ``taste``; ``path`` is relative to
the corpus, which ``commit`` identifies) and joins it with today's findings on the corpora
given whose ``HEAD`` is that commit. It prints the sample's size per corpus, the false
rate per rule, and per profile two rates: in the sample, and estimated over every finding
of the profile (each rule's false rate weighted by its number of findings, since the
sample is stratified by rule). A label whose finding is gone (a rule fixed since) is
counted apart and never in a rate.

``--sample N`` writes, for every rule with findings (under ``all``), up to N of them (2N
for a rule with ten times as many findings), taken in turn from each corpus and in a
seeded order within it, to ``--out`` with an empty verdict, ready to label; with
``--labels``, only findings not labelled yet (a fresh sample, to check fixes made after
labelling on findings they were not tuned on). Labels never
copy a corpus's text: the reason is the labeller's own words. Nothing in the corpora is
executed.
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
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROFILES = ("recommended", "strict", "all")
FIELDS = ("corpus", "commit", "path", "line", "column", "rule", "verdict", "reason")
VERDICTS = ("true", "false", "taste")


@dataclass(frozen=True)
class Corpus:
    path: Path
    repo: str     # owner/name, from the remote's URL or the folder's name
    commit: str   # HEAD, or "" outside git


@dataclass(frozen=True)
class Finding:
    corpus: Corpus
    path: str     # relative to the corpus
    line: int
    column: int
    rule: str
    severity: str

    @property
    def key(self) -> tuple[str, str, int, int, str]:
        return (self.corpus.commit, self.path, self.line, self.column, self.rule)


def corpus_of(path: Path) -> Corpus:
    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(path), *args], capture_output=True,
                              text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""
    remote = git("remote", "get-url", "origin").rstrip("/").removesuffix("/repo")
    remote = remote.removesuffix(".git")
    owner_name = remote.rsplit("/", 1)[-1].replace("+", "/") if "+" in remote else \
        "/".join(remote.rsplit("/", 2)[-2:]) if remote else path.name
    return Corpus(path, owner_name, git("rev-parse", "HEAD"))


def run(corpus: Path, profile: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "skillsite", "check", "--profile", profile,
                           "--format", "json", str(corpus)], capture_output=True, text=True,
                          env=env, cwd=corpus, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"check failed on {corpus}: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)


def findings_of(corpus: Corpus, report: dict) -> list[Finding]:
    root = os.path.abspath(corpus.path)
    return [Finding(corpus, os.path.relpath(os.path.join(root, p["path"]), root), p["line"],
                    p["column"], p["rule"], p["severity"]) for p in report["problems"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="+", type=Path)
    parser.add_argument("--labels", type=Path)
    parser.add_argument("--sample", type=int, default=0)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--out", type=Path, default=Path("noise-sample-new.csv"))
    args = parser.parse_args()
    corpora = [corpus_of(path) for path in args.corpora]
    found: dict[str, list[Finding]] = {}
    levels: dict[str, Counter[str]] = {}
    for corpus in corpora:
        for profile in PROFILES:
            report = run(corpus.path, profile)
            found.setdefault(profile, []).extend(findings_of(corpus, report))
            if profile == "recommended":
                levels[corpus.repo] = Counter(t["level"] for t in report["trust"].values())
    _print_counts(found, len(corpora))
    _print_levels(levels)
    if args.labels:
        _rates(args.labels, found, corpora)
    if args.sample:
        labelled = _keys(args.labels) if args.labels else set()
        picked = sample([f for f in found["all"] if f.key not in labelled], args.sample,
                        args.seed)
        with args.out.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(FIELDS)
            writer.writerows([f.corpus.repo, f.corpus.commit, f.path, f.line, f.column,
                              f.rule, "", ""] for f in picked)
        print(f"\nwrote {len(picked)} findings to label to {args.out}")


def _print_counts(found: dict[str, list[Finding]], corpora: int) -> None:
    counts = {p: Counter(f"{f.rule} ({f.severity})" for f in found[p]) for p in PROFILES}
    print("findings per rule and profile, on", corpora, "corpora")
    print(f"{'rule':<48}" + "".join(f"{p:>13}" for p in PROFILES))
    for rule in sorted(counts["all"], key=lambda r: (-counts["all"][r], r)):
        print(f"{rule:<48}" + "".join(f"{counts[p][rule]:>13}" for p in PROFILES))
    print(f"{'total':<48}" + "".join(f"{sum(counts[p].values()):>13}" for p in PROFILES))


def _print_levels(levels: dict[str, Counter[str]]) -> None:
    print("\ntrust levels (recommended)")
    for name, found in levels.items():
        total = sum(found.values())
        print(f"{name:<40} {total:>4} skills  " + "  ".join(
            f"{lvl} {found[lvl]} ({found[lvl] / max(total, 1):.0%})"
            for lvl in ("none", "review", "high")))


def sample(findings: list[Finding], per_rule: int, seed: int) -> list[Finding]:
    """Up to ``per_rule`` findings of each rule (twice as many for a rule with ten times
    as many findings), taken in turn from each corpus, in a seeded order within it."""
    by_rule: dict[str, dict[str, list[Finding]]] = defaultdict(lambda: defaultdict(list))
    for finding in findings:
        by_rule[finding.rule][finding.corpus.repo].append(finding)
    picked: list[Finding] = []
    for rule in sorted(by_rule):
        queues = []
        for repo in sorted(by_rule[rule]):
            queue = sorted(by_rule[rule][repo], key=lambda f: f.key)
            random.Random(f"{seed}:{rule}:{repo}").shuffle(queue)
            queues.append(queue)
        total = sum(len(q) for q in queues)
        want = min(total, per_rule * (2 if total >= 10 * per_rule else 1))
        while want:  # want <= total: every turn takes one at least
            for queue in queues:
                if queue and want:
                    picked.append(queue.pop(0))
                    want -= 1
    return picked


def _keys(labels: Path) -> set[tuple[str, str, int, int, str]]:
    return {(r["commit"], r["path"], int(r["line"]), int(r["column"]), r["rule"])
            for r in csv.DictReader(labels.open())}


def _rates(labels: Path, found: dict[str, list[Finding]], corpora: list[Corpus]) -> None:
    sys.path.insert(0, str(REPO))
    from skillsite.config import Config
    from skillsite.linter.rules import RULES

    commits = {c.commit for c in corpora}
    rows = [r for r in csv.DictReader(labels.open()) if r["commit"] in commits]
    bad = [r for r in rows if r["verdict"] not in VERDICTS]
    if bad:
        raise SystemExit(f"{labels}: verdict must be one of {VERDICTS}: {bad[0]}")
    today = {f.key for f in found["all"]}
    key = lambda r: (r["commit"], r["path"], int(r["line"]), int(r["column"]), r["rule"])  # noqa: E731
    live = [r for r in rows if key(r) in today]
    gone = len(rows) - len(live)
    print(f"\nhand-labelled sample: {len(live)} findings of today's, on "
          f"{len({r['corpus'] for r in live})} corpora ({gone} more labelled findings are "
          "gone: fixed since)")
    for repo, count in sorted(Counter(r["corpus"] for r in live).items()):
        print(f"  {repo:<40} {count:>4}")
    by_rule: dict[str, Counter[str]] = defaultdict(Counter)
    for row in live:
        by_rule[row["rule"]][row["verdict"]] += 1
    all_counts = Counter(f.rule for f in found["all"])
    print(f"\n{'rule':<32} {'profile':<12} {'findings':>8} {'labelled':>8} {'false':>6} "
          f"{'rate':>6} {'taste':>6}")
    for rule in sorted(by_rule, key=lambda r: (RULES[r].profile if r in RULES else "", r)):
        verdicts = by_rule[rule]
        total = sum(verdicts.values())
        profile = RULES[rule].profile if rule in RULES else "?"
        print(f"{rule:<32} {profile:<12} {all_counts[rule]:>8} {total:>8} "
              f"{verdicts['false']:>6} {verdicts['false'] / total:>6.0%} {verdicts['taste']:>6}")
    for profile in PROFILES:
        config = Config(profile=profile)
        inside = [r for r in live if r["rule"] in RULES
                  and config.in_profile(RULES[r["rule"]].profile)]
        false = sum(r["verdict"] == "false" for r in inside)
        false_errors = sum(r["verdict"] == "false" and RULES[r["rule"]].severity == "error"
                           for r in inside)
        counts = Counter(f.rule for f in found[profile])
        estimate = sum(counts[rule] * by_rule[rule]["false"] / sum(by_rule[rule].values())
                       for rule in counts if by_rule.get(rule))
        unlabelled = sum(n for rule, n in counts.items() if not by_rule.get(rule))
        print(f"profile {profile:<12} sample {len(inside):>4}: false {false} "
              f"({false / max(len(inside), 1):.1%}), false errors {false_errors}; "
              f"over its {sum(counts.values())} findings: about {estimate:.0f} false "
              f"({estimate / max(sum(counts.values()), 1):.1%}); "
              f"{unlabelled} findings of rules without labels")


if __name__ == "__main__":
    main()
