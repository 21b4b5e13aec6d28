"""dist/ is checked before it is trusted: version, missing and wrong-sized files (cheap,
on the files a query reads), every sha256 (`skillsite verify`)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillsite.cli import main
from skillsite.reader import Library, ReaderError


@pytest.fixture
def copy(dist: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(dist, tmp_path / "dist"))


def manifest(dist: Path) -> dict:
    return json.loads((dist / "manifest.json").read_text())


def test_a_copied_dist_works_anywhere(copy: Path) -> None:
    library = Library(copy, verify=True)
    assert library.search("pdf form").results[0].name == "pdf-forms"
    assert library.read("pdf-forms", "Step 3: Fill").text.startswith("## Step 3")


def test_no_manifest_is_not_a_dist(tmp_path: Path) -> None:
    with pytest.raises(ReaderError) as error:
        Library(tmp_path)
    assert error.value.code == "not-a-dist" and "skillsite build" in error.value.message


@pytest.mark.parametrize("version", ["3.0", "2.5", "2.4", "1.0", "0.9", "1", "x", None])
def test_an_unknown_major_version_is_refused(copy: Path, version: object) -> None:
    data = manifest(copy)
    data["artifact_version"] = version
    (copy / "manifest.json").write_text(json.dumps(data))
    with pytest.raises(ReaderError) as error:
        Library(copy)
    assert error.value.code == "unsupported-artifact-version"
    assert "rebuild" in error.value.message and error.value.exit_code == 2


def test_a_newer_minor_version_is_read(copy: Path) -> None:
    data = manifest(copy)
    data["artifact_version"] = "1.9"
    (copy / "manifest.json").write_text(json.dumps(data))
    assert Library(copy).open("pdf-forms").name == "pdf-forms"


def test_a_broken_manifest_is_damaged(copy: Path) -> None:
    (copy / "manifest.json").write_text("{not json")
    with pytest.raises(ReaderError) as error:
        Library(copy)
    assert error.value.code == "damaged-dist"


def test_a_missing_shard_names_the_file(copy: Path) -> None:
    from skillsite.store.content import shard_of

    (copy / "content" / shard_of("pdf-forms")).unlink()
    with pytest.raises(ReaderError) as error:
        Library(copy).open("pdf-forms")
    assert error.value.code == "damaged-dist"
    assert shard_of("pdf-forms") in error.value.message and "rebuild" in error.value.message


@pytest.mark.parametrize("damage", ["missing", "truncated", "not sqlite"])
def test_a_damaged_hits_file_is_named_and_never_a_traceback(copy: Path, damage: str) -> None:
    from skillsite.store.manifest import file_checksums

    hits = copy / "content" / "hits.db"
    if damage == "missing":
        hits.unlink()
    elif damage == "truncated":
        hits.write_bytes(hits.read_bytes()[:100])
    else:  # the manifest agrees: only SQLite can tell
        hits.write_bytes(b"x" * hits.stat().st_size)
        data = manifest(copy)
        data["files"] = file_checksums(copy)
        (copy / "manifest.json").write_text(json.dumps(data))
    for search in (lambda: Library(copy).search("pdf form"),
                   lambda: Library(copy, hash_on_read=False).search("pdf form")):
        with pytest.raises(ReaderError) as error:
            search()
        assert error.value.code == "damaged-dist"
        assert "hits.db" in error.value.message and "rebuild" in error.value.message
    done = CliRunner().invoke(main, ["search", "pdf form", "--dist", str(copy)])
    assert done.exit_code == 2 and "hits.db" in done.output and "Traceback" not in done.output


def test_a_truncated_index_file_is_caught_before_the_engine_reads_it(copy: Path) -> None:
    biggest = max((p for p in (copy / "index").iterdir() if p.is_file()),
                  key=lambda p: p.stat().st_size)
    biggest.write_bytes(biggest.read_bytes()[:10])
    with pytest.raises(ReaderError) as error:
        Library(copy).search("pdf")
    assert error.value.code == "damaged-dist" and biggest.name in error.value.message


def test_a_flipped_byte_is_found_by_verify_only(copy: Path) -> None:
    graph = copy / "graph.json"
    data = bytearray(graph.read_bytes())
    data[5] ^= 1
    graph.write_bytes(bytes(data))
    Library(copy).open("pdf-forms")  # cheap checks pass: same size
    with pytest.raises(ReaderError) as error:
        Library(copy, verify=True)
    assert error.value.code == "damaged-dist" and "graph.json" in error.value.message
    result = CliRunner().invoke(main, ["verify", str(copy)])
    assert result.exit_code == 2 and "graph.json: sha256" in result.output
    as_json = CliRunner().invoke(main, ["verify", str(copy), "--json"])
    assert json.loads(as_json.stdout)["mismatches"][0]["path"] == "graph.json"


def test_verify_a_clean_dist(copy: Path) -> None:
    result = CliRunner().invoke(main, ["verify", str(copy)])
    assert result.exit_code == 0 and "all match" in result.output


def test_without_hash_on_read_a_same_size_corruption_is_left_to_verify(copy: Path) -> None:
    from skillsite.store.content import shard_of

    shard = copy / "content" / shard_of("git-bisect")
    data = bytearray(shard.read_bytes())
    data[len(data) - 10] ^= 1  # free space at the end of the file: same size
    shard.write_bytes(bytes(data))
    assert Library(copy, hash_on_read=False).open("git-bisect").name == "git-bisect"
    with pytest.raises(ReaderError) as error:
        Library(copy).open("git-bisect")  # the default hashes what it reads
    assert error.value.code == "damaged-dist" and shard.name in error.value.message


def test_verify_spares_a_second_hash_only_for_files_that_matched(copy: Path) -> None:
    """A long-lived reader (the MCP server) hashes all of dist/ once at start; the files
    that matched are not hashed again on first read, one that did not is still refused."""
    from skillsite.reader.artifacts import Artifacts

    damaged = "catalog.json"
    path = copy / damaged
    path.write_bytes(path.read_bytes().replace(b"pdf", b"PDF", 1))  # same size, new hash
    artifacts = Artifacts(copy)
    mismatches = artifacts.verify()
    assert [(m.path, m.problem) for m in mismatches] == [(damaged, "sha256")]
    assert set(artifacts._checked) == set(artifacts.files) - {damaged}  # not hashed again
    for relative in artifacts.files:
        if relative != damaged:
            assert artifacts.require(relative) == copy / relative
    with pytest.raises(ReaderError) as error:
        artifacts.require(damaged)
    assert error.value.code == "damaged-dist" and damaged in error.value.message


def test_verify_takes_dist_like_the_query_commands(copy: Path, tmp_path: Path) -> None:
    clean = Path(shutil.copytree(copy, tmp_path / "clean"))
    result = CliRunner().invoke(main, ["verify", "--dist", str(clean)])
    assert result.exit_code == 0 and f"files of {clean}: all match" in result.stdout
    graph = copy / "graph.json"
    graph.write_bytes(graph.read_bytes().replace(b"{", b"[", 1))
    both = CliRunner().invoke(main, ["verify", "--dist", f"ok={clean}", "--dist",
                                     f"bad={copy}", "--json"])
    assert both.exit_code == 2
    libraries = json.loads(both.stdout)["libraries"]
    assert libraries["ok"]["mismatches"] == []
    assert libraries["bad"]["mismatches"][0]["path"] == "graph.json"
    assert CliRunner().invoke(main, ["verify", str(clean), "--dist", str(clean)]).exit_code == 2


def test_verify_of_a_folder_that_is_not_a_dist_says_so_once(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["verify", "--dist", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr.count("Error: ") == 1 and "skillsite build" in result.stderr
