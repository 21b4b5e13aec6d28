"""Several libraries in one Library (Mini-A's mounts, #23 item 6): ``Library({name: dist})``
and ``--dist NAME=PATH``. Results name their library and carry ``@<library>/<id>`` refs,
which every operation takes; bare refs serve when one library holds them; ``related``
joins the libraries by shared tags; a damaged library is refused by name while the others
serve."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillsite.builder.pipeline import build
from skillsite.cli import main
from skillsite.reader import Library, ReaderError

OPS = Path(__file__).resolve().parents[1] / "fixtures" / "ops-library"
#: Builds argv[1] into argv[2] as without the semantic extra: no vectors.
WITHOUT_VECTORS = ("import sys; sys.modules['numpy'] = None\n"
                   "from pathlib import Path\n"
                   "from skillsite.builder.pipeline import build\n"
                   "build(Path(sys.argv[1]), Path(sys.argv[2]))")


@pytest.fixture(scope="module")
def ops_dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ops") / "dist"
    build(OPS, out)
    return out


@pytest.fixture
def two(dist: Path, ops_dist: Path) -> Library:
    return Library({"wiki": dist, "ops": ops_dist})


def damaged_copy(dist: Path, where: Path) -> Path:
    """A copy of ``dist`` whose content store has one byte changed (the same size)."""
    copy = Path(shutil.copytree(dist, where))
    shard = next(p for p in sorted((copy / "content").glob("*.db")) if p.stat().st_size)
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0xFF
    shard.write_bytes(bytes(data))
    return copy


def test_results_carry_their_library_and_a_prefixed_ref(two: Library) -> None:
    found = two.search("drain a kubernetes node", limit=5)
    assert found.libraries == ("wiki", "ops") and found.refused == ()
    assert (found.results[0].library, found.results[0].ref) == ("ops", "@ops/node-drain")
    assert {hit.library for hit in found.results} == {"wiki", "ops"}
    for hit in found.results:
        assert hit.ref == f"@{hit.library}/{hit.id}"
    scores = [hit.score for hit in found.results]
    assert scores == sorted(scores, reverse=True)  # merged best first


@pytest.mark.parametrize("library, expected", [("ops", {"ops"}), (["wiki"], {"wiki"}),
                                               (["wiki", "ops"], {"wiki", "ops"}),
                                               ("*", {"wiki", "ops"})])
def test_search_and_recommend_take_a_library(two: Library, library: str | list[str],
                                             expected: set[str]) -> None:
    for found in (two.search("", limit=50, library=library),
                  two.recommend("fill in a pdf form", limit=20, library=library)):
        assert {hit.library for hit in found.results} == expected
        assert found.libraries == tuple(n for n in ("wiki", "ops") if n in expected)


def test_an_unknown_library_is_an_invalid_argument_that_lists_them(two: Library) -> None:
    with pytest.raises(ReaderError) as caught:
        two.search("pdf", library="nope")
    assert caught.value.code == "invalid-argument"
    assert "wiki, ops" in caught.value.message


def test_prefixed_refs_serve_every_operation(two: Library) -> None:
    assert two.open("@ops/pdf-forms").description.startswith("How the ops team")
    assert two.open("@wiki/pdf-forms").library == "wiki"
    assert two.open("skill:@ops/pdf-forms").ref == "@ops/pdf-forms"
    assert two.open("wiki:@ops/kafka-lag").ref == "@ops/kafka-lag"  # Mini-A's form
    passage = two.read("@wiki/pdf-forms", file="references/FORMS.md", max_chars=300)
    assert passage.library == "wiki" and passage.text.startswith("# AcroForm")
    by_uri = two.read("skill://@wiki/pdf-forms/references/FORMS.md", max_chars=300)
    assert by_uri.text == passage.text
    assert two.resolve("@ops/kafka-lag", ["orders"]).ref == "@ops/kafka-lag"
    assert two.skill_file("@ops/node-drain").startswith(b"---")
    assert two.has_skill("@ops/node-drain") and not two.has_skill("node-drain")
    assert two.prompt(["@ops/kafka-lag", "@wiki/pdf-forms"]).skills == (
        "@ops/kafka-lag", "@wiki/pdf-forms")
    with pytest.raises(ReaderError) as caught:
        two.open("@ops/git-bisect")  # in wiki only
    assert caught.value.code == "not-found"


def test_a_bare_ref_serves_when_one_library_holds_it(two: Library) -> None:
    assert two.open("kafka-lag").ref == "@ops/kafka-lag"
    assert two.open("git-bisect").ref == "@wiki/git-bisect"
    with pytest.raises(ReaderError) as caught:
        two.open("pdf-forms")
    assert caught.value.code == "ambiguous-name"
    assert caught.value.details["candidates"] == ["@wiki/pdf-forms", "@ops/pdf-forms"]


def test_related_joins_the_libraries_by_shared_tags(two: Library) -> None:
    related = two.related("@ops/node-drain")
    joined = {n.ref: n.reasons for n in related.results if n.library == "wiki"}
    assert "shared tag: kubernetes" in joined["@wiki/deploy-rollback"]
    assert all(n.ref.startswith(f"@{n.library}/") for n in related.results)
    back = two.related("@wiki/deploy-rollback", limit=50)
    assert "@ops/node-drain" in {n.ref for n in back.results}


def test_names_context_and_budgets_span_the_libraries(dist: Path, ops_dist: Path) -> None:
    two = Library({"wiki": dist, "ops": ops_dist}, max_skills=2, max_chars=None)
    names = two.names(limit=1000).names
    assert "@ops/pdf-forms" in names and "@wiki/pdf-forms" in names
    assert list(names) == sorted(names) and len(set(names)) == len(names)
    context = two.context()
    assert [entry["library"] for entry in context.libraries] == ["wiki", "ops"]
    assert context.skills == sum(entry["skills"] for entry in context.libraries)
    two.read("@wiki/pdf-forms", max_chars=300)
    two.read("@ops/pdf-forms", max_chars=300)  # the same id in another library: a 2nd skill
    with pytest.raises(ReaderError) as caught:
        two.read("@ops/kafka-lag", max_chars=300)
    assert caught.value.code == "budget-exceeded"
    assert two.budget.loaded == ["@wiki/pdf-forms", "@ops/pdf-forms"]


def test_names_that_start_with_a_prefix_page_within_it(dist: Path, ops_dist: Path) -> None:
    two = Library({"wiki": dist, "ops": ops_dist})
    ops = two.names(prefix="@ops/")
    assert ops.names == ("@ops/kafka-lag", "@ops/node-drain", "@ops/pdf-forms")
    assert (ops.total, ops.cursor) == (3, None)
    assert two.names(prefix="@ops/pd").names == ("@ops/pdf-forms",)
    assert two.names(prefix="@nope").names == () and two.names(prefix="@nope").total == 0
    seen: list[str] = []
    page = two.names(prefix="@wiki/", limit=5)
    while True:
        seen += page.names
        if page.cursor is None:
            break
        page = two.names(page.cursor, limit=5, prefix="@wiki/")
    assert seen == [name for name in two.names(limit=1000).names if name.startswith("@wiki/")]
    assert len(seen) == page.total == 19
    assert Library(dist).names(prefix="pdf").names == ("pdf-forms",)


def test_context_gives_each_library_its_own_build_and_the_newest_above(
        dist: Path, ops_dist: Path, tmp_path: Path) -> None:
    older = Path(shutil.copytree(ops_dist, tmp_path / "older"))
    manifest = json.loads((older / "manifest.json").read_text(encoding="utf-8"))
    manifest.update(build_time="2020-01-02T03:04:05Z", skillsite_version="0.0.1")
    (older / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    wiki = Library(dist).context()
    context = Library({"ops": older, "wiki": dist}).context()
    own = {entry["library"]: entry for entry in context.libraries}
    assert (own["ops"]["build_time"], own["ops"]["skillsite_version"]) == (
        "2020-01-02T03:04:05Z", "0.0.1")
    assert (own["wiki"]["build_time"], own["wiki"]["skillsite_version"]) == (
        wiki.build_time, wiki.skillsite_version)
    assert context.build_time == wiki.build_time  # the newest, not the first library's
    assert context.skillsite_version == f"0.0.1, {wiki.skillsite_version}"
    assert context.artifact_version == wiki.artifact_version  # shared: said once
    assert context.index_backend == wiki.index_backend


def test_safe_mode_over_two_libraries_counts_one_search(dist: Path, ops_dist: Path) -> None:
    two = Library({"wiki": dist, "ops": ops_dist}, safe=True)
    found = two.search("drain a kubernetes node", limit=5)
    assert found.results[0].library == "ops" and found.results[0].ref.startswith("r-")
    assert two.ledger is not None and two.ledger.searches == 1
    assert two.open(found.results[0].ref).name == "node-drain"


def test_a_damaged_library_is_refused_by_name_and_the_others_serve(
        dist: Path, ops_dist: Path, tmp_path: Path) -> None:
    bad = damaged_copy(ops_dist, tmp_path / "bad")
    two = Library({"wiki": dist, "bad": bad}, verify=True)
    [refusal] = two.refused()
    assert refusal.code == "damaged-dist" and "library 'bad'" in refusal.message
    assert "rebuild" in refusal.message
    found = two.search("pdf form")
    assert found.libraries == ("wiki",) and found.results[0].ref == "@wiki/pdf-forms"
    assert [(r["library"], r["error"]) for r in found.refused] == [("bad", "damaged-dist")]
    for call in (lambda: two.search("pdf", library="bad"), lambda: two.open("@bad/kafka-lag")):
        with pytest.raises(ReaderError) as caught:
            call()
        assert caught.value.code == "damaged-dist" and "library 'bad'" in caught.value.message
    with pytest.raises(ReaderError) as caught:
        two.open("kafka-lag")  # only the refused library holds it: the error says so
    assert caught.value.code == "not-found" and "library 'bad' is refused" in caught.value.message
    assert two.open("pdf-forms").ref == "@wiki/pdf-forms"  # unambiguous among those served
    assert "error" in two.context().libraries[1]
    shutil.rmtree(bad)
    shutil.copytree(ops_dist, bad)  # rebuilt (a new manifest): served again, no restart
    os.utime(bad / "manifest.json", ns=(1, 1))
    assert two.refused() == [] and two.open("@bad/kafka-lag").library == "bad"


def test_a_library_that_is_no_dist_is_refused_and_all_refused_fails(
        dist: Path, tmp_path: Path) -> None:
    two = Library({"wiki": dist, "none": tmp_path})
    assert [e.code for e in two.refused()] == ["not-a-dist"]
    with pytest.raises(ReaderError) as caught:
        Library({"a": tmp_path, "b": tmp_path / "nope"})
    assert caught.value.code == "not-a-dist" and "no library can be served" in caught.value.message


def run(*args: str) -> tuple[int, str, str]:
    done = CliRunner().invoke(main, list(args))
    return done.exit_code, done.stdout, done.stderr


def test_the_cli_takes_several_dists_and_a_library(dist: Path, ops_dist: Path) -> None:
    dists = ("--dist", f"wiki={dist}", "--dist", f"ops={ops_dist}")
    code, out, _ = run("search", "drain a kubernetes node", *dists, "--json")
    assert code == 0
    results = json.loads(out)["results"]
    assert results[0]["ref"] == "@ops/node-drain" and results[0]["library"] == "ops"
    code, out, _ = run("search", "", *dists, "--library", "wiki", "--json")
    assert {hit["library"] for hit in json.loads(out)["results"]} == {"wiki"}
    code, out, _ = run("recommend", "fill a pdf form", *dists, "--library", "ops")
    assert code == 0 and "@ops/pdf-forms" in out and "@wiki/" not in out
    code, out, _ = run("read", "@ops/kafka-lag", *dists)
    assert code == 0 and "Consumer lag" in out
    code, out, _ = run("related", "@ops/node-drain", *dists)
    assert code == 0 and "@wiki/deploy-rollback  (shared tag: kubernetes" in out
    code, _, err = run("open", "pdf-forms", *dists)
    assert code == 2 and "@wiki/pdf-forms, @ops/pdf-forms" in err
    code, out, _ = run("context", *dists)
    assert code == 0 and "library ops: 3 skills" in out
    built = {line.split(": ")[0]: line.rsplit("built ", 1)[1]
             for line in out.splitlines() if line.startswith("library ")}
    assert set(built) == {"library wiki", "library ops"} and all(built.values())
    assert out.count("built ") == 2  # each library's own, no single build time above them
    code, out, _ = run("compose", "@ops/node-drain", *dists)
    assert code == 0 and out.startswith("@ops/node-drain declares no prerequisites")


def test_a_single_plain_dist_keeps_its_refs(dist: Path) -> None:
    code, out, _ = run("search", "fill a pdf form", "--dist", str(dist), "--json")
    first = json.loads(out)["results"][0]
    assert code == 0 and (first["ref"], first["library"]) == ("pdf-forms", "")
    code, _, err = run("search", "pdf", "--dist", str(dist), "--library", "ops")
    assert code == 2 and "without a library name" in err
    assert "--library) needs named libraries, --dist NAME=PATH" in err


@pytest.mark.parametrize("dists, message", [
    (["wiki=a", "plain"], "give each as NAME=PATH"),
    (["wiki=a", "wiki=b"], "names the library 'wiki' twice"),
    (["Wiki=a", "ops=b"], "give each as NAME=PATH")])
def test_the_cli_refuses_malformed_dists(dists: list[str], message: str) -> None:
    code, _, err = run("search", "pdf", *[a for d in dists for a in ("--dist", d)])
    assert code == 2 and message in err


def test_the_cli_refuses_a_damaged_library_and_serves_the_other(
        dist: Path, ops_dist: Path, tmp_path: Path) -> None:
    bad = Path(shutil.copytree(ops_dist, tmp_path / "bad"))
    (bad / "manifest.json").write_text("{", encoding="utf-8")
    dists = ("--dist", f"wiki={dist}", "--dist", f"bad={bad}")
    code, out, _ = run("search", "pdf form", *dists)
    assert code == 0 and "@wiki/pdf-forms" in out
    assert "(not searched: library 'bad' is refused" in out and "rebuild" in out
    code, _, err = run("open", "@bad/kafka-lag", *dists)
    assert code == 2 and "library 'bad' is refused" in err and "rebuild" in err


def test_libraries_merge_by_rank_when_a_library_used_meaning(
        dist: Path, tmp_path: Path) -> None:
    """A library without vectors scores lexically (about 5), one with vectors by fused
    ranks (about 0.2): recommend merges by each library's ranking, and says semantic only
    if every library used meaning; search, lexical in both, merges by their scores."""
    lexical = tmp_path / "ops"
    subprocess.run([sys.executable, "-c", WITHOUT_VECTORS, str(OPS), str(lexical)],
                   check=True)
    assert not (lexical / "vectors").exists()
    both = Library({"main": dist, "ops": lexical})
    recommended = both.recommend("fill a pdf form", limit=6)
    searched = both.search("fill a pdf form", limit=6)
    for merged in (recommended, searched):
        refs = [c.ref for c in merged.results]
        assert refs[:2] == ["@main/pdf-forms", "@ops/pdf-forms"], refs
        scores = [c.score for c in merged.results]
        assert scores == sorted(scores, reverse=True)
    assert searched.merged_by == "score" and searched.results[0].score > 1
    if not Library(dist).recommend("fill a pdf form").semantic:
        return  # without the semantic extra both rank by words
    assert recommended.merged_by == "rank"
    assert recommended.results[0].score == round(1 / 61, 6)
    alone = [f"@main/{c.id}" for c in Library(dist).recommend("fill a pdf form").results]
    merged_main = [c.ref for c in both.recommend("fill a pdf form").results
                   if c.library == "main"]
    assert merged_main == alone[:len(merged_main)]  # each library's own order is kept
    assert recommended.semantic is False and "ops" in recommended.note


def test_libraries_that_rank_by_words_merge_by_their_comparable_scores(
        tmp_path: Path) -> None:
    """Two strong matches in one library both come before a weak one in the other (a
    merge by rank would put each library's first hit first), with their own scores."""
    def skill(root: Path, name: str, description: str, body: str) -> None:
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n\n{body}\n",
            encoding="utf-8")
    skill(tmp_path / "a", "pdf-fill", "Fill PDF forms with pypdf. Use when a PDF form must "
          "be filled.", "Open the PDF form and fill its fields.")
    skill(tmp_path / "a", "pdf-flatten", "Flatten filled PDF forms into plain PDF pages. Use "
          "when a PDF form must be locked.", "Flatten the PDF form.")
    skill(tmp_path / "b", "meeting-notes", "Take meeting notes. Use when a meeting starts.",
          "Write the notes, then export them; a form of PDF is fine.")
    for name in ("a", "b"):
        build(tmp_path / name, tmp_path / f"dist-{name}")
    both = Library({"a": tmp_path / "dist-a", "b": tmp_path / "dist-b"})
    merged = both.search("pdf form")
    assert merged.merged_by == "score"
    refs = [c.ref for c in merged.results]
    assert sorted(refs[:2]) == ["@a/pdf-fill", "@a/pdf-flatten"], refs
    assert refs[2:] == ["@b/meeting-notes"], refs
    alone = {f"@{name}/{c.id}": c.score for name in ("a", "b")
             for c in Library(tmp_path / f"dist-{name}").search("pdf form").results}
    assert {c.ref: c.score for c in merged.results} == alone
    assert both.search("meeting-notes").results[0].ref == "@b/meeting-notes"  # exact id
    assert both.search("").merged_by == "id" and Library(tmp_path / "dist-a").search(
        "pdf form").merged_by == ""
