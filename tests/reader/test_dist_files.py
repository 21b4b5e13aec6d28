"""dist/ keeps each skill's files (artifact 2.1): verbatim, capped, inside the skill's
folder only, and kept right by incremental builds (an edit in place included)."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import skillsite.builder.pipeline
from skillsite.builder.pipeline import build
from skillsite.config import Config
from skillsite.reader import Library, ReaderError
from skillsite.store.content import ContentStore

SKILL = "---\nname: {0}\ndescription: Does {0}. Use it when testing.\n---\n# {0}\n\nText.\n"


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    for relative, data in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
    return root


def age(root: Path) -> None:
    """Make every stat older than the racy window, as a real edit a minute later is."""
    old = time.time() - 120
    for path in [root, *root.rglob("*")]:
        os.utime(path, (old, old), follow_symlinks=False)


def stored(dist: Path) -> list[tuple]:
    with ContentStore(dist / "content") as store:
        return sorted(row for row in store.dump() if len(row) == 5)


def test_files_are_kept_verbatim_and_capped(tmp_path: Path) -> None:
    outside = write(tmp_path / "elsewhere", {"secret.txt": "top secret"})
    root = write(tmp_path / "c", {
        "skills/a/SKILL.md": SKILL.format("a"), "skills/a/references/R.md": "# R\n",
        "skills/a/assets/big.bin": b"\0" * 5000, "skills/a/scripts/run.sh": "echo hi\n",
        "wiki/page.md": "---\ntype: skill\nname: page\ndescription: A page. Use it.\n---\n# P\n"})
    os.symlink(outside / "secret.txt", root / "skills/a/leak.txt")
    os.mkfifo(root / "skills/a/pipe")
    build(root, tmp_path / "dist", config=Config(max_file_size=4096))
    library = Library(tmp_path / "dist", max_chars=None)
    files = {f.path: f for f in library.skill_files("a")}
    assert set(files) == {"SKILL.md", "references/R.md", "assets/big.bin", "scripts/run.sh"}
    assert files["assets/big.bin"].size == 5000 and not files["assets/big.bin"].stored
    assert library.skill_file("a", "references/R.md") == b"# R\n"
    assert library.skill_file("a") == (root / "skills/a/SKILL.md").read_bytes()
    with pytest.raises(ReaderError) as too_big:
        library.skill_file("a", "assets/big.bin")
    assert too_big.value.code == "not-found" and "size cap" in too_big.value.message
    with pytest.raises(ReaderError):
        library.skill_file("a", "leak.txt")
    assert b"top secret" not in b"".join(row[4] or b"" for row in stored(tmp_path / "dist"))
    assert [f.path for f in library.skill_files("page")] == ["SKILL.md", "page.md"]


def test_an_edit_in_place_of_a_supporting_file_is_seen_on_the_fast_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write(tmp_path / "c", {"skills/a/SKILL.md": SKILL.format("a"),
                                  "skills/a/references/R.md": "# first\n",
                                  "skills/b/SKILL.md": SKILL.format("b")})
    age(root)
    dist = tmp_path / "dist"
    build(root, dist)
    walks: list[int] = []
    real_walk = skillsite.builder.pipeline.walk_files
    monkeypatch.setattr(skillsite.builder.pipeline, "walk_files",
                        lambda *a, **k: walks.append(1) or real_walk(*a, **k))
    reference = root / "skills/a/references/R.md"
    with open(reference, "r+", encoding="utf-8") as handle:  # in place: no folder change
        handle.write("# again\n")
    later = time.time() - 60
    os.utime(reference, (later, later))
    again = build(root, dist)
    assert walks == [] and again.rechecked == 1
    assert Library(dist).skill_file("a", "references/R.md") == b"# again\n"
    assert stored(dist) == stored(build(root, tmp_path / "clean").dist)


def test_a_deleted_supporting_file_leaves_the_store_and_the_fast_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write(tmp_path / "c", {"skills/a/SKILL.md": SKILL.format("a"),
                                  "skills/a/notes.txt": "n\n"})
    age(root)
    dist = tmp_path / "dist"
    build(root, dist)
    (root / "skills/a/notes.txt").unlink()
    age(root)
    build(root, dist)
    assert [f.path for f in Library(dist).skill_files("a")] == ["SKILL.md"]
    walks: list[int] = []
    real_walk = skillsite.builder.pipeline.walk_files
    monkeypatch.setattr(skillsite.builder.pipeline, "walk_files",
                        lambda *a, **k: walks.append(1) or real_walk(*a, **k))
    assert build(root, dist).rechecked == 0 and walks == []


def test_warnings_are_served_by_open(tmp_path: Path) -> None:
    root = write(tmp_path / "c", {"skills/a/SKILL.md": SKILL.format("a").replace(
        "---\n# a", "owner: me\n---\n# a")})
    build(root, tmp_path / "dist")
    warnings = Library(tmp_path / "dist").open("a").warnings
    assert [w.rule for w in warnings] == ["unknown-field"] and warnings[0].line == 4
