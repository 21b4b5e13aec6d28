"""Issue #23 item 5: when links, depends_on and tags give little, ``related`` proposes
skills alike by content (a more-like-this over the index) and says which terms they
share. On the real anthropics/skills corpus, which has no links or tags between them,
``related pdf`` proposes docx, xlsx and pptx; on both engines."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillsite.builder.pipeline import build
from skillsite.cli import main
from skillsite.index.tokens import tokenize
from skillsite.reader import Library

ANTHROPIC = Path("/work/corpora/anthropics-skills")
pytestmark = pytest.mark.skipif(not (ANTHROPIC / "skills").is_dir(),
                                reason="the anthropics/skills corpus is not fetched here")


@pytest.fixture(scope="module", params=["tantivy", "whoosh"])
def anthropic(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp(f"anthropic-{request.param}") / "dist"
    build(ANTHROPIC, out, backend=request.param)
    return out


def test_related_pdf_proposes_the_other_office_skills(anthropic: Path) -> None:
    related = Library(anthropic).related("pdf", limit=10)
    names = [n.name.split(":")[-1] for n in related.results]
    assert {"docx", "xlsx", "pptx"} <= set(names[:6]), names
    library = Library(anthropic)
    source = set(tokenize(library.read("pdf", max_chars=100_000).text))
    alike = [n for n in related.results if n.terms]
    assert alike and related.results[:len(alike)] == tuple(alike)
    for neighbour in related.results[len(alike):]:  # with vectors: neighbours by meaning
        assert [r.split(" (")[0] for r in neighbour.reasons] == ["similar meaning"]
    for neighbour in alike:
        content, *meaning = neighbour.reasons
        assert content.startswith("similar content: ")
        # Each word shown is a shared term as the skill writes it, not a bare stem.
        shown = content.removeprefix("similar content: ").split(", ")
        assert shown and all(set(tokenize(word)) & set(neighbour.terms) for word in shown), shown
        assert not {"tabl", "imag", "librari", "whenev"} & set(shown), shown
        assert all(reason.startswith("similar meaning (cosine ") for reason in meaning)
        assert 2 <= len(neighbour.terms) <= 5 and 0 < neighbour.score <= 1
        theirs = set(tokenize(library.read(neighbour.ref, max_chars=100_000).text))
        theirs |= set(tokenize(library.open(neighbour.ref).description))
        theirs |= set(tokenize(neighbour.name))
        mine = source | set(tokenize(library.open("pdf").description)) | {"document", "pdf"}
        for term in neighbour.terms:  # each named term is in both skills
            assert term in theirs and term in mine, (neighbour.name, term)
    scores = [n.score for n in alike]
    assert scores == sorted(scores, reverse=True)


def test_the_cli_says_which_terms(anthropic: Path) -> None:
    text = CliRunner().invoke(main, ["related", "pdf", "--dist", str(anthropic)]).stdout
    assert "document-skills:docx  (similar content: " in text
    shape = json.loads(CliRunner().invoke(main, ["related", "pdf", "--json", "--dist",
                                                 str(anthropic)]).stdout)
    assert all(n["terms"] or n["reasons"][0].startswith("similar meaning")
               for n in shape["results"])


def test_a_well_linked_skill_keeps_its_graph_neighbours_only(dist: Path) -> None:
    related = Library(dist).related("incident-triage")
    assert len(related.results) >= 3
    assert all(not n.terms and "similar content" not in " ".join(n.reasons)
               for n in related.results)


def test_few_graph_neighbours_are_topped_up_by_content(dist: Path) -> None:
    related = Library(dist).related("git-bisect", limit=5).results
    graph = [n for n in related if not n.terms]
    alike = [n for n in related if n.terms]
    assert alike and len(graph) < 3 and related[:len(graph)] == tuple(graph)
    assert len({n.name for n in related}) == len(related) and "git-bisect" not in {
        n.name for n in related}
