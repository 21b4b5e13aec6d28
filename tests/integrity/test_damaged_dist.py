"""A truncated, corrupted or swapped file in ``dist/`` is refused, by name, with the advice
to rebuild; every answer the reader still gives is the intact dist's answer.

Each file the manifest lists (the reader never reads ``build-cache/``; the builder's use
of it is tested below) is damaged three ways in a copy of a ``dist/`` built from
``corpus/``; then every reader operation runs on a fresh Library.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import skillsite
from skillsite.reader.errors import ReaderError
from skillsite.reader.library import Library
from skillsite.store.content import shard_of

REPO = Path(__file__).resolve().parents[2]
DAMAGES = ("truncate", "flip a byte", "swap")


def _operations(lib: Library) -> list[object]:
    """One call of every operation, over names that touch every content shard."""
    names = list(lib.names(limit=1000).names)
    answers: list[object] = [lib.context(), lib.search("pdf forms"), lib.search(""),
                             lib.recommend("investigate an incident")]
    for name in names:
        answers += [lib.open(name), lib.read(name), lib.related(name), lib.compose(name),
                    lib.skill_files(name)]
    answers.append(lib.prompt(names[:3]))
    return [repr(a) for a in answers]


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[object]]:
    """dist/ of corpus/, and of corpus/ with one skill edited (to swap files from)."""
    base = tmp_path_factory.mktemp("integrity")
    good = skillsite.build(REPO / "corpus", base / "good", jobs=1).dist
    other_corpus = base / "other-corpus"
    shutil.copytree(REPO / "corpus", other_corpus)
    page = other_corpus / "wiki" / "log-search.md"
    page.write_text(page.read_text("utf-8") + "\nMore text.\n", encoding="utf-8")
    other = skillsite.build(other_corpus, base / "other", jobs=1).dist
    return good, other, _operations(Library(good, max_skills=None, max_chars=None))


def _listed(dist: Path) -> list[str]:
    files = json.loads((dist / "manifest.json").read_text("utf-8"))["files"]
    return sorted(f for f in files if not f.startswith("build-cache/"))


def _damage(dist: Path, relative: str, how: str, other: Path) -> set[str]:
    """Damage ``relative``; the files damaged (a swap of content shards damages two)."""
    path = dist / relative
    data = path.read_bytes()
    if not data and how != "swap":
        return set()
    if how == "truncate":
        path.write_bytes(data[:len(data) // 2])
    elif how == "flip a byte":
        at = len(data) // 2
        path.write_bytes(data[:at] + bytes([data[at] ^ 0x20]) + data[at + 1:])
    else:  # swap: another shard of this build, or the same file from another build
        partners = [p for p in sorted(path.parent.iterdir()) if p != path
                    and p.suffix == path.suffix and p.read_bytes() != data
                    ] if relative.startswith(("content/", "build-cache/", "vectors/")) else []
        if relative.startswith("vectors/") and not partners:  # its only .json: the catalog's
            partners = [dist / "catalog.json"]
        if partners:
            partner = partners[0]
            swapped = partner.read_bytes()
            partner.write_bytes(data)
            path.write_bytes(swapped)
            return {relative, partner.relative_to(dist).as_posix()}
        elif (other / relative).exists() and (other / relative).read_bytes() != data:
            shutil.copyfile(other / relative, path)
        else:  # tantivy segment names differ per build: take a segment file of the other
            kind = Path(relative).suffix
            donor = next(p for p in sorted((other / "index").iterdir()) if p.suffix == kind)
            shutil.copyfile(donor, path)
    return {relative}


@pytest.mark.parametrize("how", DAMAGES)
def test_every_damaged_file_is_refused_by_name(dists, tmp_path: Path, how: str) -> None:
    good, other, intact = dists
    for relative in _listed(good):
        copy = tmp_path / f"{how}-{relative.replace('/', '-')}"
        shutil.copytree(good, copy)
        damaged = _damage(copy, relative, how, other)
        if (copy / relative).read_bytes() == (good / relative).read_bytes():
            continue  # an empty file (tantivy's lock): nothing to damage
        with pytest.raises(ReaderError) as verified:
            Library(copy, verify=True)
        assert verified.value.code == "damaged-dist" and "rebuild" in verified.value.message
        try:
            answers = _operations(Library(copy, max_skills=None, max_chars=None))
        except ReaderError as error:
            assert error.code == "damaged-dist", (relative, how, error.message)
            assert any(str(copy / d) in error.message for d in damaged), (relative, error)
            assert "rebuild" in error.message
        else:  # the damaged file was not needed: every answer must be the intact one
            assert answers == intact, (relative, how)


@pytest.mark.parametrize("relative, command", [
    (f"content/{shard_of('pdf-forms')}", ["open", "pdf-forms"]),
    ("content/hits.db", ["search", "pdf"])])
def test_the_cli_says_which_file_and_to_rebuild(dists, tmp_path: Path, relative: str,
                                                command: list[str]) -> None:
    good, _, _ = dists
    copy = tmp_path / "dist"
    shutil.copytree(good, copy)
    shard = copy / relative
    shard.write_bytes(shard.read_bytes()[:100])
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-m", "skillsite", *command, "--dist",
                           str(copy)], capture_output=True, text=True, env=env)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert f"{shard} has 100 bytes" in done.stderr and "rebuild" in done.stderr


@pytest.mark.parametrize("how", DAMAGES)
def test_a_damaged_build_cache_means_a_clean_build(dists, tmp_path: Path, how: str) -> None:
    good, other, _ = dists
    copy = tmp_path / "dist"
    shutil.copytree(good, copy)
    for relative in [f for f in json.loads((copy / "manifest.json").read_text())["files"]
                     if f.startswith("build-cache/")]:
        _damage(copy, relative, how, other)
    result = skillsite.build(REPO / "corpus", copy, jobs=1)
    assert result.included == 19
    assert Library(copy, verify=True).verify() == []
