"""Search quality on both engines: exact names first, prefixes, typos, and query strings
that would break a query parser."""
from __future__ import annotations

from pathlib import Path

import pytest

from skillsite.builder.pipeline import build
from skillsite.index import BACKENDS
from skillsite.reader import Library


def top(library: Library, query: str, n: int = 3) -> list[str]:
    return [hit.name for hit in library.search(query, limit=n).results]


@pytest.mark.parametrize("name", ["pdf-forms", "incident-triage", "disk_usage", "rnaseq-qc",
                                  "certcheck", "git-bisect"])
def test_an_exact_name_comes_first(engine_library: Library, name: str) -> None:
    assert top(engine_library, name)[0] == name
    assert top(engine_library, f"skill:{name}")[0] == name
    assert top(engine_library, name.upper())[0] == name


def test_an_exact_name_wins_over_a_better_lexical_match(engine_library: Library) -> None:
    # "logs" is a tag and a word all over the corpus; "log-search" is only one skill.
    assert top(engine_library, "log-search")[0] == "log-search"


@pytest.mark.parametrize("query, expected", [
    ("terra", "terraform-plan-review"), ("flak", "flaky-test-hunter"),
    ("changel", "changelog-writer"), ("postmort", "postmortem-draft"),
    ("kube", "deploy-rollback"), ("bisec", "git-bisect")])
def test_prefixes_find_names_titles_and_tags(engine_library: Library, query: str,
                                             expected: str) -> None:
    assert expected in top(engine_library, query)


@pytest.mark.parametrize("query, expected", [
    ("terrafrom plan", "terraform-plan-review"), ("flakey test", "flaky-test-hunter"),
    ("changelgo writer", "changelog-writer"), ("postmortme", "postmortem-draft"),
    ("certchek", "certcheck"), ("bisetc", "git-bisect")])
def test_one_typo_still_finds_the_skill(engine_library: Library, query: str,
                                        expected: str) -> None:
    assert top(engine_library, query)[0] == expected


@pytest.mark.parametrize("query", ["it's", "https://x", '"unbalanced', "-pdf", "*", "c++",
                                   "pdf AND", "NOT pdf", "name:pdf", "(pdf", "pdf^2", "pdf~"])
def test_parser_syntax_is_just_text_on_both_engines(built: dict[str, Path], query: str) -> None:
    answers = {engine: [h.name for h in Library(dist).search(query).results]
               for engine, dist in built.items()}
    assert answers["tantivy"] == answers["whoosh"]
    if "pdf" in query:
        assert answers["tantivy"][0] == "pdf-forms"
    if query == "*":
        assert answers["tantivy"] == []  # a wildcard is not a term: it matches nothing


def test_the_engines_agree_on_candidates_for_prefix_and_fuzzy_terms(built: dict[str, Path]
                                                                    ) -> None:
    for query in ("terra", "kuberentes", "postmortme", "flak"):
        found = []
        for engine, dist in built.items():
            with BACKENDS[engine].open(dist / "index") as searcher:
                found.append(set(searcher.candidates(query)))
        assert found[0] == found[1], query


def test_engines_rank_alike(built: dict[str, Path]) -> None:
    for query in ("fill pdf form", "roll back a deploy", "disk full", "certificate expiry",
                  "single cell", "review a pull request"):
        ranked = [top(Library(dist), query, 5) for dist in built.values()]
        assert ranked[0] == ranked[1], query


def _skill(name: str, description: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nSee the notes.\n"


@pytest.fixture(scope="module")
def near_words(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """engine -> a dist/ of three skills whose names are a word, a longer word that begins
    with it, and a word one typo away from it."""
    found = {}
    for engine in BACKENDS:
        base = tmp_path_factory.mktemp(f"near-{engine}")
        for name, description in (("test-runner", "Runs a suite."),
                                  ("testing-guide", "How to write one."),
                                  ("best-practices", "Conventions for a repository.")):
            folder = base / "corpus" / name
            folder.mkdir(parents=True)
            (folder / "SKILL.md").write_text(_skill(name, description))
        build(base / "corpus", base / "dist", backend=engine)
        found[engine] = base / "dist"
    return found


@pytest.mark.parametrize("query, expected", [
    ("test", {"test-runner", "testing-guide"}),  # a word of the names: no typo matches
    ("tset", {"test-runner", "testing-guide"}),  # no such word: a typo of "test", "testing"
    ("bset", {"best-practices"}),
    ("testin", {"test-runner", "testing-guide"})])  # past the stem "test" of both
def test_only_a_word_no_name_title_or_tag_holds_gets_typo_matches(near_words: dict[str, Path], query: str,
                                                      expected: set[str]) -> None:
    for engine, dist in near_words.items():
        with BACKENDS[engine].open(dist / "index") as searcher:
            assert set(searcher.candidates(query)) == expected, engine


@pytest.mark.parametrize("query, expected", [
    ("test", ["test-runner", "testing-guide"]), ("tset", ["test-runner", "testing-guide"]),
    ("bset", ["best-practices"])])
def test_search_ranks_typos_only_for_unknown_words(near_words: dict[str, Path], query: str,
                                                  expected: list[str]) -> None:
    for dist in near_words.values():
        found = Library(dist).search(query).results
        assert [hit.name for hit in found] == expected
        assert all("name" in hit.matched for hit in found)
