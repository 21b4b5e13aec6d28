"""An incremental build equals a clean one after any sequence of edits, fast path or not."""
from __future__ import annotations

import os
import random
import shutil
import time
from pathlib import Path

import pytest
from test_build import REPO, dist_state

from skillsite.builder.pipeline import build


def skill(name: str, note: object) -> str:
    return (f"---\nname: {name}\ndescription: Does {name}. Use it when testing.\n---\n"
            f"# {name}\n\nText {note}.\n\nSee [ref](references/R.md).\n")


def page(name: str, depends_on: str) -> str:
    return (f'---\ntype: skill\nname: {name}\nid: "skill:{name}"\ndescription: Page. Use it '
            f'when testing.\ndepends_on: ["skill:{depends_on}"]\n---\n# {name}\n')


def edit(root: Path, rng: random.Random, step: int) -> None:
    """One random change of the kinds users make: edit (in place, or saved through a
    temporary file as many editors do), add, delete, rename, supporting files, a touch,
    a duplicate name, a page with a dependency, a SKILL.md removed from above pages."""
    target = rng.choice(sorted(p.parent for p in root.rglob("SKILL.md")))
    kind = rng.choice(["edit", "save", "add", "delete", "rename", "ref", "unref", "touch",
                       "dupe", "page", "unskill", "link"])
    if kind == "edit":
        (target / "SKILL.md").write_text((target / "SKILL.md").read_text() + f"\n{step}\n")
    elif kind == "save":
        (target / ".SKILL.md.swp").write_text((target / "SKILL.md").read_text() + f"\n{step}\n")
        os.replace(target / ".SKILL.md.swp", target / "SKILL.md")
    elif kind == "unskill":
        (target / "references").mkdir(exist_ok=True)
        (target / "references/N.md").write_text(page(f"n{step}", "pdf-forms"))
        (target / "SKILL.md").unlink()
    elif kind == "add":
        (root / f"skills/new{step}").mkdir(parents=True)
        (root / f"skills/new{step}/SKILL.md").write_text(skill(f"new{step}", step))
    elif kind == "delete":
        shutil.rmtree(target)
    elif kind == "rename":
        target.rename(target.parent / f"{target.name}x")
    elif kind == "ref":
        (target / "references").mkdir(exist_ok=True)
        (target / "references/R.md").write_text("# R\n")
    elif kind == "unref":
        (target / "references/R.md").unlink(missing_ok=True)
    elif kind == "link":  # a link into another skill's folder: a dependency outside its own
        other = rng.choice(sorted(p.parent for p in root.rglob("SKILL.md")))
        (target / ".SKILL.md.swp").write_text(
            (target / "SKILL.md").read_text()
            + f"\nSee [other](../{other.name}/references/R.md).\n")
        os.replace(target / ".SKILL.md.swp", target / "SKILL.md")
    elif kind == "touch":
        os.utime(target / "SKILL.md")
    elif kind == "dupe":
        (root / "oxo").mkdir(exist_ok=True)
        (root / f"oxo/{target.name}.skill.toml").write_text(f'name = "{target.name}"\n')
    else:
        (root / "wiki").mkdir(exist_ok=True)
        (root / f"wiki/p{step}.md").write_text(page(f"p{step}", f"p{step + 1}"))


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_incremental_build_equals_a_clean_build_after_random_edits(tmp_path: Path,
                                                                    seed: int) -> None:
    rng = random.Random(seed)
    root = shutil.copytree(REPO / "corpus", tmp_path / "c", symlinks=True)
    for link in [p for p in root.rglob("*") if p.is_symlink()]:
        link.unlink()  # a tree without symlinks may skip its walk: exercise that path too
    old = time.time() - 100
    for path in [root, *root.rglob("*")]:
        os.utime(path, (old, old))
    dist = tmp_path / "dist"
    build(root, dist)
    for step in range(10):
        edit(root, rng, step)
        if rng.random() < 0.7:
            time.sleep(0.15)  # mostly past the window in which an mtime is not trusted
        incremental = build(root, dist)
        clean = build(root, tmp_path / f"clean{step}", incremental=False)
        assert incremental.incremental and incremental.problems == clean.problems, step
        assert dist_state(dist) == dist_state(clean.dist), step


