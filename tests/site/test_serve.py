"""``skillsite serve``: a real server process on 127.0.0.1 that rebuilds on change."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "site" / "corpus"


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read().decode("utf-8")


def _serve_a_copy_of_the_fixture(tmp_path: Path) -> tuple[Path, subprocess.Popen[str]]:
    """``skillsite serve`` on a copy of the fixture corpus, polling it every 0.3 s."""
    corpus = tmp_path / "corpus"
    shutil.copytree(FIXTURE, corpus)
    process = subprocess.Popen(
        [sys.executable, "-m", "skillsite", "serve", str(corpus), "-o", str(tmp_path / "d"),
         "--port", "0", "--interval", "0.3"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return corpus, process


def test_serve_rebuilds_when_the_corpus_changes(tmp_path: Path) -> None:
    corpus, process = _serve_a_copy_of_the_fixture(tmp_path)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("Serving http://127.0.0.1:"), line
        url = line.split()[1]
        assert "Alpha guide" in _get(url + "skills/alpha-guide/")
        skill = corpus / "skills" / "alpha-guide" / "SKILL.md"
        skill.write_text(skill.read_text().replace("# Alpha guide", "# Alpha guide, revised"))
        deadline = time.monotonic() + 120  # a loaded CI machine rebuilds slowly
        while time.monotonic() < deadline:
            if "Alpha guide, revised" in _get(url + "skills/alpha-guide/"):
                break
            time.sleep(0.5)
        else:
            process.terminate()
            _, stderr = process.communicate(timeout=60)
            raise AssertionError(f"the site was not rebuilt within 120 s; serve said:\n{stderr}")
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=60)


def test_serve_answers_impossible_paths(tmp_path: Path) -> None:
    """``GET /%00`` gets an answer, not a traceback."""
    import urllib.error

    corpus, process = _serve_a_copy_of_the_fixture(tmp_path)
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split()[1]
        for path in ("%00", "skills/%00/", "a%00b.html"):
            try:
                urllib.request.urlopen(url + path, timeout=10)
                raise AssertionError(f"{path} was served")
            except urllib.error.HTTPError as error:
                assert error.code in (400, 404), (path, error.code)
        assert "Alpha guide" in _get(url + "skills/alpha-guide/")
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=60)
    assert "Traceback" not in stderr, stderr


def test_serve_answers_a_missing_page_with_the_sites_404_page(tmp_path: Path) -> None:
    import urllib.error

    corpus, process = _serve_a_copy_of_the_fixture(tmp_path)
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split()[1]
        try:
            urllib.request.urlopen(url + "skills/no-such-skill/", timeout=10)
            raise AssertionError("a missing page was served")
        except urllib.error.HTTPError as error:
            assert error.code == 404
            page = error.read().decode("utf-8")
        assert "<h1>404 - Not found</h1>" in page and "release-kit" in page   # the site's
        assert "Content-Security-Policy" in page
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=60)
    assert "left out: none" in stderr and "not readable as skills: none" in stderr, stderr
    assert re.search(r"\b\d+ problems \(0 errors, \d+ warnings?\): see /problems/", stderr), stderr


def test_serve_says_what_a_build_left_out(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(FIXTURE, corpus)
    (corpus / "skills" / "broken").mkdir()
    (corpus / "skills" / "broken" / "SKILL.md").write_bytes(b"---\nname: [unclosed\n---\n")
    (corpus / "skillsite.toml").write_text("exclude-invalid = true\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "skillsite", "serve", str(corpus), "-o", str(tmp_path / "d"),
         "--port", "0"], cwd=corpus, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        assert process.stdout.readline().startswith("Serving http://127.0.0.1:")
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=60)
    said = [line for line in stderr.splitlines() if "left out:" in line or "readable" in line]
    assert any("skills/broken/SKILL.md" in line for line in said), stderr


def test_serve_on_a_port_in_use_fails_before_building(tmp_path: Path) -> None:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "skillsite", "serve", str(FIXTURE), "-o",
             str(tmp_path / "d"), "--port", str(port)],
            capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (f"Error: cannot listen on 127.0.0.1:{port}: Address already "
                                   "in use; pick another port, e.g. --port 8080 (--port 0 "
                                   "picks a free one)"), done.stderr
    assert not (tmp_path / "d").exists()  # nothing was built
