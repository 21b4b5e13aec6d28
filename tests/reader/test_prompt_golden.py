"""``prompt`` is byte-identical to skills-ref's to-prompt (xml) and to Flux's
build_skills_preamble (markdown)."""
from __future__ import annotations

import html
import shutil
from pathlib import Path

import pytest
from skills_ref.prompt import to_prompt

from skillsite.builder.pipeline import build
from skillsite.reader import Library

REPO = Path(__file__).parent.parent.parent

# Flux's build_skills_preamble, edurdias/flux flux/tasks/ai/skills.py (commit 02f4135e):
# the header lines below, then "- {name}: {description}" per skill, joined with "\n".
FLUX_HEADER = ("\n\n## Skills\n\nYou have skills available. To activate a skill, call the "
               "`use_skill` tool with the skill name. The skill returns detailed "
               "instructions for completing the task \u2014 follow them using your available "
               "tools.\n\nAvailable skills:")


@pytest.fixture(scope="module")
def corpus_and_dist(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("golden")
    corpus = shutil.copytree(REPO / "corpus", base / "corpus")
    (corpus / "skills/escape-me").mkdir()
    (corpus / "skills/escape-me/SKILL.md").write_text(
        "---\nname: escape-me\ndescription: \"  Use <b> & 'quotes' when \\\"testing\\\".  \"\n"
        "---\n# Escape\n", encoding="utf-8")
    build(corpus, base / "dist")
    return corpus, base / "dist"


def skill_dirs(corpus: Path) -> list[Path]:
    """The SKILL.md folders skills-ref can read (its strictyaml refuses flow mappings)."""
    from skills_ref.errors import SkillError
    from skills_ref.parser import read_properties

    readable = []
    for folder in sorted(p.parent for p in corpus.rglob("SKILL.md")):
        try:
            read_properties(folder)
        except SkillError:
            continue
        readable.append(folder)
    return readable


def test_xml_is_byte_identical_to_skills_ref(corpus_and_dist: tuple[Path, Path]) -> None:
    corpus, dist = corpus_and_dist
    library = Library(dist)
    folders = skill_dirs(corpus)
    assert len(folders) >= 8
    names = [_name_of(folder) for folder in folders]
    ours = library.prompt(names, "xml", location_root=str(corpus.resolve()))
    assert ours.text == to_prompt(folders)
    assert ours.omitted == ()


def test_xml_of_no_skills_matches_too(corpus_and_dist: tuple[Path, Path]) -> None:
    assert Library(corpus_and_dist[1]).prompt([], "xml").text == to_prompt([])


def test_markdown_is_flux_preamble(corpus_and_dist: tuple[Path, Path]) -> None:
    library = Library(corpus_and_dist[1])
    got = library.prompt(["pdf-forms", "escape-me"], "markdown").text
    pdf = library.open("pdf-forms").description
    escape = library.open("escape-me").description
    assert got == "\n".join([FLUX_HEADER, f"- pdf-forms: {pdf}", f"- escape-me: {escape}"])
    assert "\u2014" in got


def test_budget_keeps_whole_skills_and_names_the_rest(corpus_and_dist: tuple[Path, Path]
                                                      ) -> None:
    library = Library(corpus_and_dist[1])
    full = library.prompt(style="xml", max_chars=10**6)
    cut = library.prompt(style="xml", max_chars=len(full.text) // 2)
    assert cut.chars <= len(full.text) // 2 and cut.omitted
    assert set(cut.skills) | set(cut.omitted) == set(full.skills)
    for name in cut.skills:  # every description that is in is whole
        assert f"\n{html.escape(library.open(name).description.strip())}\n" in cut.text
    assert library.prompt().chars <= 8000


def _name_of(folder: Path) -> str:
    from skills_ref.parser import read_properties

    return read_properties(folder).name
