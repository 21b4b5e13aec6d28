"""The check's results cache: a cached run reports what a fresh one does, and any change
that can change a result makes its file checked again."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from corpus_helpers import Link, skill_md, write

from skillsite.config import Config
from skillsite.linter import checker
from skillsite.models import CheckResult

CORPUS = {
    "pdf/SKILL.md": skill_md("pdf", body="Fill PDF forms. See [guide](references/guide.md).\n"),
    "pdf/references/guide.md": "# Guide\n\nUse the form.\n",
    "xlsx/SKILL.md": skill_md("xlsx"),
    "Bad/SKILL.md": skill_md("Bad"),
    "oxo/annotate.skill.toml": '[skill]\nname = "annotate"\n',
    "wiki/alpha.md": "---\ntype: skill\nname: alpha\ndescription: Alpha. Use when alpha.\n"
                     "---\n# Alpha\n",
    "wiki/notes.md": "# Not a skill\n",
}


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the files each check reads and lints."""
    seen: list[str] = []
    real = checker.check_file

    def check_file(source: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(Path(source.path).relative_to(source.root).as_posix())
        return real(source, *args, **kwargs)

    monkeypatch.setattr(checker, "check_file", check_file)
    return seen


def run(root: Path, cache: Path, config: Config | None = None) -> CheckResult:
    return checker.check([root], base=root, jobs=1, cache=cache, config=config)


def same(a: CheckResult, b: CheckResult) -> bool:
    return (a.problems, a.files, a.skills, a.trust) == (b.problems, b.files, b.skills, b.trust)


def test_a_cached_run_reports_what_a_fresh_run_reports(tmp_path: Path,
                                                       counted: list[str]) -> None:
    root, cache = write(tmp_path / "corpus", CORPUS), tmp_path / "cache"
    fresh = checker.check([root], base=root, jobs=1)
    counted.clear()
    first = run(root, cache)
    assert len(counted) == 6
    counted.clear()
    second = run(root, cache)
    assert counted == []  # nothing checked again
    assert fresh.problems and same(first, fresh) and same(second, fresh)
    assert (cache / "CACHEDIR.TAG").read_text().startswith(
        "Signature: 8a477f597d28d172789f06886806bc55")
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"


def test_editing_a_bundled_file_checks_its_skill_again(tmp_path: Path,
                                                       counted: list[str]) -> None:
    root, cache = write(tmp_path / "corpus", CORPUS), tmp_path / "cache"
    run(root, cache)
    counted.clear()
    (root / "pdf/references/guide.md").write_text("# Guide\n\nRun /Users/ada/dev/fill.py\n")
    result = run(root, cache)
    assert counted == ["pdf/SKILL.md"]
    assert ("pdf/references/guide.md", "personal-path") in {
        (p.path, p.rule) for p in result.problems}
    assert same(result, checker.check([root], base=root, jobs=1))


def test_editing_one_skill_checks_only_it_and_corpus_rules_see_the_rest(
        tmp_path: Path, counted: list[str]) -> None:
    root, cache = write(tmp_path / "corpus", CORPUS), tmp_path / "cache"
    run(root, cache)
    counted.clear()
    # xlsx now takes pdf's name: duplicate-name needs both, only xlsx is read again.
    (root / "xlsx/SKILL.md").write_text(skill_md("pdf"))
    result = run(root, cache)
    assert counted == ["xlsx/SKILL.md"]
    assert "duplicate-name" in {p.rule for p in result.problems}
    assert same(result, checker.check([root], base=root, jobs=1))


def test_a_new_file_elsewhere_is_seen_by_links_that_leave_the_skill(
        tmp_path: Path, counted: list[str]) -> None:
    files = {**CORPUS, "pdf/SKILL.md": skill_md("pdf", body="See [shared](../shared/a.md).\n")}
    root, cache = write(tmp_path / "corpus", files), tmp_path / "cache"
    before = run(root, cache)
    write(root, {"shared/a.md": "# Shared\n"})
    after = run(root, cache)
    assert [p.message for p in before.problems if p.rule == "link-escapes-root"] != [
        p.message for p in after.problems if p.rule == "link-escapes-root"]
    assert same(after, checker.check([root], base=root, jobs=1))


def test_a_manifest_change_checks_every_skill_again(tmp_path: Path,
                                                    counted: list[str]) -> None:
    files = {**CORPUS, ".claude-plugin/plugin.json": '{"name": "tools"}\n'}
    root, cache = write(tmp_path / "corpus", files), tmp_path / "cache"
    run(root, cache)
    counted.clear()
    (root / ".claude-plugin/plugin.json").write_text('{"name": "other"}\n')
    result = run(root, cache)
    assert len(counted) == 6
    assert same(result, checker.check([root], base=root, jobs=1))


def test_another_configuration_is_another_cache(tmp_path: Path, counted: list[str]) -> None:
    root, cache = write(tmp_path / "corpus", CORPUS), tmp_path / "cache"
    run(root, cache)
    counted.clear()
    ignoring = Config(ignore=("name-format",))
    result = run(root, cache, ignoring)
    assert len(counted) == 6
    assert "name-format" not in {p.rule for p in result.problems}
    assert same(result, checker.check([root], base=root, jobs=1, config=ignoring))
    counted.clear()
    run(root, cache)  # the first configuration's results are still kept
    assert counted == []


def signed(payload: str) -> str:
    """A cache file's text: ``payload`` signed with this user's key, as the check signs it."""
    from skillsite.linter import checkcache

    key = checkcache._secret()
    assert key is not None
    return f"{checkcache._signature(key, payload)}\n{payload}"


def payload_of(stored: Path) -> Any:
    return json.loads(stored.read_text(encoding="utf-8").partition("\n")[2])


@pytest.mark.parametrize("damage", ["", "{", "[]", '{"format": 1, "entries": 3}',
                                    '{"format": 1, "files": {"pdf/SKILL.md": [1]}}',
                                    '{"format": 1, "files": {"pdf/SKILL.md": [1, 2, 3, 4, 5]}}',
                                    "\udcff garbage"])
@pytest.mark.parametrize("sign", [False, True])
def test_a_damaged_cache_is_ignored_and_rebuilt(tmp_path: Path, damage: str,
                                                sign: bool) -> None:
    root, cache = write(tmp_path / "corpus", CORPUS), tmp_path / "cache"
    fresh = run(root, cache)
    (stored,) = (cache / "check").iterdir()
    stored.write_text(signed(damage) if sign else damage, encoding="utf-8",
                      errors="surrogateescape")
    assert same(run(root, cache), fresh)
    assert payload_of(stored)["format"] == 1  # written again, whole


def test_damaged_entries_are_checked_again(tmp_path: Path, counted: list[str]) -> None:
    root, cache = write(tmp_path / "corpus", CORPUS), tmp_path / "cache"
    fresh = run(root, cache)
    (stored,) = (cache / "check").iterdir()
    data = payload_of(stored)
    data["entries"] = {key: [False, None, ["x", [["too", "short"]]], []]
                       for key in data["entries"]}
    stored.write_text(signed(json.dumps(data)), encoding="utf-8")
    counted.clear()
    assert same(run(root, cache), fresh)
    assert len(counted) == 6


def test_a_cache_file_signed_by_someone_else_is_ignored(tmp_path: Path,
                                                        counted: list[str]) -> None:
    """A cache file planted in a repository, claiming a skill has no problem, is not
    believed: it is not signed with this user's key."""
    root, cache = write(tmp_path / "corpus", CORPUS), tmp_path / "cache"
    fresh = run(root, cache)
    (stored,) = (cache / "check").iterdir()
    signature, _, text = stored.read_text(encoding="utf-8").partition("\n")
    data = json.loads(text)
    for entry in data["entries"].values():
        if entry[2] is not None:
            entry[2][1] = []  # no problems
    forged = json.dumps(data)
    stored.write_text(f"{signature}\n{forged}", encoding="utf-8")
    counted.clear()
    assert same(run(root, cache), fresh)
    assert len(counted) == 6
    stored.write_text(signed(forged), encoding="utf-8")  # the user's own key: believed
    counted.clear()
    run(root, cache)
    assert counted == []


def test_symlinks_are_recorded_not_followed(tmp_path: Path, counted: list[str]) -> None:
    outside = write(tmp_path / "outside", {"secret.md": "# Secret\n"})
    files = {**CORPUS, "pdf/references/out.md": Link(str(outside / "secret.md")),
             "loop": Link(".")}
    root, cache = write(tmp_path / "corpus", files), tmp_path / "cache"
    fresh = checker.check([root], base=root, jobs=1)
    assert same(run(root, cache), fresh)
    counted.clear()
    (outside / "secret.md").write_text("# Changed\n")  # outside the root: not looked at
    assert same(run(root, cache), fresh)
    assert counted == []
    os.unlink(root / "pdf/references/out.md")
    assert same(run(root, cache), checker.check([root], base=root, jobs=1))
    assert "pdf/SKILL.md" in counted


def test_a_cache_inside_the_corpus_is_not_part_of_it(tmp_path: Path,
                                                     counted: list[str]) -> None:
    root = write(tmp_path / "corpus", CORPUS)
    cache = root / ".skillsite-cache"
    run(root, cache)
    counted.clear()
    run(root, cache)
    assert counted == []


def test_an_unwritable_cache_is_no_error(tmp_path: Path) -> None:
    root = write(tmp_path / "corpus", CORPUS)
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert same(run(root, blocker / "cache"), checker.check([root], base=root, jobs=1))


def test_the_command_caches_unless_told_not_to(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from skillsite.cli import main

    root = write(tmp_path / "corpus", CORPUS)
    cache = tmp_path / "cache"
    monkeypatch.setenv("SKILLSITE_CACHE_DIR", str(cache))
    args = ["check", str(root), "--format", "json"]
    bypassed = CliRunner().invoke(main, [*args, "--no-cache"])
    assert not cache.exists()
    cold = CliRunner().invoke(main, args)
    warm = CliRunner().invoke(main, args)
    assert len(list((cache / "check").iterdir())) == 1
    assert bypassed.output == cold.output == warm.output
    assert bypassed.exit_code == cold.exit_code == warm.exit_code == 1
    elsewhere = tmp_path / "elsewhere"
    moved = CliRunner().invoke(main, [*args, "--cache-dir", str(elsewhere)])
    assert moved.output == cold.output and (elsewhere / "CACHEDIR.TAG").is_file()


def test_every_corpus_rule_is_in_the_corpus_module() -> None:
    """A check answered from the cache imports rules.corpus alone to run the corpus rules."""
    from skillsite.linter.rules import CORPUS, RULES

    assert {r.id for r in RULES.values() if r.scope == CORPUS and r.check is not None} == {
        "duplicate-name", "depends-on-unresolved", "depends-on-cycle"}
    assert all(r.check.__module__ == "skillsite.linter.rules.corpus"
               for r in RULES.values() if r.scope == CORPUS and r.check is not None)


def test_a_warm_check_imports_no_document_rule(tmp_path: Path) -> None:
    import subprocess
    import sys

    root = write(tmp_path / "corpus", {**CORPUS, "xlsx/SKILL.md": skill_md("pdf")})
    script = ("import sys; from pathlib import Path; from skillsite.linter import checker; "
              f"r = checker.check([Path({str(root)!r})], base=Path({str(root)!r}), jobs=1, "
              f"cache=Path({str(tmp_path / 'cache')!r})); "
              "print(len(r.problems), 'skillsite.linter.lint' in sys.modules, "
              "'skillsite.linter.scan' in sys.modules)")
    cold = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    warm = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    count = cold.stdout.split()[0]
    assert cold.stdout.split() == [count, "True", "True"], cold.stderr
    assert warm.stdout.split() == [count, "False", "False"], warm.stderr


def test_a_new_work_tree_changes_the_collections(tmp_path: Path) -> None:
    """A top folder holding .git is a collection of its own (names are unique per
    collection): a .git folder is never read, but whether it exists is part of the key."""
    files = {"a/x/SKILL.md": skill_md("x"), "b/x/SKILL.md": skill_md("x")}
    root, cache = write(tmp_path / "corpus", files), tmp_path / "cache"
    before = run(root, cache)
    (root / "a/.git").mkdir()
    (root / "b/.git").mkdir()
    after = run(root, cache)
    assert same(after, checker.check([root], base=root, jobs=1))
    assert {p.rule for p in before.problems} != {p.rule for p in after.problems}


def test_a_link_out_of_the_root_is_checked_again_when_its_target_comes_or_goes(
        tmp_path: Path, counted: list[str]) -> None:
    files = {**CORPUS, "pdf/SKILL.md": skill_md("pdf", body="See [x](../../outside.md).\n")}
    root, cache = write(tmp_path / "corpus", files), tmp_path / "cache"
    before = run(root, cache)
    (tmp_path / "outside.md").write_text("# Outside\n")  # never read, but now it exists
    counted.clear()
    after = run(root, cache)
    assert counted == ["pdf/SKILL.md"]
    assert same(after, checker.check([root], base=root, jobs=1))
    assert [p.message for p in before.problems if p.rule == "link-escapes-root"] != [
        p.message for p in after.problems if p.rule == "link-escapes-root"]


def _copy_of_the_code(to: Path) -> Path:
    """The fingerprinted sources of skillsite, copied (new paths and mtimes)."""
    import shutil

    from skillsite.linter import checkcache

    package = Path(checkcache.__file__).resolve().parent.parent
    copy = to / "skillsite"
    for folder in ("linter", "schemas"):
        shutil.copytree(package / folder, copy / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("config.py", "models.py", "version.py"):
        shutil.copyfile(package / name, copy / name)
    return copy


def test_the_same_code_elsewhere_keeps_the_cache_and_an_edit_does_not(tmp_path: Path) -> None:
    """A fresh checkout or install of the same code (other paths, other mtimes, as each
    CI run has) is the same linter; one changed rule is another."""
    from skillsite.linter.checkcache import code_fingerprint

    copy = _copy_of_the_code(tmp_path)
    os.utime(copy / "linter" / "lint.py", ns=(1, 1))
    assert code_fingerprint(copy) == code_fingerprint()
    rule = copy / "linter" / "rules" / "fields.py"
    rule.write_text(rule.read_text() + "\n# another linter\n")
    assert code_fingerprint(copy) != code_fingerprint()
