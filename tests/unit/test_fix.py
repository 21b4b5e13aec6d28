"""``skillsite fix``: safe fixes made in place, shown as a diff, and checked again."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from corpus_helpers import check, found, write

from skillsite.cli import main

BROKEN = ("---\nname: pdf  # keep me\ndescription: Fills forms. Use when: a form must be filled.\n"
          "allowed-tools:\n  - Read\n  - Grep\nlicense: MIT \n---\nBody.\t\n```bash\nls\n")
FIXED = ("---\nname: pdf-tools  # keep me\n"
         "description: \"Fills forms. Use when: a form must be filled.\"\n"
         "allowed-tools: Read Grep\nlicense: MIT\n---\nBody.\n```bash\nls\n```\n")


def fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str, str]:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["fix", *args])
    return result.exit_code, result.stdout, result.stderr


def test_dry_run_prints_a_unified_diff_and_changes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"c/pdf-tools/SKILL.md": BROKEN})
    code, out, err = fix(tmp_path, monkeypatch, "--dry-run", "c")
    assert code == 0
    assert out.startswith("--- a/c/pdf-tools/SKILL.md\n+++ b/c/pdf-tools/SKILL.md\n")
    assert "-name: pdf  # keep me\n" in out and "+name: pdf-tools  # keep me\n" in out
    assert "+allowed-tools: Read Grep\n" in out
    assert "would fix yaml-syntax, allowed-tools-format, name-directory-mismatch" in err
    assert (tmp_path / "c/pdf-tools/SKILL.md").read_text() == BROKEN


def test_fix_edits_in_place_and_the_file_checks_clean(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"c/pdf-tools/SKILL.md": BROKEN})
    assert fix(tmp_path, monkeypatch, "c")[0] == 0
    assert (tmp_path / "c/pdf-tools/SKILL.md").read_text() == FIXED
    assert found(check(tmp_path / "c")) == []


def test_crlf_line_endings_are_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"c/pdf-tools/SKILL.md": BROKEN.replace("\n", "\r\n")})
    fix(tmp_path, monkeypatch, "c")
    assert (tmp_path / "c/pdf-tools/SKILL.md").read_bytes() == FIXED.replace(
        "\n", "\r\n").encode()


def test_rename_folder_gives_the_folder_the_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"c/pdf-tools/SKILL.md": FIXED.replace("name: pdf-tools", "name: pdf")})
    code, _, err = fix(tmp_path, monkeypatch, "--rename-folder", "c")
    assert code == 0 and "renamed" in err
    assert (tmp_path / "c/pdf/SKILL.md").is_file() and not (tmp_path / "c/pdf-tools").exists()


def test_a_list_item_with_a_space_is_not_joined(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = ("---\nname: pdf\ndescription: Fills forms.\nallowed-tools:\n"
            "  - Bash(git diff:*)\n  - Read\n---\nBody.\n")
    write(tmp_path, {"c/pdf/SKILL.md": text})
    code, out, err = fix(tmp_path, monkeypatch, "c")
    assert (code, out) == (0, "")
    assert (tmp_path / "c/pdf/SKILL.md").read_text() == text
    assert "Changed 0 of 1" in err


def test_only_fixable_rules_may_be_selected(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = fix(tmp_path, monkeypatch, "--select", "broken-link")
    assert code == 2 and "no safe fix for broken-link" in err


PNG = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89"


def test_a_binary_skill_md_is_skipped_with_one_line_not_a_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"c/pdf-tools/SKILL.md": BROKEN})
    (tmp_path / "c/image").mkdir()
    (tmp_path / "c/image/SKILL.md").write_bytes(PNG)
    code, _, err = fix(tmp_path, monkeypatch, "--rename-folder", "c")
    assert code == 0, err
    assert "c/image/SKILL.md: skipped: binary, not text (binary-file)" in err
    assert "Traceback" not in err
    assert (tmp_path / "c/image/SKILL.md").read_bytes() == PNG
    assert (tmp_path / "c/pdf/SKILL.md").exists()  # the readable skill is still renamed


def test_a_skill_md_over_the_size_cap_is_not_edited(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = "---\nname: big\ndescription: A large skill. Use it for tests.\n---\n" + (
        "Body line with trailing space. \n" * 40_000)  # over the 1 MiB default
    write(tmp_path, {"c/big/SKILL.md": big})
    code, _, err = fix(tmp_path, monkeypatch, "c")
    assert code == 0
    assert "c/big/SKILL.md: skipped: larger than the" in err and "(file-too-large)" in err
    assert (tmp_path / "c/big/SKILL.md").read_text() == big
