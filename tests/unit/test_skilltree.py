"""Discovery lists a skill's folders once, and the bundle walk takes them from it."""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import pytest
from corpus_helpers import Fifo, Link, skill_md, write

from skillsite.linter.bundle import bundled_files
from skillsite.linter.discover import discover
from skillsite.linter.parse import read

SKILL = {
    "pdf/SKILL.md": skill_md("pdf", body="See [a](references/a.md).\n"),
    "pdf/references/a.md": "# A\n",
    "pdf/references/deep/b.md": "# B\n",
    "pdf/scripts/run.sh": "#!/bin/sh\necho hi\n",
    "pdf/assets/logo.png": b"\x89PNG\r\n",
    "pdf/.hidden/c.md": "# hidden\n",
    "pdf/node_modules/d.js": "x()\n",
    "pdf/site-packages/e.py": "y = 1\n",
    "pdf/nested/SKILL.md": skill_md("nested"),
    "pdf/nested/references/f.md": "# F\n",
    "pdf/linked.md": Link("references/a.md"),
    "pdf/linked-folder": Link("references"),
    "other/SKILL.md": skill_md("other"),
}


def _bundled(source: Any) -> list[tuple[str, str, int, str | None]]:
    doc = read(source)
    assert doc is not None
    return [(b.rel, b.path, b.size, b.text) for b in bundled_files(doc, 1 << 20)]


def test_the_bundle_walk_finds_the_same_files_with_and_without_the_tree(tmp_path: Path) -> None:
    root = write(tmp_path, SKILL)
    sources = {str(s.path.relative_to(root)): s for s in discover([root])
               if s.kind == "skill-md"}
    assert set(sources) == {"pdf/SKILL.md", "pdf/nested/SKILL.md", "other/SKILL.md"}
    pdf = sources["pdf/SKILL.md"]
    assert pdf.tree is not None and "references/deep" in pdf.tree
    assert ".hidden" not in pdf.tree and "nested/references" not in pdf.tree
    with_tree = _bundled(pdf)
    assert with_tree == _bundled(dataclasses.replace(pdf, tree=None))
    assert sorted(rel for rel, *_ in with_tree) == [
        "assets/logo.png", "linked.md", "references/a.md", "references/deep/b.md",
        "scripts/run.sh", "site-packages/e.py"]


def test_each_folder_of_a_skill_is_listed_once(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    root = write(tmp_path, SKILL)
    listed: list[str] = []
    real_scandir = os.scandir

    def counting(path: Any = ".") -> Any:
        listed.append(os.path.normpath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", counting)
    for source in discover([root]):
        if source.kind == "skill-md":
            _bundled(source)
    assert len(listed) == len(set(listed)), sorted(listed)
    # discovery goes through the symlinked folder once more (it is a folder of its own)
    assert str(root / "pdf" / "references" / "deep") in listed


def test_a_skill_reached_through_a_symlinked_folder_is_walked_on_its_own(
        tmp_path: Path) -> None:
    root = write(tmp_path, {"real/pdf/SKILL.md": skill_md("pdf"),
                            "real/pdf/references/a.md": "# A\n",
                            "link": Link("real")})
    linked = [s for s in discover([root]) if "link" in s.path.parts]
    assert not linked or all(s.tree is None for s in linked)
    for source in discover([root]):
        assert [rel for rel, *_ in _bundled(source)] == ["references/a.md"]


def test_discovery_still_finds_what_the_folders_of_a_skill_hold(tmp_path: Path) -> None:
    """A folder of a skill that holds nothing discovery looks for is not visited again;
    one that holds a skill file, a subfolder or something to flag still is."""
    root = write(tmp_path, {
        "pdf/SKILL.md": skill_md("pdf"),
        "pdf/references/a.md": "# A\n",
        "pdf/references/pipe.md": Fifo(),
        "pdf/scripts/run.skill.toml": 'name = "run"\n',
        "pdf/config/skill.json": "{}\n",
        "pdf/deep/er/SKILL.md": skill_md("er"),
        "pdf/odd/SKILL.md": Fifo(),
    })
    flagged: list[Any] = []
    found = {(str(s.path.relative_to(root)), s.kind) for s in discover([root], flagged=flagged)}
    assert found == {("pdf/SKILL.md", "skill-md"), ("pdf/scripts/run.skill.toml", "skill-toml"),
                     ("pdf/config/skill.json", "skill-json"), ("pdf/deep/er/SKILL.md", "skill-md")}
    assert [str(f.path.relative_to(root)) for f in flagged] == ["pdf/odd/SKILL.md"]


@pytest.mark.parametrize("given", [".", "corpus", "corpus/", "corpus/../corpus"])
def test_discovered_paths_are_the_paths_pathlib_makes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str) -> None:
    write(tmp_path / "corpus", {"pdf/SKILL.md": skill_md("pdf"),
                                "pdf/scripts/run.skill.toml": 'name = "run"\n'})
    monkeypatch.chdir(tmp_path / "corpus" if given == "." else tmp_path)
    for top in (Path(given), Path(given).absolute()):
        sources = list(discover([top]))
        assert len(sources) == 2
        for source in sources:
            plain = Path(str(source.path))
            assert (source.path, str(source.path), source.path.parts, hash(source.path),
                    source.path.parent) == (plain, str(plain), plain.parts, hash(plain),
                                            plain.parent)
            assert source.path.is_file()
            assert str(source.path) == os.path.join(*source.path.parts)
            folder = os.path.abspath(os.path.dirname(source.path))
            assert source.folder == (folder if top.is_absolute() and ".." not in given
                                     else None)
