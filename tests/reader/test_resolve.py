"""Issue #23 item 6: ``resolve`` renders a skill as a local SKILL.md with its arguments
(Mini-A's ``{{args}}``, ``{{argv}}``, ``{{argN}}``; Claude Code's ``$ARGUMENTS``,
``$ARGUMENTS[N]``, ``$N``), bounded with a cursor, and never installs or runs anything."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillsite.builder.pipeline import build
from skillsite.cli import main
from skillsite.reader import Library, ReaderError
from skillsite.reader.resolving import render, split_arguments

PR_REVIEW = Path(__file__).parents[2] / "corpus" / "claude" / "pr-review" / "SKILL.md"


@pytest.mark.parametrize("body, args, expected", [
    ("{{args}} | {{argv}} | {{arg1}}-{{arg2}}-{{arg3}}", ["a b", "c"],
     'a b c | ["a b", "c"] | a b-c-'),
    ("$ARGUMENTS | $ARGUMENTS[1] | $0 $1 $2", ["x", "y"], "x y | y | x y $2"),
    ("{{ args }} and $10", [str(n) for n in range(11)], "0 1 2 3 4 5 6 7 8 9 10 and 10"),
    ("no placeholder", [], "no placeholder"),
    ("awk '{print $1}'", [], "awk '{print $1}'"),
])
def test_placeholders_render(body: str, args: list[str], expected: str) -> None:
    raw, words = split_arguments(args)
    assert render(body, raw, words)[0] == expected


def test_a_value_that_looks_like_a_placeholder_is_not_rendered_again() -> None:
    raw, words = split_arguments(["$1", "{{args}}"])
    assert render("$0 / $1", raw, words)[0] == "$1 / {{args}}"


def test_a_string_is_split_like_a_shell_and_kept_whole_for_arguments() -> None:
    raw, words = split_arguments('fix "the login bug" now')
    assert words == ("fix", "the login bug", "now")
    assert render("$ARGUMENTS / $1", raw, words)[0] == 'fix "the login bug" now / the login bug'
    with pytest.raises(ReaderError, match="close the quote"):
        split_arguments('an "open quote')


def test_arguments_without_a_placeholder_are_appended_as_claude_code_does() -> None:
    raw, words = split_arguments(["42"])
    text, found = render("# Review\n\nDo it.\n", raw, words)
    assert text == "# Review\n\nDo it.\n\nARGUMENTS: 42\n" and found == ()


def test_resolve_a_real_skill(dist: Path) -> None:
    library = Library(dist)
    resolved = library.resolve("pr-review", ["1234"], max_chars=100_000)
    assert resolved.placeholders == ("$ARGUMENTS",)
    assert "$ARGUMENTS" not in resolved.template and "gh pr diff 1234" in resolved.template
    source = PR_REVIEW.read_text(encoding="utf-8")
    assert resolved.front_matter == source.split("---\n")[1]
    assert resolved.metadata["name"] == "pr-review" and resolved.metadata["argument-hint"]
    assert resolved.template.count("1234") == source.count("$ARGUMENTS")
    assert not resolved.truncated and resolved.cursor is None


def test_a_cut_resolve_reads_on_with_the_same_arguments_only(dist: Path) -> None:
    library = Library(dist)
    whole = library.resolve("pr-review", ["7"], max_chars=100_000).template
    part = library.resolve("pr-review", ["7"], max_chars=400)
    pieces = [part.template.split("\n[… truncated")[0]]
    assert part.truncated and part.chars <= 400
    with pytest.raises(ReaderError, match="same ref and args"):
        library.resolve("pr-review", ["8"], max_chars=400, cursor=part.cursor)
    with pytest.raises(ReaderError, match="not one that resolve returned"):
        library.resolve("pr-review", ["7"], cursor=library.read("pr-review", max_chars=200).cursor)
    while part.cursor:
        part = library.resolve(None, ["7"], max_chars=400, cursor=part.cursor)
        pieces.append(part.template.split("\n[… truncated")[0])
    assert "".join(pieces).replace("\n", "") == whole.replace("\n", "")


def test_resolve_counts_against_a_budget_and_is_refused_in_safe_mode(dist: Path) -> None:
    library = Library(dist, max_skills=1, max_chars=None)
    library.resolve("pr-review")
    with pytest.raises(ReaderError) as spent:
        library.resolve("git-bisect")
    assert spent.value.code == "budget-exceeded"
    safe = Library(dist, safe=True)
    with pytest.raises(ReaderError) as refused:
        safe.resolve(safe.search("review a pull request").results[0].ref)
    assert refused.value.code == "restricted-operation"


def test_other_formats_resolve_to_a_generated_front_matter(dist: Path) -> None:
    toml = next(hit for hit in Library(dist).search("", limit=50).results
                if hit.format == "skill-toml")
    resolved = Library(dist).resolve(toml.ref)
    lines = resolved.front_matter.splitlines()
    assert lines[0] == f"name: {json.dumps(resolved.metadata['name'])}"
    assert lines[1].startswith("description: ")


def test_resolve_never_runs_or_writes_anything(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus" / "boom"
    corpus.mkdir(parents=True)
    marker = tmp_path / "ran"
    (corpus / "SKILL.md").write_text(
        "---\nname: boom\ndescription: Touch a file when run. Use when testing.\n---\n\n"
        f"# Boom\n\n!`touch {marker}`\n\nRun `touch {marker}` with $ARGUMENTS.\n",
        encoding="utf-8")
    build(tmp_path / "corpus", tmp_path / "dist")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    result = CliRunner().invoke(main, ["resolve", "boom", "$(touch x)", "--json",
                                       "--dist", str(tmp_path / "dist")])
    assert result.exit_code == 0, result.output
    assert f"!`touch {marker}`" in json.loads(result.stdout)["template"]
    assert "with $(touch x)." in json.loads(result.stdout)["template"]
    assert not marker.exists() and sorted(
        p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_cli_resolve_prints_a_skill_md(dist: Path) -> None:
    result = CliRunner().invoke(main, ["resolve", "pr-review", "99", "--dist", str(dist)])
    assert result.exit_code == 0
    assert result.stdout.startswith("---\nname: pr-review\n") and "gh pr diff 99" in result.stdout
    cut = CliRunner().invoke(main, ["resolve", "pr-review", "99", "--max-chars", "300",
                                    "--dist", str(dist)])
    assert "(cursor: " in cut.stdout and "pass the same arguments" in cut.stdout


def test_context_counts_calls_and_characters_served(dist: Path) -> None:
    library = Library(dist)
    library.search("pdf")
    library.search("deploy")
    passage = library.read("pdf-forms", max_chars=500)
    resolved = library.resolve("pr-review")
    retrieval = library.context().retrieval
    assert retrieval == {"calls": {"context": 1, "read": 1, "resolve": 1, "search": 2},
                         "chars_served": passage.chars + resolved.chars}
