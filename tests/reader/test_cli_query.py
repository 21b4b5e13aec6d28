"""The query commands end to end: text, --json, $SKILLSITE_DIST, exit codes."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillsite.cli import main


@pytest.mark.parametrize("args, key", [
    (["search", "fill a pdf form"], "results"), (["search", ""], "results"),
    (["recommend", "roll back a deploy", "-e", "kubernetes"], "results"),
    (["open", "pdf-forms"], "headings"), (["read", "pdf-forms", "-s", "3"], "text"),
    (["read", "pdf-forms", "--lines", "56"], "text"), (["related", "incident-triage"], "results"),
    (["compose", "postmortem-draft"], "depends_on"), (["context"], "formats"),
    (["prompt", "pdf-forms", "--style", "markdown"], "text")])
def test_every_command_prints_json_and_text(dist: Path, monkeypatch: pytest.MonkeyPatch,
                                            args: list[str], key: str) -> None:
    monkeypatch.setenv("SKILLSITE_DIST", str(dist))
    as_json = CliRunner().invoke(main, [*args, "--json"])
    assert as_json.exit_code == 0, as_json.output
    assert key in json.loads(as_json.stdout)
    as_text = CliRunner().invoke(main, args)
    assert as_text.exit_code == 0 and as_text.stdout.strip()


def test_read_lines_forms(dist: Path) -> None:
    one = CliRunner().invoke(main, ["read", "pdf-forms", "--lines", "56", "--json",
                                    "--dist", str(dist)])
    assert json.loads(one.stdout)["text"] == "## Step 3: Fill"
    rest = CliRunner().invoke(main, ["read", "pdf-forms", "--lines", "100-", "--json",
                                     "--dist", str(dist)])
    assert json.loads(rest.stdout)["end_line"] == 103


def test_a_cut_read_prints_its_cursor_and_the_cursor_reads_on(dist: Path) -> None:
    first = CliRunner().invoke(main, ["read", "pdf-forms", "--max-chars", "300", "--json",
                                      "--dist", str(dist)])
    cursor = json.loads(first.stdout)["cursor"]
    again = CliRunner().invoke(main, ["read", "--cursor", cursor, "--json", "--dist", str(dist)])
    assert again.exit_code == 0 and json.loads(again.stdout)["start_line"] > 13


def test_missing_dist_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["search", "x", "--dist", str(tmp_path / "nope")])
    assert result.exit_code == 2 and "skillsite build" in result.output


def test_not_found_is_exit_1(dist: Path) -> None:
    result = CliRunner().invoke(main, ["open", "no-such-skill", "--dist", str(dist)])
    assert result.exit_code == 1 and result.output.startswith("Error: no skill called")
