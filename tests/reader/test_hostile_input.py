"""Whatever a client sends, the reader answers from dist/ or fails with a clear code,
through the API and through the CLI: never a crash, a traceback or a file outside dist/."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillsite.cli import main
from skillsite.reader import Library, ReaderError

HOSTILE = ["../", "../../etc/passwd", "/etc/passwd", "skill:../../etc/passwd", "pdf\0forms",
           "\0", "x" * 100_000, "\ud800", "ｐｄｆ－ｆｏｒｍｓ", "pdf-forms\u202e", "é" * 300,
           "%2e%2e%2f", "skills/pdf-forms/SKILL.md", "", " ", "\n", "*", "' OR 1=1 --"]
CODES = {"not-found", "invalid-argument"}


@pytest.mark.parametrize("ref", HOSTILE)
def test_hostile_refs_through_the_api(library: Library, ref: str) -> None:
    for call in (library.open, library.read, library.related, library.compose,
                 library.skill_file, library.skill_files, library.front_matter):
        with pytest.raises(ReaderError) as error:
            call(ref)
        assert error.value.code in CODES, (call, error.value.code)


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_sections_cursors_and_paths(library: Library, text: str) -> None:
    with pytest.raises(ReaderError) as section:
        library.read("pdf-forms", text) if text.strip() else library.read(
            "pdf-forms", start_line=0)
    assert section.value.code in {"section-not-found", "invalid-argument"}
    with pytest.raises(ReaderError) as cursor:
        library.read("pdf-forms", cursor=text)
    assert cursor.value.code == "invalid-argument"
    with pytest.raises(ReaderError) as path:
        library.skill_file("pdf-forms", text)
    assert path.value.code in CODES


@pytest.mark.parametrize("query", HOSTILE + ["it's", "https://x", '"unbalanced', "-pdf",
                                             "c++", "AND OR NOT", "title:pdf", "(((", "~2^3"])
def test_hostile_queries_never_fail_on_either_engine(engine_library: Library,
                                                     query: str) -> None:
    try:
        found = engine_library.search(query)
    except ReaderError as error:
        assert error.code == "invalid-argument" and (len(query) > 2000 or "\ud800" in query)
        return
    assert len(found.results) <= 10
    engine_library.recommend(query or "x")


def test_forged_cursor_cannot_reach_another_skill(library: Library) -> None:
    cut = library.read("pdf-forms", max_chars=300)
    assert cut.cursor
    with pytest.raises(ReaderError) as other:
        library.read("git-bisect", cursor=cut.cursor)
    assert other.value.code == "invalid-argument"


@pytest.mark.parametrize("args", [
    ["open", "../../etc/passwd"], ["read", "/etc/passwd"], ["read", "pdf-forms", "-s", "\x01"],
    ["read", "pdf-forms", "--lines", "9-x"], ["read", "pdf-forms", "--cursor", "zzz"],
    ["search", "x" * 100_000], ["related", "nope"], ["compose", "\u202e"],
    ["prompt", "nope"], ["read"], ["search", "--limit", "x"]])
def test_hostile_input_through_the_cli_is_one_line_on_stderr(dist: Path, args: list[str]
                                                            ) -> None:
    result = CliRunner().invoke(main, [*args, "--dist", str(dist)])
    assert result.exit_code in (1, 2), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output


def test_cli_json_errors_are_json_on_stderr(dist: Path) -> None:
    env = {**os.environ, "SKILLSITE_DIST": str(dist)}
    done = subprocess.run([sys.executable, "-m", "skillsite", "read", "pdf-forms", "-s",
                           "nope", "--json"], capture_output=True, text=True, env=env)
    assert done.returncode == 1 and done.stdout == ""
    error = json.loads(done.stderr)
    assert error["error"] == "section-not-found" and error["headings"]
