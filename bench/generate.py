"""Deterministic synthetic skill corpus for benchmarks.

Usage::

    python bench/generate.py OUT_DIR --count 10000 [--seed 1]

or from Python::

    sys.path.insert(0, "bench"); from generate import generate
    stats = generate(Path("out"), 10000, seed=1)   # -> GenerateStats

Layout of ``OUT_DIR`` (``count`` skills in total, same output for the same
``count`` and ``seed``)::

    skills/<name>/SKILL.md                  ~90 %  Agent Skills (incl. ~3 % deliberately bad)
    skills/<name>/references/REFERENCE.md   linked from the body (most skills)
    skills/<name>/references/EXAMPLES.md    (some skills)
    skills/<name>/scripts/run.sh            (some skills)
    oxo-flow/<name>.skill.toml              ~4 %   oxo-flow, knowledge and tool skills
    ongrid/<name>/skill.json + run.sh       ~3 %   ongrid subprocess skills
    wiki/<name>.md                          ~3 %   Mini-A virtual skill pages

Everything under ``skills/`` is ``SKILL.md``, so that folder is the subset a
SKILL.md-only validator (``skills-ref``) can be compared on.

The deliberately bad skills (under ``skills/``) break one thing each, chosen in
rotation: an invalid name (uppercase and ``_``), a missing ``description``, a
broken relative link, an unknown top-level field. Everything else is meant to be
clean for ``skillsite check``.

The generator only uses the standard library and writes files directly. It is bound by
the file system: on the 2-core benchmark VM, 10k skills (21.6k files) take 2-4 s and 100k
skills (215k files) 17-60 s, depending on how busy the disk's writeback is.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

__all__ = ["generate", "GenerateStats", "SKILLS_DIR", "BAD_KINDS"]

#: Folder (under the output directory) that holds only SKILL.md skills.
SKILLS_DIR = "skills"
#: The kinds of deliberately bad SKILL.md skills, used in rotation.
BAD_KINDS = ("bad-name", "missing-description", "broken-link", "unknown-field")

# Share of each format, as cumulative thresholds on one uniform draw.
_P_OXO = 0.04
_P_ONGRID = 0.03
_P_MINIA = 0.03
_P_BAD = 0.03


@dataclass
class GenerateStats:
    """What :func:`generate` wrote (counts of skills, not of files)."""

    skill_md: int = 0          # SKILL.md skills under skills/ (good + bad)
    skill_md_bad: int = 0      # of which deliberately bad
    oxo_flow: int = 0
    ongrid: int = 0
    mini_a: int = 0
    files: int = 0             # every file written, supporting files included
    bad: dict[str, int] = field(default_factory=lambda: {k: 0 for k in BAD_KINDS})

    @property
    def total(self) -> int:
        return self.skill_md + self.oxo_flow + self.ongrid + self.mini_a


# --------------------------------------------------------------------------- vocabulary

_VERBS = ["review", "debug", "generate", "migrate", "audit", "summarize", "triage", "deploy",
          "benchmark", "document", "refactor", "validate", "monitor", "profile", "format",
          "translate", "analyze", "scaffold", "archive", "rotate", "backfill", "index",
          "lint", "package", "release", "diagnose", "optimize", "harden", "trace", "export"]
_NOUNS = ["sql", "pdf", "terraform", "kubernetes", "helm", "changelog", "api", "schema",
          "docker", "git", "logs", "metrics", "invoices", "csv", "notebook", "graphql",
          "react", "django", "rust", "go", "postgres", "redis", "kafka", "s3", "iam",
          "secrets", "certificates", "dns", "nginx", "ci", "dependencies", "fixtures",
          "migrations", "spreadsheets", "slides", "emails", "tickets", "incidents",
          "alerts", "dashboards", "vcf", "rnaseq", "embeddings", "prompts", "datasets"]
_QUALS = ["safely", "quickly", "checks", "workflow", "helper", "guide", "toolkit", "review",
          "playbook", "basics", "pipeline", "report", "cleanup", "assistant", "runbook"]
_QUALITIES = ["correctness", "performance", "security", "readability", "operational safety",
              "consistency", "accessibility", "cost", "reliability", "compliance"]
_TRIGGERS = ["a user asks for a review before merging", "a pull request touches these files",
             "an alert fires in production", "the user mentions a slow query",
             "a release is being prepared", "the build fails on the main branch",
             "a new service is being set up", "the user pastes an error message",
             "a migration is about to run", "someone asks why a job is flaky",
             "the user wants a summary for stakeholders", "a dependency update is proposed"]
_OBJECTS = ["the configuration", "each changed file", "the generated output", "the test suite",
            "the deployment manifest", "the query plan", "the audit log", "the release notes",
            "the error budget", "the data model", "the access policy", "the build cache"]
_ACTIONS = ["Check", "Read", "Compare", "List", "Validate", "Summarize", "Inspect", "Record",
            "Verify", "Rewrite", "Flag", "Group"]
_ADVICE = ["Prefer small, reversible changes over large rewrites.",
           "Ask for missing context instead of guessing.",
           "Quote the exact line that causes each finding.",
           "Keep the output short enough to read in one screen.",
           "Never run commands that modify data while reviewing.",
           "Report findings grouped by severity, most severe first.",
           "State assumptions explicitly when the input is ambiguous.",
           "Link to the relevant section of the reference instead of repeating it.",
           "Stop and ask when a step would touch production.",
           "Use the project's existing conventions rather than introducing new ones."]
_LANGS = [("bash", ["set -euo pipefail", "ls -la \"$TARGET\"", "grep -rn 'TODO' src/",
                    "git log --oneline -20", "kubectl get pods -n \"$NS\"",
                    "jq '.items | length' out.json", "make test"]),
          ("python", ["import json", "from pathlib import Path",
                      "data = json.loads(Path('input.json').read_text())",
                      "for item in data['items']:", "    print(item['name'])",
                      "result = sorted(data, key=len)"]),
          ("sql", ["SELECT id, name FROM users WHERE created_at >= now() - interval '7 days';",
                   "EXPLAIN (ANALYZE, BUFFERS) SELECT count(*) FROM orders;",
                   "CREATE INDEX CONCURRENTLY idx_orders_user ON orders (user_id);"]),
          ("", ["## Findings", "- [blocker] line 12: ...", "- [nit] line 40: ...",
                "Verdict: safe after fixes"])]
_LICENSES = ["Apache-2.0", "MIT", "BSD-3-Clause", "Proprietary. LICENSE.txt has complete terms"]
_TOOLS = ["Read", "Grep", "Glob", "Bash(git:*)", "Bash(make:*)", "Edit", "Write", "WebFetch"]
_TAGS = ["incident", "deploy", "database", "security", "docs", "testing", "release", "data",
         "observability", "cost", "compliance", "frontend", "backend", "ml"]
_DOMAINS = ["RNA-seq", "QC", "variant-calling", "annotation", "single-cell", "proteomics",
            "metagenomics", "epigenomics", "clinical-genomics", "imaging"]


def _b36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if not n:
            return out


class _Writer:
    """Writes one corpus; holds the random stream and the running statistics."""

    def __init__(self, out: Path, seed: int) -> None:
        self.out = out
        self.rng = random.Random(seed)
        self.stats = GenerateStats()
        self.minia_names: list[str] = []
        # A fixed pool of sentences keeps generation cheap (one draw per sentence).
        r = self.rng
        self.sentences = [f"{r.choice(_ACTIONS)} {r.choice(_OBJECTS)} for {r.choice(_QUALITIES)} "
                          f"before you {r.choice(_VERBS)} {r.choice(_OBJECTS)}."
                          for _ in range(4096)]

    # ----------------------------------------------------------------- text helpers

    def name(self, i: int, sep: str = "-") -> str:
        r = self.rng
        return sep.join((r.choice(_VERBS), r.choice(_NOUNS), r.choice(_QUALS), _b36(i)))

    def title(self, name: str) -> str:
        words = name.split("-")[:-1] if "-" in name else name.split("_")[:-1]
        return " ".join(words).capitalize()

    def description(self, noun: str) -> str:
        r = self.rng
        parts = [f"{r.choice(_VERBS).capitalize()} {noun} work for {r.choice(_QUALITIES)} "
                 f"and {r.choice(_QUALITIES)}, following the team's conventions."]
        n = r.randint(1, 3)
        if n >= 2:
            parts.append(f"Use when {r.choice(_TRIGGERS)} or when {r.choice(_TRIGGERS)}.")
        if n >= 3:
            parts.append(f"{r.choice(_ADVICE)}")
        return " ".join(parts)

    def sentence(self) -> str:
        return self.sentences[self.rng.getrandbits(12)]

    def body(self, title: str, links: list[tuple[str, str]], target_lines: int) -> list[str]:
        """A Markdown body of about ``target_lines`` lines (headings, lists, code, links)."""
        r = self.rng
        lines = [f"# {title}", "", f"{self.sentence()} {r.choice(_ADVICE)}",
                 f"{self.sentence()}", ""]
        pending = list(links)
        section = 0
        while len(lines) < target_lines:
            section += 1
            kind = r.randrange(4)
            if kind == 0:
                lines += [f"## Step {section}: {r.choice(_ACTIONS).lower()} "
                          f"{r.choice(_OBJECTS)}", ""]
                for k in range(r.randint(3, 7)):
                    lines.append(f"{k + 1}. {self.sentence()}")
                lines.append("")
            elif kind == 1:
                lines += [f"## {r.choice(_QUALITIES).capitalize()}", ""]
                for _ in range(r.randint(3, 8)):
                    lines.append(f"- {self.sentence()}")
                lines.append("")
            elif kind == 2:
                lang, pool = r.choice(_LANGS)
                lines += [f"## Example {section}", "", self.sentence(), "", f"```{lang}"]
                lines += r.sample(pool, min(len(pool), r.randint(2, 5)))
                lines += ["```", ""]
            else:
                lines += [f"## Notes on {r.choice(_NOUNS)}", "",
                          f"{self.sentence()} {r.choice(_ADVICE)}",
                          f"{r.choice(_ADVICE)} {self.sentence()}", ""]
            if pending and r.random() < 0.5:
                label, target = pending.pop()
                lines += [f"See [{label}]({target}) for the details.", ""]
        for label, target in pending:
            lines.append(f"More in [{label}]({target}).")
        return lines

    def write(self, path: Path, text: str) -> None:
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        self.stats.files += 1

    # ----------------------------------------------------------------- formats

    def skill_md(self, i: int, bad: str | None) -> None:
        r = self.rng
        name = self.name(i)
        noun = name.split("-")[1]
        dir_name = name
        if bad == "bad-name":
            name = dir_name = name.replace("-", "_").upper()
        folder = self.out / SKILLS_DIR / dir_name
        os.makedirs(folder)
        links: list[tuple[str, str]] = []
        if r.random() < 0.8:
            os.mkdir(folder / "references")
            self.write(folder / "references" / "REFERENCE.md",
                       f"# {self.title(name)} reference\n\n" +
                       "\n".join(f"- {self.sentence()}" for _ in range(r.randint(4, 12))) +
                       "\n")
            links.append(("the reference", "references/REFERENCE.md"))
            if r.random() < 0.3:
                self.write(folder / "references" / "EXAMPLES.md",
                           f"# Examples\n\n{self.sentence()}\n\n```\n{r.choice(_ADVICE)}\n```\n")
                links.append(("worked examples", "references/EXAMPLES.md"))
        if r.random() < 0.2:
            os.mkdir(folder / "scripts")
            self.write(folder / "scripts" / "run.sh",
                       "#!/bin/sh\nset -eu\necho \"running $1\"\n")
            links.append(("the helper script", "scripts/run.sh"))
        if bad == "broken-link":
            links.append(("the missing guide", "references/MISSING.md"))

        fm = ["---", f"name: {name}"]
        if bad != "missing-description":
            fm.append(f"description: {self.description(noun)}")
        if r.random() < 0.5:
            fm.append(f"license: {r.choice(_LICENSES)}")
        if r.random() < 0.2:
            fm.append(f"compatibility: Needs git and a POSIX shell; tested with "
                      f"{r.choice(_NOUNS)} {r.randint(1, 9)}.x.")
        if r.random() < 0.4:
            fm += ["metadata:", f"  author: team-{r.choice(_NOUNS)}",
                   f"  version: \"{r.randint(0, 3)}.{r.randint(0, 20)}\""]
        if r.random() < 0.3:
            fm.append(f"allowed-tools: {' '.join(r.sample(_TOOLS, r.randint(1, 4)))}")
        if bad == "unknown-field":
            fm.append(f"priority-level: {r.choice(['high', 'medium', 'low'])}")
        fm += ["---", ""]
        body = self.body(self.title(name), links, r.randint(20, 120))
        self.write(folder / "SKILL.md", "\n".join(fm + body) + "\n")
        self.stats.skill_md += 1
        if bad:
            self.stats.skill_md_bad += 1
            self.stats.bad[bad] += 1

    def oxo_flow(self, i: int) -> None:
        r = self.rng
        name = self.name(i)
        noun = name.split("-")[1]
        tool = r.random() < 0.4
        additions = ",\n".join(f"    {json.dumps(self.sentence())}"
                               for _ in range(r.randint(2, 6)))
        lines = [f"# oxo-flow {'tool' if tool else 'knowledge'} skill for {noun}.",
                 f"name = \"{name}\"",
                 f"version = \"{r.randint(0, 3)}.{r.randint(0, 12)}.{r.randint(0, 9)}\"",
                 f"description = {json.dumps(self.description(noun))}",
                 f"skill_type = \"{'tool' if tool else 'knowledge'}\"",
                 "author = \"skillsite bench\"",
                 f"domains = {json.dumps(r.sample(_DOMAINS, r.randint(1, 3)))}"]
        if tool:
            lines += ["requires = [", f"    \"mcp://tools.example.com:8443/{name}\",", "]"]
        lines += ["prompt_additions = [", additions, "]"]
        self.write(self.out / "oxo-flow" / f"{name}.skill.toml", "\n".join(lines) + "\n")
        self.stats.oxo_flow += 1

    def ongrid(self, i: int) -> None:
        r = self.rng
        name = self.name(i, sep="_")
        noun = name.split("_")[1]
        folder = self.out / "ongrid" / name
        os.makedirs(folder)
        manifest: dict = {"name": name, "description": self.description(noun),
                          "entry": "run.sh"}
        if r.random() < 0.6:
            manifest["schema"] = {
                "$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                "properties": {"target": {"type": "string", "minLength": 1},
                               "limit": {"type": "integer", "minimum": 1,
                                         "maximum": r.randint(10, 500)}},
                "required": ["target"], "additionalProperties": False}
        manifest["env_allow"] = ["PATH", "LANG"]
        manifest["timeout_seconds"] = r.choice([0, 15, 30, 45, 60])
        manifest["class"] = r.choice(["safe", "safe", "mutating", "dangerous"])
        manifest["category"] = r.choice(["filesystem", "network", "external", "database"])
        self.write(folder / "skill.json", json.dumps(manifest, indent=2) + "\n")
        self.write(folder / "run.sh", "#!/bin/sh\nset -eu\nargs=$(cat)\n"
                   "printf '%s\\n' \"$args\" | jq -r '.target'\n")
        self.stats.ongrid += 1

    def mini_a(self, i: int) -> None:
        r = self.rng
        name = self.name(i)
        noun = name.split("-")[1]
        fm = ["---", "type: skill", f"name: {name}", f"id: \"skill:{name}\"",
              f"title: {self.title(name)}", f"description: {self.description(noun)}",
              f"tags: [{', '.join(r.sample(_TAGS, r.randint(1, 4)))}]",
              "intents:", f"  - {r.choice(_VERBS)} {noun}", f"  - {r.choice(_VERBS)} {noun}"]
        links: list[tuple[str, str]] = []
        if self.minia_names and r.random() < 0.7:
            deps = r.sample(self.minia_names, min(len(self.minia_names), r.randint(1, 3)))
            fm.append("depends_on:")
            fm += [f"  - \"skill:{dep}\"" for dep in deps]
            links = [(dep.replace("-", " "), f"{dep}.md") for dep in deps[:2]]
        fm += ["requires:", f"  tools: [{r.choice(_NOUNS)}_query]",
               "  capabilities: [read-logs]",
               f"risk: {r.choice(['low', 'medium', 'high'])}",
               "trust:", f"  level: {r.choice(['local', 'curated', 'verified', 'community'])}",
               "  publisher: platform-team",
               f"version: \"{r.randint(0, 3)}.{r.randint(0, 9)}.{r.randint(0, 9)}\"",
               "---", ""]
        body = self.body(self.title(name), links, r.randint(20, 80))
        self.write(self.out / "wiki" / f"{name}.md", "\n".join(fm + body) + "\n")
        self.minia_names.append(name)
        self.stats.mini_a += 1


def generate(out: Path, count: int, seed: int = 1) -> GenerateStats:
    """Write a corpus of ``count`` skills under ``out`` (created; must not hold a corpus).

    The same ``count`` and ``seed`` always produce byte-identical files. Returns the
    counts of what was written.
    """
    out = Path(out)
    for sub in (SKILLS_DIR, "oxo-flow", "ongrid", "wiki"):
        os.makedirs(out / sub, exist_ok=True)
    w = _Writer(out, seed)
    bad_turn = 0
    for i in range(count):
        roll = w.rng.random()
        if roll < _P_OXO:
            w.oxo_flow(i)
        elif roll < _P_OXO + _P_ONGRID:
            w.ongrid(i)
        elif roll < _P_OXO + _P_ONGRID + _P_MINIA:
            w.mini_a(i)
        elif roll < _P_OXO + _P_ONGRID + _P_MINIA + _P_BAD:
            w.skill_md(i, BAD_KINDS[bad_turn % len(BAD_KINDS)])
            bad_turn += 1
        else:
            w.skill_md(i, None)
    return w.stats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="output folder (created)")
    parser.add_argument("--count", type=int, default=10000, help="number of skills")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    stats = generate(args.out, args.count, args.seed)
    elapsed = time.perf_counter() - start
    summary = asdict(stats) | {"total": stats.total, "seconds": round(elapsed, 2)}
    print(json.dumps(summary), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
