"""Issue #20 item 9: an unpaired surrogate escape (``"\\ud800"``) in a ``skill.json`` string
crashed the build in ``store/hits.py``. It is a located ``json-syntax`` problem on that
file, and the rest of the corpus builds."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import skillsite
from skillsite.builder.pipeline import build

GOOD = {"name": "journal_vacuum", "entry": "vacuum.sh", "class": "mutating",
        "description": "Shrink the systemd journal. Use when the journal fills /var/log."}


@pytest.mark.parametrize("where", ["description", "key", "nested"])
def test_a_lone_surrogate_is_a_located_problem_and_the_build_goes_on(
        tmp_path: Path, where: str) -> None:
    root = tmp_path / "corpus"
    for name in ("journal_vacuum", "hostile"):
        (root / "ongrid" / name).mkdir(parents=True)
        (root / "ongrid" / name / "vacuum.sh").write_text("echo\n")
    (root / "ongrid" / "journal_vacuum" / "skill.json").write_text(json.dumps(GOOD))
    hostile = {**GOOD, "name": "hostile"}
    text = json.dumps(hostile, indent=2)
    marker = {"description": ('"Shrink', '"Shrink \\ud800'),
              "key": ('"class"', '"cl\\udfffass"'),
              "nested": ('"entry"', '"schema": {"properties": {"\\ud83d": {}}},\n  "entry"')}
    text = text.replace(*marker[where])
    (root / "ongrid" / "hostile" / "skill.json").write_text(text)

    problems = skillsite.check([root], base=root, jobs=1).problems
    located = [p for p in problems if p.path.endswith("hostile/skill.json")]
    assert [p.rule for p in located] == ["json-syntax"], problems
    assert "surrogate" in located[0].message and located[0].line > 1

    out = tmp_path / "dist"
    build(root, out)
    names = [skill["name"] for skill in json.loads((out / "catalog.json").read_text())["skills"]]
    assert names == ["journal_vacuum"]
