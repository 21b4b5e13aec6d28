"""Stamped skill pages are the pages mkdocs renders, byte for byte.

The same corpus (the fixture's skills, hostile ones included, and skills with unicode
titles, nested headings, a heading that collides with a section's anchor, no headings,
problems and supporting files) is built twice: with skill pages stamped into the shell,
and with every skill page rendered by mkdocs. Every file of the two sites must be the
same; the one normalisation is the order of the sitemap's entries (mkdocs lists pages in
its own file order, the stamped build lists skill pages by slug).
"""
from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

import pytest

from skillsite.builder.pipeline import BuildResult, build
from skillsite.site import stage, stamp
from skillsite.site.mkdocs_run import default_config

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "site" / "corpus"

EXTRA = {
    "skills/unicode-title/SKILL.md": (
        "---\nname: unicode-title\ndescription: Ünïcödé — 日本語 & <b>bold</b> \"quoted\" "
        "text. Use when a title is not ASCII.\n---\n\n# Ünïcödé — 日本語 title\n\nIntro.\n\n"
        "## Schritt 1 — Überblick\n\nText.\n\n### Sub step ü\n\nMore.\n\n#### Deeper & <x>\n\n"
        "Deep.\n\n## Install\n\nA heading that is also a section of the page.\n\n"
        "## Install\n\nTwice.\n"),
    "skills/install/SKILL.md": (
        "---\nname: install\ndescription: A skill whose name is a section's anchor. Use when "
        "testing anchors.\n---\n\n# Install\n\nIts title is its name.\n\n## Details\n\nx\n"),
    "skills/no-headings/SKILL.md": (
        "---\nname: no-headings\ndescription: Only text, no heading at all. Use when "
        "testing.\n---\n\nJust a paragraph with `code` and a [link](ref.md).\n"),
    "skills/no-headings/ref.md": "# Reference\n\nA supporting file.\n",
    "skills/odd-order/SKILL.md": (
        "---\nname: odd-order\ndescription: Headings out of order, and one that is the "
        "title again. Use when testing.\n---\n\n#### Fourth first\n\nx\n\n## Second\n\n"
        "y\n\n### Third\n\n##### Fifth\n\nz\n\n## odd-order\n\nThe title again.\n\n"
        "## Second\n\nTwice.\n"),
    "skills/BadName/SKILL.md": (
        "---\nname: BadName\ndescription: x\nowner: someone\n---\n\n# Bad\n\nBody.\n"),
}


def _corpus(tmp: Path) -> Path:
    corpus = tmp / "corpus"
    shutil.copytree(FIXTURE, corpus)
    for path, text in EXTRA.items():
        (corpus / path).parent.mkdir(parents=True, exist_ok=True)
        (corpus / path).write_text(text, encoding="utf-8")
    return corpus


def _config(tmp: Path) -> Path:
    """The packaged configuration with a site_url (canonical URLs, og:url, sitemap)."""
    config = tmp / "mkdocs.yml"
    config.write_text(default_config().read_text(encoding="utf-8")
                      + "site_url: https://skills.example/catalog/\n", encoding="utf-8")
    return config


def _build(corpus: Path, out: Path, config: Path, *, stamped: bool,
           monkeypatch: pytest.MonkeyPatch) -> BuildResult:
    monkeypatch.setattr(stage, "STAMP", stamped)
    return build(corpus, out, jobs=1, site=True, mkdocs_config=config)


def _files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*"))
            if p.is_file() and not p.relative_to(site).as_posix().startswith("pagefind/")}


def _sitemap_entries(data: bytes) -> list[str]:
    return sorted(re.findall(r"<url>.*?</url>", data.decode("utf-8"), re.DOTALL))


@pytest.mark.parametrize("site_url", [True, False])
def test_stamped_pages_are_the_pages_mkdocs_renders(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, site_url: bool) -> None:
    corpus = _corpus(tmp_path)
    config = _config(tmp_path) if site_url else default_config()
    stamped = _build(corpus, tmp_path / "stamped", config, stamped=True,
                     monkeypatch=monkeypatch)
    assert not [w for w in stamped.site.warnings if "one by one" in w]   # no fallback
    rendered = _build(corpus, tmp_path / "mkdocs", config, stamped=False,
                      monkeypatch=monkeypatch)
    ours, theirs = _files(stamped.dist / "site"), _files(rendered.dist / "site")
    assert sorted(ours) == sorted(theirs)
    skill_pages = [p for p in ours if re.fullmatch(r"skills/[^/]+/index\.html", p)]
    assert len(skill_pages) == stamped.site.pages >= 12
    for path in sorted(ours):
        if path.startswith("sitemap.xml"):
            continue
        assert ours[path] == theirs[path], path
    entries = _sitemap_entries(ours["sitemap.xml"])
    assert entries == _sitemap_entries(theirs["sitemap.xml"])
    assert (len(entries) > len(skill_pages)) == site_url
    page = ours["skills/unicode-title/index.html"].decode("utf-8")
    assert 'href="#install_1"' in page and 'id="sub-step-u"' in page
    assert '<link rel="canonical" href="https://skills.example/catalog/skills/' \
        'unicode-title/">' in page or not site_url


def test_a_stamp_that_differs_from_mkdocs_falls_back_to_mkdocs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The build checks sample pages against mkdocs and never publishes a wrong stamp."""
    real = stamp.Stamper.stamp

    def wrong(self: stamp.Stamper, text: str, slug: str) -> bytes:
        return real(self, text, slug).replace(b"</body>", b"<!-- off --></body>")

    monkeypatch.setattr(stamp.Stamper, "stamp", wrong)
    corpus = _corpus(tmp_path)
    result = _build(corpus, tmp_path / "dist", default_config(), stamped=True,
                    monkeypatch=monkeypatch)
    assert [w for w in result.site.warnings if "one by one" in w]
    pages = list((result.dist / "site" / "skills").glob("*/index.html"))
    assert pages and not [p for p in pages if b"<!-- off -->" in p.read_bytes()]


def test_verify_names_the_pages_that_differ() -> None:
    class Fixed:
        def stamp(self, text: str, slug: str) -> bytes:
            if slug == "broken":
                raise stamp.ShellError("no title")
            return text.encode()

    samples = {"same": ("a", b"a"), "other": ("a", b"b"), "broken": ("a", b"a")}
    assert stamp.verify(Fixed(), samples) == ["other", "broken"]  # type: ignore[arg-type]


def test_the_shell_slug_is_no_skills_slug() -> None:
    from skillsite.site.data import slug_of

    assert all(slug_of(name) != stamp.SHELL_SLUG for name in
               ("skillsite-_shell_", "skillsite-shell", "skillsite_shell_", stamp.SHELL_SLUG))
    assert hashlib.sha256(stamp.shell_markdown().encode()).hexdigest()


def test_side_work_starts_only_once_the_stamping_workers_are_forked() -> None:
    """A fork while another thread holds SQLite's allocator mutex leaves the child waiting
    on it for ever (a clean 100k build hung so): the discovery thread, which reads the
    content store, is started by the worker pool once every worker is forked."""
    import multiprocessing

    from skillsite.site import pages

    seen: list[int] = []
    before = len(multiprocessing.active_children())
    with pages._Workers(("", "", {}, {}), 2, pages.PARALLEL_FROM, started=lambda: seen.append(
            len(multiprocessing.active_children()) - before)):
        assert seen == [2]
    seen.clear()
    with pages._Workers(("", "", {}, {}), 2, 1, started=lambda: seen.append(0)):
        assert seen == [0]  # in-process: nothing forks, it starts at once
