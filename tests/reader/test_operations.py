"""Every reader operation on the bundled corpus, from a dist/ whose corpus is deleted."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from skillsite.reader import Library, ReaderError
from skillsite.reader.passages import MARKER


def test_context_counts_formats_and_tags(library: Library) -> None:
    context = library.context()
    assert context.skills == 19
    assert context.formats == {"skill-json": 3, "skill-md": 9, "skill-toml": 3, "virtual": 4}
    assert {"tag": "incident", "count": 3} in context.to_dict()["tags"]
    assert context.artifact_version == "1.3" and context.index_backend == "tantivy"
    assert "search" in context.hint
    json.dumps(context.to_dict())


def test_search_returns_compact_candidates_never_a_body(library: Library) -> None:
    found = library.search("fill a pdf form", limit=3)
    assert found.results[0].name == "pdf-forms"
    top = found.results[0].to_dict()
    assert set(top) == {"ref", "id", "name", "title", "description", "format", "tags",
                        "score", "matched", "library", "via"}
    assert top["library"] == "" and top["ref"] == top["id"]  # one plain dist/: no prefix
    assert {"name", "title", "description"} <= set(top["matched"])
    assert "\n" not in top["description"] and len(top["description"]) <= 200
    body = library.read("pdf-forms", max_chars=100_000).text
    assert body[:500] not in json.dumps(found.to_dict())


def test_search_limit_is_clamped_and_empty_query_browses_a_to_z(library: Library) -> None:
    everything = library.search("", limit=500)
    names = [hit.name for hit in everything.results]
    assert everything.browse and len(names) == 19 and names == sorted(names)
    assert len(library.search("", limit=0).results) == 1


def test_search_filters(library: Library) -> None:
    assert [h.name for h in library.search("", tags=["incident"]).results] == [
        "deploy-rollback", "incident-triage", "postmortem-draft"]
    assert {h.format for h in library.search("", format="skill-toml").results} == {"skill-toml"}
    assert {h.name for h in library.search("disk", max_risk="low").results} == {"disk_usage"}
    assert library.search("pdf", compatibility="pypdf").results[0].name == "pdf-forms"
    with pytest.raises(ReaderError) as bad:
        library.search("x", format="docx")
    assert bad.value.code == "invalid-argument" and bad.value.exit_code == 2


def test_recommend_prefers_intents_and_applies_to(library: Library) -> None:
    found = library.recommend("roll back a bad deploy", environment="kubernetes")
    assert found.results[0].name == "deploy-rollback"
    assert library.recommend("the disk is full", capabilities=["shell"]).results


def test_open_gives_the_outline_without_the_body(library: Library) -> None:
    info = library.open("pdf-forms")
    assert info.path == "skills/pdf-forms/SKILL.md" and info.version == "1.2"
    assert info.headings[3].heading == "Step 3: Fill" and info.headings[3].chars == 572
    assert info.files == ("references/FORMS.md", "scripts/list_fields.py")
    assert info.links == info.files and info.warnings == ()
    assert "writer.update_page_form_field_values" not in json.dumps(info.to_dict())
    assert library.open("skill:pdf-forms").name == "pdf-forms"


def test_read_a_section_a_line_range_and_the_body(library: Library) -> None:
    section = library.read("pdf-forms", "Step 3: Fill")
    assert section.text.startswith("## Step 3: Fill") and not section.truncated
    assert library.read("pdf-forms", 3).text == section.text
    assert library.read("pdf-forms", "step 3: fill").text == section.text
    lines = library.read("pdf-forms", start_line=56, end_line=57)
    assert lines.text == "## Step 3: Fill\n" and (lines.start_line, lines.end_line) == (56, 57)
    body = library.read("pdf-forms", max_chars=100_000)
    assert body.chars == library.open("pdf-forms").chars and body.cursor is None


def test_a_cut_is_explicit_and_the_cursor_reads_on_to_the_end(library: Library) -> None:
    whole = library.read("pdf-forms", max_chars=100_000).text
    parts, cursor, seen = [], None, 0
    while True:
        passage = library.read("pdf-forms" if cursor is None else None, max_chars=700,
                               cursor=cursor)
        assert passage.chars <= 700
        seen += 1
        if not passage.truncated:
            parts.append(passage.text)
            break
        marker = MARKER.split("{")[0]
        assert marker in passage.text and passage.cursor
        parts.append(passage.text[:passage.text.index(marker)])
        cursor = passage.cursor
    assert seen > 3
    assert "".join(parts).replace("\n", "") == whole.replace("\n", "")


def test_unknown_and_ambiguous_sections_list_the_headings(library: Library, tmp_path: Path
                                                          ) -> None:
    with pytest.raises(ReaderError) as missing:
        library.read("pdf-forms", "Step 9")
    assert missing.value.code == "section-not-found" and "Step 3: Fill" in missing.value.message
    assert missing.value.details["headings"][0]["heading"] == "Filling PDF forms"


def test_related_gives_reasons(library: Library) -> None:
    related = library.related("incident-triage")
    names = {n.name: n.reasons for n in related.results}
    assert "depends on" in names["log-search"]
    assert any(r.startswith("shared tag:") for r in names["postmortem-draft"])
    assert len(library.related("incident-triage", limit=1).results) == 1


def test_compose_one_level_with_unresolved(library: Library) -> None:
    composed = library.compose("postmortem-draft")
    assert [c.name for c in composed.depends_on] == ["incident-triage"]
    assert composed.unresolved == () and not composed.truncated
    assert library.compose("pdf-forms").depends_on == ()


def test_files_front_matter_and_names_for_the_mcp_server(library: Library) -> None:
    assert library.skill_file("pdf-forms").startswith(b"---\nname: pdf-forms\n")
    assert library.skill_file("pdf-forms", "references/FORMS.md").startswith(b"#")
    listed = {f.path: f for f in library.skill_files("pdf-forms")}
    assert set(listed) == {"SKILL.md", "references/FORMS.md", "scripts/list_fields.py"}
    assert listed["SKILL.md"].sha256 == hashlib.sha256(library.skill_file("pdf-forms")).hexdigest()
    assert library.front_matter("pdf-forms").startswith("name: pdf-forms\n")
    view = library.skill_file("rnaseq-qc").decode()
    assert view.startswith('---\nname: "rnaseq-qc"\n') and "\n---\n\n" in view
    assert library.skill_file("rnaseq-qc", "rnaseq-qc.skill.toml").startswith(b"# oxo-flow")
    assert library.front_matter("disk_usage").lstrip().startswith("{")
    first = library.names(limit=10)
    second = library.names(first.cursor, limit=10)
    assert first.total == 19 and len(first.names) == 10 and len(second.names) == 9
    assert second.cursor is None and sorted(first.names + second.names) == list(
        first.names + second.names)
    with pytest.raises(ReaderError) as missing:
        library.skill_file("pdf-forms", "../../etc/passwd")
    assert missing.value.code == "not-found"


def test_every_result_serializes(library: Library) -> None:
    for result in (library.search("incident"), library.recommend("incident on call"),
                   library.open("incident-triage"), library.read("incident-triage"),
                   library.related("incident-triage"), library.compose("incident-triage"),
                   library.prompt(["incident-triage"]), library.names()):
        json.loads(json.dumps(result.to_dict()))


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Library:
    from skillsite.builder.pipeline import build

    root = tmp_path_factory.mktemp("small")
    skill = root / "corpus/skills/twice"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: twice\ndescription: Two parts with one heading. Use it in tests.\n---\n"
        "# Twice\n\n## Usage\n\nFirst usage.\n\n## Usage\n\nSecond usage.\n", encoding="utf-8")
    broken = root / "corpus/skills/broken"  # published with its error (no description)
    broken.mkdir(parents=True)
    (broken / "SKILL.md").write_text("---\nname: broken\n---\n# Broken\n", encoding="utf-8")
    (root / "corpus/wiki").mkdir()
    (root / "corpus/wiki/page.md").write_text(
        '---\ntype: skill\nname: page\nid: "skill:page"\ndescription: A page. Use it in '
        'tests.\ndepends_on: ["skill:twice", "skill:broken", "skill:missing"]\n---\n# Page\n',
        encoding="utf-8")
    (root / "corpus/wiki/by-intent.md").write_text(
        '---\ntype: skill\nname: by-intent\ndescription: Undo things. Use it in tests.\n'
        'intents: ["roll back a release"]\napplies_to: [kubernetes]\n---\n# Undo\n',
        encoding="utf-8")
    lexical = root / "corpus/skills/by-words"
    lexical.mkdir(parents=True)
    (lexical / "SKILL.md").write_text(
        "---\nname: by-words\ndescription: Roll back a release. Use it in tests.\n---\n"
        "# Roll back\n\n" + "Roll back a release on kubernetes.\n" * 5, encoding="utf-8")
    build(root / "corpus", root / "dist")
    return Library(root / "dist")


def test_an_ambiguous_section_asks_for_its_number(small: Library) -> None:
    with pytest.raises(ReaderError) as error:
        small.read("twice", "Usage")
    assert error.value.code == "ambiguous-section" and error.value.exit_code == 2
    assert "1 (line" in error.value.message and "2 (line" in error.value.message
    assert small.read("twice", 2).text == "## Usage\n\nSecond usage."


def test_compose_reports_unresolved_prerequisites(small: Library) -> None:
    composed = small.compose("page")
    assert [c.name for c in composed.depends_on] == ["twice", "broken"]
    assert composed.unresolved == ("missing",)


def test_recommend_ranks_intents_and_applies_to_above_bare_words(small: Library) -> None:
    assert small.search("roll back a release").results[0].name == "by-words"
    found = small.recommend("roll back a release", environment="kubernetes")
    assert [hit.name for hit in found.results[:2]] == ["by-intent", "by-words"]
