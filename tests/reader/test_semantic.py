"""Hybrid recommend, search --semantic and related by meaning, on the bundled corpus built
with vectors (numpy is in the test extras; without it these tests skip)."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

from skillsite.reader import Library  # noqa: E402
from skillsite.reader.errors import ReaderError  # noqa: E402
from skillsite.reader.semantic import fuse  # noqa: E402
from skillsite.semantic.model import load_model  # noqa: E402
from skillsite.store.vectors import (  # noqa: E402
    INDEX,
    ROWS,
    SHORTLIST,
    Vectors,
    nearest,
    quantized,
    read_vectors,
    write_vectors,
)

REPO = Path(__file__).parent.parent.parent
#: A task whose words are not the skill's: lexical ranking misses it, meaning finds it.
PARAPHRASE = "summarize what shipped since the last tag"


def test_vectors_round_trip_and_find_themselves(tmp_path: Path) -> None:
    model = load_model()
    texts = ["fill a pdf form", "roll back a kubernetes deploy", "write a changelog",
             "find the commit that broke the build"]
    unit = model.embed(texts)
    rows, scales, signs = quantized(unit)
    write_vectors(tmp_path, Vectors(model.version, ["a", "b", "c", "d"], rows, scales, signs))
    # The build hands the files to a writing thread: the same bytes.
    from skillsite.builder.writer import BackgroundWriter
    with BackgroundWriter(tmp_path / "threaded") as writer:
        write_vectors(tmp_path / "threaded",
                      Vectors(model.version, ["a", "b", "c", "d"], rows, scales, signs),
                      writer.write)
        written = writer.checksums()
    assert sorted(written) == sorted(p.relative_to(tmp_path).as_posix()
                                     for p in (tmp_path / "vectors").iterdir())
    for name in written:
        assert (tmp_path / "threaded" / name).read_bytes() == (tmp_path / name).read_bytes()
    back = read_vectors(tmp_path)
    assert back.model == model.version and back.ids == ["a", "b", "c", "d"]
    assert np.array_equal(back.rows, rows) and np.array_equal(back.signs, signs)
    restored = back.rows.astype(np.float32) * back.scales[:, None]
    assert np.allclose(restored, unit, atol=0.01)
    for name, vector in zip(back.ids, unit, strict=True):
        best = nearest(back, vector, 2)
        assert best[0].id == name and best[0].cosine == pytest.approx(1.0, abs=0.02)
        assert best[1].cosine < best[0].cosine


def test_nearest_gives_as_many_as_asked_beyond_the_shortlist() -> None:
    """A filtered search asks for FILTERED_CANDIDATES (1000) neighbours to filter; the
    Hamming shortlist must not cut them to SHORTLIST (512)."""
    count = SHORTLIST * 3
    unit = np.random.default_rng(7).standard_normal((count, 64)).astype(np.float32)
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    rows, scales, signs = quantized(unit)
    vectors = Vectors("test", [f"s{i}" for i in range(count)], rows, scales, signs)
    many = nearest(vectors, unit[0], 1000)
    assert len(many) == 1000 and len({n.id for n in many}) == 1000
    assert many[0].id == "s0"
    cosines = [n.cosine for n in many]
    assert cosines == sorted(cosines, reverse=True)
    assert len(nearest(vectors, unit[0], 10)) == 10


def test_the_model_embeds_meaning_not_only_words() -> None:
    model = load_model()
    deck, slides, invoice = model.embed(["create a slide deck", "presentation with slides",
                                         "reconcile the accounting ledger"])
    assert float(deck @ slides) > float(deck @ invoice) + 0.1
    assert not model.embed(["\u2603\u2603"]).any()  # nothing known: a zero vector


SKILLS = {"slide-maker": "Create presentations and slide decks for talks and pitches.",
          "ledger-check": "Reconcile invoices against the accounting ledger every month.",
          "rollback": "Roll back a Kubernetes deployment that went bad.",
          "flaky-tests": "Find unit tests that fail intermittently in CI."}
#: Tasks that share no word with their skill: words alone find nothing.
TASKS = {"put together a keynote for the all-hands meeting": "slide-maker",
         "my books do not balance with the bank statement": "ledger-check"}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Library:
    from skillsite.builder.pipeline import build

    base = tmp_path_factory.mktemp("semantic-tiny")
    for name, description in SKILLS.items():
        folder = base / "corpus" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n"
                                         f"---\n\n# {name}\n\n{description}\n")
    build(base / "corpus", base / "dist")
    return Library(base / "dist", max_skills=None, max_chars=None)


@pytest.mark.parametrize("task", sorted(TASKS))
def test_recommend_finds_by_meaning_and_says_which_half(tiny: Library, task: str) -> None:
    assert not tiny.recommend(task, semantic=False).results  # no shared word
    hybrid = tiny.recommend(task, limit=2)
    assert hybrid.semantic and not hybrid.note
    assert hybrid.results[0].name == TASKS[task] and hybrid.results[0].via == ("semantic",)
    shape = hybrid.to_dict()
    assert shape["semantic"] is True and shape["results"][0]["via"] == ["semantic"]


def test_search_stays_lexical_unless_asked(tiny: Library) -> None:
    task = sorted(TASKS)[0]
    assert not tiny.search(task).results
    asked = tiny.search(task, semantic=True, limit=1)
    assert asked.semantic and asked.results[0].name == TASKS[task]


def test_recommend_on_the_corpus_says_which_half(library: Library) -> None:
    hybrid = library.recommend("roll back a bad deploy", limit=5)
    assert hybrid.semantic and hybrid.results[0].name == "deploy-rollback"
    assert all(c.via and set(c.via) <= {"lexical", "semantic"} for c in hybrid.results)


def test_an_exact_name_still_wins(library: Library) -> None:
    for call in (library.recommend, lambda q: library.search(q, semantic=True)):
        found = call("git-bisect")
        assert found.results[0].name == "git-bisect" and "lexical" in found.results[0].via


def test_search_semantic_keeps_filters(library: Library) -> None:
    found = library.search(PARAPHRASE, semantic=True, format="skill-json", limit=10)
    assert found.results and all(c.format == "skill-json" for c in found.results)


def test_fusion_ranks_agreement_first_and_is_deterministic() -> None:
    fused = fuse(["a", "b", "c"], ["b", "d"])  # both halves lift b above a
    assert [f.name for f in fused][:2] == ["b", "a"] and fused[0].via == ("lexical", "semantic")
    assert {f.name: f.via for f in fused}["d"] == ("semantic",)
    assert fuse(["x", "y"], ["y", "x"]) == fuse(["x", "y"], ["y", "x"])


def test_related_adds_neighbours_by_meaning_with_the_reason(library: Library) -> None:
    related = library.related("journal_vacuum", limit=6).results
    reasons = [r for n in related for r in n.reasons if r.startswith("similar meaning")]
    assert reasons and all("cosine 0." in r for r in reasons)
    assert "journal_vacuum" not in {n.name for n in related}


def test_a_damaged_vector_file_is_refused_with_rebuild(dist: Path, tmp_path: Path) -> None:
    copy = Path(shutil.copytree(dist, tmp_path / "dist"))
    rows = copy / ROWS
    data = bytearray(rows.read_bytes())
    data[-1] ^= 0xFF  # same size, other bytes: the manifest's sha256 catches it
    rows.write_bytes(bytes(data))
    with pytest.raises(ReaderError) as caught:
        Library(copy).recommend(PARAPHRASE)
    assert caught.value.code == "damaged-dist" and "rebuild" in caught.value.message
    assert ROWS in caught.value.message


def test_an_inconsistent_vector_index_is_refused_by_the_cli(dist: Path, tmp_path: Path) -> None:
    copy = Path(shutil.copytree(dist, tmp_path / "dist"))
    index = json.loads((copy / INDEX).read_text())
    index["ids"] = index["ids"][:-1]  # one row without an id; the size check alone passes
    text = json.dumps(index, separators=(",", ":"))
    (copy / INDEX).write_text(text + " " * ((copy / INDEX).stat().st_size - len(text)))
    done = subprocess.run([sys.executable, "-m", "skillsite", "recommend", PARAPHRASE,
                           "--dist", str(copy)], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "vectors/index.json" in done.stderr and "rebuild" in done.stderr



def test_numpy_and_the_model_load_only_for_a_semantic_query(dist: Path) -> None:
    code = ("import sys; from skillsite.reader import Library; lib = Library(sys.argv[1]); "
            "lib.search('deploy'); lib.recommend('deploy', semantic=False); "
            "before = {'numpy', 'skillsite.semantic.model'} & set(sys.modules); "
            "lib.recommend('deploy'); print(sorted(before), 'numpy' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code, str(dist)], capture_output=True,
                          text=True, cwd=REPO)
    assert done.stdout.split() == ["[]", "True"], done.stdout + done.stderr
