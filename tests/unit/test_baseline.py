"""``skillsite check --baseline``, and the switch that turns inline suppressions off."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from corpus_helpers import check, found, skill_md, write

from skillsite.cli import main
from skillsite.config import Config

BROKEN = "Intro.\n\nSee [the guide](references/guide.md).\n"


def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str, str]:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "corpus", "--format", "json", *args])
    return result.exit_code, result.stdout, result.stderr


def rules_of(stdout: str) -> list[tuple[str, int, str]]:
    return [(p["path"], p["line"], p["rule"]) for p in json.loads(stdout)["problems"]]


def test_baseline_is_written_then_hides_old_problems_even_after_edits_above(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"corpus/pdf/SKILL.md": skill_md("pdf", body=BROKEN)})
    code, out, err = run(tmp_path, monkeypatch, "--baseline", "base.json")
    assert (code, rules_of(out)) == (0, [])
    assert "Wrote baseline base.json with 1 problems" in err
    assert json.loads((tmp_path / "base.json").read_text())["problems"][0]["rule"] == "broken-link"
    write(tmp_path, {"corpus/pdf/SKILL.md": skill_md("pdf", body="New line.\n\n" + BROKEN)})
    code, out, _ = run(tmp_path, monkeypatch, "--baseline", "base.json")
    assert (code, rules_of(out)) == (0, [])


def test_a_new_problem_is_reported_despite_the_baseline(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"corpus/pdf/SKILL.md": skill_md("pdf", body=BROKEN)})
    run(tmp_path, monkeypatch, "--baseline", "base.json")
    write(tmp_path, {"corpus/pdf/SKILL.md": skill_md("pdf", body=BROKEN + "[b](gone.md)\n")})
    code, out, _ = run(tmp_path, monkeypatch, "--baseline", "base.json")
    assert (code, rules_of(out)) == (0, [("corpus/pdf/SKILL.md", 8, "broken-link")])


def test_a_damaged_baseline_is_a_usage_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"corpus/pdf/SKILL.md": skill_md("pdf"), "base.json": "[1, 2]"})
    code, _, err = run(tmp_path, monkeypatch, "--baseline", "base.json")
    assert code == 2 and "is not a skillsite baseline" in err


def test_inline_suppressions_can_be_ignored(tmp_path: Path) -> None:
    body = "<!-- skillsite-disable-next-line broken-link -->\n[x](gone.md)\n"
    write(tmp_path, {"pdf/SKILL.md": skill_md("pdf", body=body)})
    assert found(check(tmp_path)) == []
    assert found(check(tmp_path, config=Config(inline_suppressions=False))) == [
        ("pdf/SKILL.md", 6, 5, "broken-link")]


def test_the_first_baseline_run_says_in_its_summary_what_it_recorded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"corpus/pdf/SKILL.md": skill_md("pdf", body=BROKEN + "[b](gone.md)\n")})
    monkeypatch.chdir(tmp_path)
    first = CliRunner().invoke(main, ["check", "corpus", "--format", "text",
                                      "--baseline", "base.json"])
    assert first.exit_code == 0
    assert first.stdout.strip() == (
        "Checked 1 file (1 skill): 2 problems recorded in the new baseline base.json, not "
        "shown; later runs with --baseline report only new ones.")
    again = CliRunner().invoke(main, ["check", "corpus", "--format", "text",
                                      "--baseline", "base.json"])
    assert again.stdout.strip() == "Checked 1 file (1 skill): no problems."
