"""Issue #20, item 16: ``dist/site`` is in the manifest, ``verify`` sees a changed page,
and an incremental build never carries forward a page that differs from what it wrote."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "site" / "corpus"
PAGE = Path("site") / "skills" / "alpha-guide" / "index.html"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-P", "-m", "skillsite", *args],
                          capture_output=True, text=True, timeout=300)


def test_a_changed_page_is_seen_and_never_carried_forward(tmp_path: Path) -> None:
    corpus, dist = tmp_path / "corpus", tmp_path / "dist"
    shutil.copytree(FIXTURE, corpus)
    assert _cli("build", str(corpus), "-o", str(dist)).returncode == 0
    assert _cli("verify", str(dist)).returncode == 0
    page = dist / PAGE
    written = page.read_bytes()
    page.write_bytes(written.replace(b"</main>", b"<p>TAMPERED</p></main>"))
    done = _cli("verify", str(dist))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "site/skills/alpha-guide/index.html" in done.stderr
    (dist / "site" / "planted.html").write_text("<p>PLANTED</p>")
    edited = corpus / "skills" / "beta-check" / "SKILL.md"
    edited.write_text(edited.read_text() + "\nEdited.\n")
    done = _cli("build", str(corpus), "-o", str(dist))
    assert done.returncode == 0, done.stderr
    assert b"TAMPERED" not in (dist / PAGE).read_bytes()
    assert not (dist / "site" / "planted.html").exists()
    assert _cli("verify", str(dist)).returncode == 0
