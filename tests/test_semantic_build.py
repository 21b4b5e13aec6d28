"""The build's vectors: embedded once per changed skill, refused when damaged, and absent
(with one clear line) when the semantic extra is missing."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

from skillsite.builder.pipeline import build  # noqa: E402
from skillsite.store.vectors import ROWS, VECTORS_DIR, read_vectors  # noqa: E402

REPO = Path(__file__).parent.parent
#: Makes ``import numpy`` fail in a child process, as on an install without the extra.
HIDE_NUMPY = '''
import sys

class _NoNumpy:
    def find_spec(self, name, path=None, target=None):
        if name == "numpy" or name.startswith("numpy."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, _NoNumpy())
'''


def _corpus(tmp_path: Path) -> Path:
    return Path(shutil.copytree(REPO / "corpus", tmp_path / "corpus"))


def _rows(dist: Path) -> dict[str, bytes]:
    vectors = read_vectors(dist)
    return {name: vectors.rows[row].tobytes() for row, name in enumerate(vectors.ids)}


def test_an_incremental_build_embeds_only_the_changed_skill(tmp_path: Path) -> None:
    corpus, dist = _corpus(tmp_path), tmp_path / "dist"
    first = build(corpus, dist)
    assert first.embedded == first.included and not first.semantic_note
    before = _rows(dist)
    assert len(before) == first.included
    again = build(corpus, dist)
    assert again.incremental and again.embedded == 0 and _rows(dist) == before

    skill = corpus / "skills" / "git-bisect" / "SKILL.md"
    skill.write_text(skill.read_text().replace(
        "description: ", "description: Also for audio mixing consoles and synthesizers. ", 1))
    edited = build(corpus, dist)
    assert edited.incremental and edited.embedded == 1
    after = _rows(dist)
    assert after.keys() == before.keys() and after["git-bisect"] != before["git-bisect"]
    assert {k: v for k, v in after.items() if k != "git-bisect"} == {
        k: v for k, v in before.items() if k != "git-bisect"}

    shutil.rmtree(corpus / "skills" / "pdf-forms")
    removed = build(corpus, dist)
    assert removed.embedded == 0 and "pdf-forms" not in _rows(dist)
    assert len(_rows(dist)) == removed.included


def test_damaged_previous_vectors_make_a_full_embedding(tmp_path: Path) -> None:
    corpus, dist = _corpus(tmp_path), tmp_path / "dist"
    first = build(corpus, dist)
    rows = dist / ROWS
    rows.unlink()  # never write through the hard link a later build may hold
    rows.write_bytes(b"\x93NUMPY damaged")
    again = build(corpus, dist)
    assert not again.incremental and again.embedded == first.included
    assert len(read_vectors(dist).ids) == first.included


def _without_numpy(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    shim = tmp_path / "shim"
    shim.mkdir(exist_ok=True)
    (shim / "sitecustomize.py").write_text(HIDE_NUMPY)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(shim), str(REPO), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "skillsite", *args], capture_output=True,
                          text=True, env=env, cwd=tmp_path)


def test_without_the_extra_the_build_says_so_once_and_writes_no_vectors(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    done = _without_numpy(tmp_path, "build", str(corpus), "-o", "dist", "--no-site", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    notes = [line for line in done.stdout.splitlines() if "vectors" in line.lower()]
    assert len(notes) == 1 and "pip install 'skillsite[semantic]'" in notes[0]
    assert "numpy" in notes[0] and not (tmp_path / "dist" / VECTORS_DIR).exists()
    manifest = json.loads((tmp_path / "dist" / "manifest.json").read_text())
    assert not any(name.startswith(VECTORS_DIR) for name in manifest["files"])
    found = _without_numpy(tmp_path, "recommend", "which folders use the most space",
                           "--dist", "dist", "--json")
    assert found.returncode == 0 and found.stderr == ""
    shape = json.loads(found.stdout)
    assert shape["semantic"] is False and shape["results"]
    assert all(c["via"] == ["lexical"] for c in shape["results"])


def test_without_the_extra_a_dist_with_vectors_answers_lexically(tmp_path: Path) -> None:
    corpus, dist = _corpus(tmp_path), tmp_path / "dist"
    build(corpus, dist)
    found = _without_numpy(tmp_path, "recommend", "which folders use the most space",
                           "--dist", str(dist), "--json")
    assert found.returncode == 0, found.stderr
    assert "skillsite[semantic]" in found.stderr and "numpy" in found.stderr
    shape = json.loads(found.stdout)
    assert shape["semantic"] is False and "skillsite[semantic]" in shape["note"]
    assert shape["results"] and all(c["via"] == ["lexical"] for c in shape["results"])


def test_spliced_vectors_are_the_bytes_a_full_write_makes(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A few skills changed, their count the same: the previous files' bytes are spliced
    (builder.vectors.VectorCollector._spliced), and they equal what selecting the rows
    and saving them again writes."""
    from skillsite.builder import vectors as collecting

    corpus, dist = _corpus(tmp_path), tmp_path / "dist"
    build(corpus, dist)
    shutil.copytree(dist, tmp_path / "saved")
    spliced: list[bool] = []
    splice = collecting.VectorCollector._spliced

    def spy(self: collecting.VectorCollector, *args: object) -> bool:
        spliced.append(splice(self, *args))  # type: ignore[arg-type]
        return spliced[-1]

    monkeypatch.setattr(collecting.VectorCollector, "_spliced", spy)
    for skill in ("git-bisect", "pdf-forms"):
        path = corpus / "skills" / skill / "SKILL.md"
        path.write_text(path.read_text().replace(
            "description: ", "description: Also for audio mixing consoles. ", 1))
    assert build(corpus, dist).embedded == 2 and spliced == [True]
    monkeypatch.setattr(collecting, "SPLICED", 0)
    assert build(corpus, tmp_path / "saved").embedded == 2 and spliced[-1] is False
    for name in ("index.json", "rows.npy", "scales.npy", "signs.npy"):
        assert (dist / VECTORS_DIR / name).read_bytes() == (
            tmp_path / "saved" / VECTORS_DIR / name).read_bytes(), name
    shutil.rmtree(corpus / "skills" / "git-bisect")
    monkeypatch.setattr(collecting, "SPLICED", 64)
    removed = build(corpus, dist)
    assert spliced[-1] is False and "git-bisect" not in _rows(dist)  # one row fewer
    assert len(_rows(dist)) == removed.included
