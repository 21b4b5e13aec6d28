"""The home page's parts without a browser: the corpus's name and description, and the
recently changed skills."""
from __future__ import annotations

import json
from pathlib import Path

from skillsite.site.about import about_corpus
from skillsite.site.data import SiteSkill, slug_of
from skillsite.site.index_pages import Corpus, Listed, listing_pages


def _skill(name: str, changed: int, in_git: bool) -> SiteSkill:
    return SiteSkill(name=name, slug=slug_of(name), description=f"About {name}.",
                     format="skill-md", dialect="agent-skills", path=f"{name}/SKILL.md",
                     sha256="0" * 64, tags=[], version=None, title=name, metadata={},
                     files=[], changed=changed, changed_in_git=in_git)


def test_name_from_the_configuration_then_marketplace_then_readme_then_folder(
        tmp_path: Path) -> None:
    corpus = tmp_path / "my-skills"
    corpus.mkdir()
    assert about_corpus(corpus).name == "my-skills"
    assert about_corpus(corpus, remote="git@github.com:acme/tools.git").name == "acme/tools"
    (corpus / "README.md").write_text(
        "[![badge](https://x/b.svg)](https://x)\n\n# Acme **skills**\n\n"
        "> a note\n\nSkills for [Acme](https://acme.test) engineers.\n")
    about = about_corpus(corpus)
    assert (about.name, about.description, about.source) == (
        "Acme skills", "Skills for Acme engineers.", "readme")
    (corpus / ".claude-plugin").mkdir()
    (corpus / ".claude-plugin" / "marketplace.json").write_text(json.dumps(
        {"name": "acme-market", "metadata": {"description": "Acme's plugins."}}))
    assert about_corpus(corpus).name == "acme-market"
    assert about_corpus(corpus).description == "Acme's plugins."
    chosen = about_corpus(corpus, site_name="Acme catalog", site_description="Ours.")
    assert (chosen.name, chosen.description) == ("Acme catalog", "Ours.")
    assert about_corpus(corpus, site_name="Skills catalog").name == "acme-market"


def test_a_readme_that_links_out_of_the_corpus_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "secret.md"
    outside.write_text("# Secret name\n\nSecret text.\n")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "README.md").symlink_to(outside)
    assert about_corpus(corpus).name == "corpus" and about_corpus(corpus).description == ""


def test_recently_changed_goes_by_the_last_commit(tmp_path: Path) -> None:
    skills = [_skill("old", 1_600_000_000, True), _skill("new", 1_700_000_000, True),
              _skill("undated", 1_800_000_000, False)]
    home = listing_pages([Listed(s, False) for s in skills], [], Corpus())["index.md"]
    recent = home.split("Recently changed", 1)[1]
    assert recent.index("skills/new/") < recent.index("skills/old/")
    assert "skills/undated/" not in recent


def test_no_recently_changed_when_every_file_has_the_same_time() -> None:
    """A fresh clone gives every file the clone's time: that says nothing."""
    skills = [_skill(name, 1_700_000_000, False) for name in ("a", "b")]
    home = listing_pages([Listed(s, False) for s in skills], [], Corpus())["index.md"]
    assert "Recently changed" not in home and "No tags" not in home and "Formats" not in home


def test_a_marketplace_folder_that_links_out_of_the_corpus_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "marketplace.json").write_text('{"name": "stolen", "description": "Secret."}')
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / ".claude-plugin").symlink_to(outside, target_is_directory=True)
    about = about_corpus(corpus)
    assert about.name == "corpus" and "Secret" not in about.description