def test_a_link_into_another_skills_folder_sees_that_folder_change(tmp_path: Path) -> None:
    """A skill that links into another skill's folder is checked again when only that
    folder moves (its target deleted), though its own folder did not."""
    root = tmp_path / "c"
    for name in ("alpha", "beta"):
        (root / "skills" / name / "references").mkdir(parents=True)
        (root / "skills" / name / "references/R.md").write_text("# R\n")
    (root / "skills/alpha/SKILL.md").write_text(skill("alpha", 1))
    (root / "skills/beta/SKILL.md").write_text(
        skill("beta", 1) + "\nSee [alpha](../alpha/references/R.md).\n")
    old = time.time() - 100
    for path in [root, *root.rglob("*")]:
        os.utime(path, (old, old))
    dist = tmp_path / "dist"
    build(root, dist)
    (root / "skills/alpha/references/R.md").unlink()
    time.sleep(0.15)  # past the window in which a folder's mtime is not trusted
    incremental = build(root, dist)
    clean = build(root, tmp_path / "clean", incremental=False)
    assert incremental.incremental and incremental.problems == clean.problems
    assert any(p.path == "skills/beta/SKILL.md" for p in clean.problems)
    assert dist_state(dist) == dist_state(clean.dist)


def _two_old_skills(root: Path) -> Path:
    """Skills alpha and beta under ``root/skills``, every mtime 100 s in the past."""
    for name in ("alpha", "beta"):
        (root / "skills" / name).mkdir(parents=True)
        (root / "skills" / name / "SKILL.md").write_text(skill(name, 1))
    old = time.time() - 100
    for path in [root, *root.rglob("*")]:
        os.utime(path, (old, old))
    return root


def test_the_stat_index_paths_are_kept_while_no_file_comes_or_goes(tmp_path: Path) -> None:
    """An edit in place rewrites the stat index's stats alone; a new skill its paths too.
    Either way the next build sees what the one after a clean build sees."""
    root = _two_old_skills(tmp_path / "c")
    dist = tmp_path / "dist"
    build(root, dist)
    cache = dist / "build-cache"

    def inodes() -> dict[str, int]:
        return {name: (cache / name).stat().st_ino for name in ("stats.bin", "stat-values.bin")}

    before = inodes()
    (root / "skills/alpha/SKILL.md").write_text(skill("alpha", 2))
    time.sleep(0.15)  # past the window in which an mtime is not trusted
    assert build(root, dist).rechecked == 1
    after = inodes()
    assert after["stats.bin"] == before["stats.bin"]
    assert after["stat-values.bin"] != before["stat-values.bin"]
    (root / "skills/gamma").mkdir()
    (root / "skills/gamma/SKILL.md").write_text(skill("gamma", 1))
    time.sleep(0.15)
    assert build(root, dist).rechecked == 1
    assert inodes()["stats.bin"] != after["stats.bin"]
    (root / "skills/gamma/SKILL.md").write_text(skill("gamma", 2))
    time.sleep(0.15)
    incremental = build(root, dist)
    clean = build(root, tmp_path / "clean", incremental=False)
    assert incremental.rechecked == 1 and incremental.problems == clean.problems
    assert dist_state(dist) == dist_state(clean.dist)


def test_a_save_through_a_rename_keeps_the_index_without_comparing_every_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file saved through a temporary file moves its folder's mtime, so the folder is
    listed again; when it holds the same entries, the stat index's paths are kept without
    a look-up of every folder and file (builder.cache._same_tree). A new file is seen."""
    from skillsite.builder import cache as caching

    root = _two_old_skills(tmp_path / "c")
    dist = tmp_path / "dist"
    build(root, dist)
    shape = (dist / "build-cache" / "stats.bin").stat().st_ino
    compared: list[int] = []
    same_keys = caching._same_keys
    monkeypatch.setattr(caching, "_same_keys",
                        lambda *args: compared.append(1) or same_keys(*args))
    for step in (2, 3):
        alpha = root / "skills/alpha"
        (alpha / ".SKILL.md.swp").write_text(skill("alpha", step))
        os.replace(alpha / ".SKILL.md.swp", alpha / "SKILL.md")
        time.sleep(0.15)  # past the window in which a folder's mtime is not trusted
        assert build(root, dist).rechecked == 1 and not compared
        assert (dist / "build-cache" / "stats.bin").stat().st_ino == shape
    (root / "skills/alpha/references").mkdir()
    (root / "skills/alpha/references/N.md").write_text(page("n1", "beta"))
    time.sleep(0.15)
    build(root, dist)
    assert compared and (dist / "build-cache" / "stats.bin").stat().st_ino != shape
    (root / "skills/beta/SKILL.md").write_text(skill("beta", 2))
    time.sleep(0.15)
    incremental = build(root, dist)
    clean = build(root, tmp_path / "clean", incremental=False)
    assert incremental.rechecked == 1 and incremental.problems == clean.problems
    assert dist_state(dist) == dist_state(clean.dist)
