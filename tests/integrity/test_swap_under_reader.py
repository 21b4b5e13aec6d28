"""A reader open during rebuilds answers from the old build or, cleanly, from the new one,
never half of each: a reader process queries in a loop while builds swap ``dist/``.

Every build is a new generation: each skill's description and body say "Generation N",
and one skill, ``extra-N``, exists only in that build. An answer that mixes two builds
(a search from one index with descriptions from another store, or ``extra-M`` beside
"Generation N") is reported by ``swap_reader.py``.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import skillsite

REPO = Path(__file__).resolve().parents[2]
BUILDS = 6
SKILLS = 80  # over 64 content shards: some are first opened after a swap


def write_generation(corpus: Path, generation: int) -> None:
    def skill(name: str) -> str:
        return (f"---\nname: {name}\ndescription: Generation {generation} marker skill. "
                f"Use when testing swaps.\n---\n# {name}\n\nGeneration {generation} body.\n")

    for number in range(SKILLS):
        path = corpus / "skills" / f"skill-{number:03d}" / "SKILL.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(skill(f"skill-{number:03d}"), encoding="utf-8")
    for old in (corpus / "skills").glob("extra-*"):
        for file in old.iterdir():
            file.unlink()
        old.rmdir()
    extra = corpus / "skills" / f"extra-{generation}" / "SKILL.md"
    extra.parent.mkdir(parents=True)
    extra.write_text(skill(f"extra-{generation}"), encoding="utf-8")


def test_a_reader_never_sees_half_of_two_builds(tmp_path: Path) -> None:
    corpus, dist, stop = tmp_path / "corpus", tmp_path / "dist", tmp_path / "stop"
    write_generation(corpus, 0)
    skillsite.build(corpus, dist, jobs=1)
    reader = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("swap_reader.py")), str(dist),
         str(stop), "600"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        time.sleep(1.0)
        for generation in range(1, BUILDS + 1):
            write_generation(corpus, generation)
            skillsite.build(corpus, dist, jobs=1, incremental=generation % 2 == 0)
            time.sleep(0.3)
    finally:
        stop.touch()
        out, err = reader.communicate(timeout=60)
    assert reader.returncode == 0, err
    report = json.loads(out)
    assert report["errors"] == [] and report["mixed"] == [], report
    assert report["backwards"] == 0, report
    assert report["ops"] > 100, report
    assert len(report["seen"]) >= 3 and report["seen"][-1] == BUILDS, (report, err)
