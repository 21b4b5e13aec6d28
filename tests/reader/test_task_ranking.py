"""Ranking that understands tasks (#23 item 4), on real dists built with both engines.

- whole words meet by their Snowball stem, never by a raw prefix: "create" is not
  "creator", but "creating" and "creates" are "create";
- only a word still being typed (the last of a short query, no space after it) matches the
  longer words it begins;
- a word most names share earns nothing there;
- ``recommend`` reads a skill's "use when" and "not for" text, so it answers a task
  differently from ``search``.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from skillsite.builder.pipeline import build
from skillsite.index.clauses import clauses
from skillsite.index.fields import specificity
from skillsite.index.tokens import partial_term, stem, tokenize
from skillsite.reader import Library

ENGINES = ("tantivy", "whoosh")

SKILLS = {
    "slack-gif-creator": ("Animated GIFs for Slack. Use when someone asks for a looping GIF "
                          "to post in a Slack channel.", "Keep GIFs under 2 MB."),
    "pptx": ("Slide decks and presentations (.pptx). Use when the user wants to create a "
             "slide deck, a pitch deck or speaker notes.", "Build slides with python-pptx."),
    "sheet-charts": ("Spreadsheet tables and formulas. Do not use for drawing charts or "
                     "plots, use plot-maker.",
                     "A chart of a table. Chart axes. Chart colours. Chart legends."),
    "plot-maker": ("Draw plots. Use when the user wants a chart of some numbers.",
                   "Plot lines and bars."),
    "log-reader": ("Read service logs and find errors.",
                   "Use grep. A chart of errors per hour helps."),
}


def _skill(name: str, description: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n\n{body}\n"


@pytest.fixture(scope="module")
def libraries(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Library]:
    root = tmp_path_factory.mktemp("tasks")
    corpus = root / "corpus"
    for name, (description, body) in SKILLS.items():
        (corpus / name).mkdir(parents=True)
        (corpus / name / "SKILL.md").write_text(_skill(name, description, body))
    found = {}
    for engine in ENGINES:
        build(corpus, root / engine, backend=engine)
        found[engine] = Library(root / engine)
    return found


def _ids(answer: object) -> list[str]:
    return [hit.id for hit in answer.results]  # type: ignore[attr-defined]


def test_inflections_meet_by_their_stem_and_a_longer_word_does_not() -> None:
    assert {stem(word) for word in ("create", "creating", "created", "creates")} == {"creat"}
    assert stem("creator") != stem("create")
    assert tokenize("slide decks, PDFs and LLMs") == ["slide", "deck", "pdf", "llm"]
    assert tokenize("Help me with my deck") == ["help", "deck"]  # function words go


def test_only_the_last_word_of_a_short_query_without_a_space_is_being_typed() -> None:
    assert partial_term("slack gif creat") == "creat"
    assert partial_term("slack gif creat ") is None              # a space: a whole word
    assert partial_term("create a slide deck for the quarterly review") is None  # a task
    assert partial_term("decks") is None           # its stem is not what was typed: whole
    assert partial_term("") is None and partial_term("the") is None


@pytest.mark.parametrize("engine", ENGINES)
def test_create_a_slide_deck_is_not_the_gif_creator(libraries: dict[str, Library],
                                                     engine: str) -> None:
    library = libraries[engine]
    for operation in (library.search, library.recommend):
        found = _ids(operation("create a slide deck"))
        assert found[0] == "pptx", (engine, found)
        assert "slack-gif-creator" not in found  # "create" never reaches "creator"
    assert _ids(library.search("creating slides"))[0] == "pptx"  # other forms, same stems


@pytest.mark.parametrize("engine", ENGINES)
def test_a_word_being_typed_matches_the_names_it_begins(libraries: dict[str, Library],
                                                        engine: str) -> None:
    library = libraries[engine]
    assert _ids(library.search("gif creat"))[0] == "slack-gif-creator"
    typed = library.search("creat").results
    assert typed and typed[0].id == "slack-gif-creator" and "name" in typed[0].matched
    # The same letters as a whole word are the stem of "create": pptx says it, the gif
    # creator does not.
    assert _ids(library.search("creat ")) == ["pptx"]


@pytest.mark.parametrize("engine", ENGINES)
def test_recommend_follows_use_when_and_not_for(libraries: dict[str, Library],
                                                 engine: str) -> None:
    library = libraries[engine]
    task = "draw a chart of these numbers"
    searched = _ids(library.search(task))
    recommended = _ids(library.recommend(task))
    # search counts "chart" in sheet-charts' name and body; recommend reads that sheet-charts
    # is not for drawing charts, and that plot-maker is used for exactly this.
    assert searched.index("sheet-charts") < searched.index("plot-maker"), searched
    assert recommended[0] == "plot-maker", recommended
    assert recommended.index("sheet-charts") > recommended.index("plot-maker")
    assert recommended != searched


def test_use_when_and_not_for_text() -> None:
    found = clauses("Word documents (.docx). Use this skill whenever the user wants a "
                    "report. Do NOT use for PDFs or spreadsheets.",
                    "# Docx\n\n## When NOT to Use\n\nSlides.\n\n## When to Use\n\nMemos.\n")
    assert found.use_when.startswith("Use this skill whenever the user wants a report")
    assert "Memos" in found.use_when and "PDFs" not in found.use_when
    assert found.not_for.startswith("Do NOT use for PDFs or spreadsheets")
    assert "Slides" in found.not_for
    # Without a marker, the description is what the skill is for.
    assert clauses("Draw plots; not for tables.").use_when == "Draw plots"


def test_a_word_most_names_share_earns_nothing_there() -> None:
    assert specificity(1, 800) == 1.0
    assert specificity(80, 800) == pytest.approx(0.8)
    assert specificity(400, 800) == 0.0 and specificity(768, 864) == 0.0


def test_languages_named_with_a_symbol_are_words_of_their_own() -> None:
    assert tokenize("Fuzz a C++17 program; port C# and F# code") == [
        "fuzz", "cpp", "17", "program", "port", "csharp", "fsharp", "code"]
    assert tokenize("objective-c++, abc++ and plain C") == ["object", "cpp", "abc", "plain", "c"]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_cpp_task_finds_the_cpp_skill_not_the_c_one(tmp_path: Path, engine: str) -> None:
    corpus = tmp_path / "corpus"
    skills = {"c-fuzzing": ("Fuzz C programs with AFL. Use when a C library needs fuzzing.",
                            "Build the C code with afl-clang."),
              "cpp-fuzzing": ("Fuzz C++ programs with libFuzzer. Use when a C++ library "
                              "needs fuzzing.", "Build the C++ code with clang++."),
              "csharp-tests": ("Unit tests for C# projects.", "Run dotnet test.")}
    for name, (description, body) in skills.items():
        (corpus / name).mkdir(parents=True)
        (corpus / name / "SKILL.md").write_text(_skill(name, description, body))
    build(corpus, tmp_path / "dist", backend=engine)
    library = Library(tmp_path / "dist")
    assert _ids(library.search("fuzz a C++ library")) == ["cpp-fuzzing", "c-fuzzing"]
    assert _ids(library.search("fuzz a C library"))[0] == "c-fuzzing"
    assert _ids(library.search("C# tests")) == ["csharp-tests"]
