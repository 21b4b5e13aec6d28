"""Issue #23 item 3: the CLI reads a skill's supporting files (``read REF --file PATH``,
or a ``skill://`` URI as the ref), shows ``{baseDir}/…`` references as refs to the skill's
files, and says which lines of a ``--lines`` read are the (blank) front matter. Real
builds of real files."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillsite.builder.pipeline import build
from skillsite.cli import main
from skillsite.reader import Library, ReaderError

FORMS = Path(__file__).parents[2] / "corpus" / "skills" / "pdf-forms" / "references" / "FORMS.md"


def run(dist: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [*args, "--dist", str(dist)])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def based(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A corpus whose skill refers to its files through ``{baseDir}``, built."""
    root = tmp_path_factory.mktemp("based")
    skill = root / "corpus" / "skills" / "audit"
    (skill / "scripts").mkdir(parents=True)
    (skill / "references").mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: audit\ndescription: Audit a repository for leaked secrets.\n---\n\n"
        "# Audit\n\nRun `python {baseDir}/scripts/scan.py .` first.\n\n## Details\n\n"
        "See {baseDir}/references/rules.md. Then {baseDir}/scripts/scan.py again, and "
        "{baseDir}/missing/tool.sh if you have it.\n", encoding="utf-8")
    (skill / "scripts" / "scan.py").write_text("print('scan')\n", encoding="utf-8")
    (skill / "references" / "rules.md").write_text(
        "# Rules\n\n" + "".join(f"- rule {n}: never commit key {n}\n" for n in range(200)),
        encoding="utf-8")
    (skill / "references" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe\x00" * 10)
    build(root / "corpus", root / "dist")
    return root / "dist"


def test_read_file_prints_a_supporting_file_whole(dist: Path) -> None:
    code, out, _ = run(dist, "read", "pdf-forms", "--file", "references/FORMS.md",
                       "--max-chars", "100000", "--json")
    passage = json.loads(out)
    assert code == 0 and passage["file"] == "references/FORMS.md"
    assert passage["text"] == FORMS.read_text(encoding="utf-8")
    assert not passage["truncated"] and passage["start_line"] == 1
    assert passage["end_line"] == FORMS.read_text(encoding="utf-8").rstrip("\n").count("\n") + 1


def test_a_cut_file_read_goes_on_with_its_cursor_alone(dist: Path) -> None:
    whole, pieces, cursor = FORMS.read_text(encoding="utf-8"), [], None
    code, out, _ = run(dist, "read", "pdf-forms", "--file", "references/FORMS.md",
                       "--max-chars", "150", "--json")
    while True:
        assert code == 0, out
        passage = json.loads(out)
        assert passage["file"] == "references/FORMS.md" and passage["chars"] <= 150
        pieces.append(passage["text"].split("\n[… truncated")[0])
        cursor = passage["cursor"]
        if cursor is None:
            break
        code, out, _ = run(dist, "read", "--cursor", cursor, "--max-chars", "150", "--json")
    assert len(pieces) > 2
    assert "".join(pieces).replace("\n", "") == whole.replace("\n", "")


@pytest.mark.parametrize("uri, file", [
    ("skill://pdf-forms/references/FORMS.md", "references/FORMS.md"),
    ("skill://pdf-forms/SKILL.md", None), ("skill://pdf-forms", None)])
def test_a_skill_uri_is_a_ref(dist: Path, uri: str, file: str | None) -> None:
    code, out, _ = run(dist, "read", uri, "--max-chars", "100000", "--json")
    passage = json.loads(out)
    assert code == 0 and passage["name"] == "pdf-forms" and passage["file"] == file
    body = run(dist, "read", "pdf-forms", "--max-chars", "100000", "--json")[1]
    assert (passage["text"] == json.loads(body)["text"]) == (file is None)


def test_open_takes_a_skill_uri_and_refuses_a_file_uri(dist: Path) -> None:
    code, out, _ = run(dist, "open", "skill://pdf-forms/SKILL.md", "--json")
    assert code == 0 and json.loads(out)["name"] == "pdf-forms"
    code, _, err = run(dist, "open", "skill://pdf-forms/references/FORMS.md")
    assert code == 2 and "--file references/FORMS.md" in err


@pytest.mark.parametrize("args, code, error", [
    (["read", "pdf-forms", "--file", "references/NOPE.md"], 1, "not-found"),
    (["read", "pdf-forms", "--file", "../../etc/passwd"], 1, "not-found"),
    (["read", "skill://nope/SKILL.md"], 1, "not-found"),
    (["read", "pdf-forms", "--file", "references/FORMS.md", "-s", "2"], 2, "invalid-argument"),
    (["read", "skill://pdf-forms/references/FORMS.md", "--file", "SKILL.md"], 2,
     "invalid-argument")])
def test_bad_file_reads_are_clear_errors(dist: Path, args: list[str], code: int,
                                         error: str) -> None:
    got, _, err = run(dist, *args, "--json")
    assert got == code and json.loads(err)["error"] == error


def test_a_binary_file_is_refused_with_its_resource_uri(based: Path) -> None:
    code, _, err = run(based, "read", "audit", "--file", "references/logo.png")
    assert code == 2 and "not UTF-8 text" in err and "skill://audit/references/logo.png" in err


def test_base_dir_references_are_refs_to_the_skills_files(based: Path) -> None:
    passage = json.loads(run(based, "read", "audit", "--json")[1])
    assert passage["references"] == [
        {"text": "{baseDir}/scripts/scan.py", "path": "scripts/scan.py",
         "ref": "skill://audit/scripts/scan.py", "exists": True},
        {"text": "{baseDir}/references/rules.md", "path": "references/rules.md",
         "ref": "skill://audit/references/rules.md", "exists": True},
        {"text": "{baseDir}/missing/tool.sh", "path": "missing/tool.sh",
         "ref": "skill://audit/missing/tool.sh", "exists": False}]
    assert "{baseDir}/scripts/scan.py" in passage["text"]  # the text stays as written
    for reference in passage["references"][:2]:  # each ref reads the file it names
        code, out, _ = run(based, "read", reference["ref"], "--json")
        assert code == 0 and json.loads(out)["file"] == reference["path"]
    text = run(based, "read", "audit")[1]
    assert "{baseDir}/references/rules.md  ->  skillsite read audit --file references/rules.md" \
        in text and "{baseDir}/missing/tool.sh  ->  not in dist/" in text


def test_a_section_lists_only_its_own_references(based: Path) -> None:
    passage = json.loads(run(based, "read", "audit", "-s", "Audit", "--json")[1])
    assert [r["path"] for r in passage["references"]] == ["scripts/scan.py"]


def test_read_lines_says_which_lines_are_the_blank_front_matter(based: Path) -> None:
    passage = json.loads(run(based, "read", "audit", "--lines", "1-7", "--json")[1])
    assert passage["front_matter_lines"] == [1, 4]
    assert passage["text"].split("\n")[:4] == ["", "", "", ""]
    assert "lines 2-4 are the front matter" in run(based, "read", "audit", "--lines", "2-6")[1]
    after = json.loads(run(based, "read", "audit", "--lines", "6-8", "--json")[1])
    assert after["front_matter_lines"] is None
    assert json.loads(run(based, "read", "audit", "--json")[1])["front_matter_lines"] is None


def test_safe_mode_refuses_files_and_uris(based: Path) -> None:
    safe = Library(based, safe=True)
    ref = safe.search("audit secrets").results[0].ref
    with pytest.raises(ReaderError) as refused:
        safe.read(ref, file="references/rules.md")
    assert refused.value.code == "restricted-operation"
    with pytest.raises(ReaderError) as opaque:
        safe.read("skill://audit/SKILL.md")
    assert opaque.value.code == "invalid-or-expired-reference"


def test_a_file_read_counts_against_a_budget(based: Path) -> None:
    library = Library(based, max_skills=1, max_chars=500)
    passage = library.read("audit", file="references/rules.md", max_chars=100000)
    assert passage.truncated and passage.chars <= 500
    assert library.context().budgets["chars_served"] == passage.chars
