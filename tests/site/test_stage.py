"""The site stage of a build: incremental rendering, atomic failure, --no-site."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from skillsite.cli import main
from skillsite.site.mkdocs_run import default_config
from skillsite.site.search import bundle_of

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "site" / "corpus"


def _hashes(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _edit(corpus: Path) -> None:
    skill = corpus / "skills" / "alpha-guide" / "SKILL.md"
    skill.write_text(skill.read_text().replace("Bump the version.", "Bump the version twice."))


def test_one_skill_change_renders_one_page(tmp_path: Path, make_build: Callable[..., Any]) -> None:
    first = make_build(tmp_path)
    assert first.site.rendered == first.site.pages == 8
    site = first.dist / "site"
    snapshot = tmp_path / "snapshot"
    shutil.copytree(site, snapshot, copy_function=os.link)    # hard links to the old files
    before = _hashes(snapshot)
    _edit(tmp_path / "corpus")
    second = make_build(tmp_path)
    assert second.site.incremental and second.site.rendered == 1
    assert "Bump the version twice." in (site / "skills/alpha-guide/index.html").read_text()
    assert _hashes(snapshot) == before          # nothing was written through a hard link
    after = _hashes(site)
    unchanged = [p for p in before if p.startswith("skills/beta-check/")]
    assert unchanged and all(after[p] == before[p] for p in unchanged)


def test_search_is_indexed_again_only_where_a_stub_changed(
        tmp_path: Path, make_build: Callable[..., Any]) -> None:
    """The index is in bundles by skill; an edit re-indexes only the edited skill's."""
    def entry_inodes(result: Any) -> dict[str, int]:
        return {bundle.name: (bundle / "pagefind-entry.json").stat().st_ino
                for bundle in (result.dist / "site" / "pagefind").iterdir()}

    first = entry_inodes(make_build(tmp_path))
    assert len(first) > 2
    _edit(tmp_path / "corpus")      # the body only: name, description, headings as they were
    assert entry_inodes(make_build(tmp_path)) == first      # the previous bundles, linked
    skill = tmp_path / "corpus" / "skills" / "alpha-guide" / "SKILL.md"
    skill.write_text(skill.read_text().replace("description: ", "description: Renamed. ", 1))
    again = entry_inodes(make_build(tmp_path))
    assert again.keys() == first.keys()
    assert [b for b in first if again[b] != first[b]] == [bundle_of("alpha-guide")]


def test_search_names_every_bundle(tmp_path: Path, make_build: Callable[..., Any]) -> None:
    """The search merges exactly the bundles built (each one a whole Pagefind index)."""
    site = make_build(tmp_path).dist / "site"
    named = json.loads((site / "assets/skillsite/search.json").read_text())["bundles"]
    assert named == sorted((p.name for p in (site / "pagefind").iterdir()), key=int)
    assert all((site / "pagefind" / b / "pagefind-entry.json").is_file() for b in named)
    assert (site / "pagefind" / named[0] / "pagefind-ui.js").is_file()


def test_incremental_equals_clean(tmp_path: Path, make_build: Callable[..., Any]) -> None:
    make_build(tmp_path)
    _edit(tmp_path / "corpus")
    incremental = make_build(tmp_path).dist / "site"
    clean = make_build(tmp_path, "clean").dist / "site"
    ours, theirs = _hashes(incremental), _hashes(clean)
    assert ours.keys() == theirs.keys()
    differ = [p for p in ours if ours[p] != theirs[p] and not p.startswith("sitemap")]
    assert differ == []


def _edit_description(corpus: Path) -> None:
    page = corpus / "wiki" / "gamma-deploy.md"
    page.write_text(page.read_text().replace("description: Deploy", "description: Quokka. Deploy"))


def test_description_edit_shows_everywhere_as_in_a_clean_build(
        tmp_path: Path, make_build: Callable[..., Any]) -> None:
    """A description is on its page, the A-Z listing, its tag and format pages and in
    the search: an incremental build renders one skill page and only the listing pages
    that changed (through a view, not the whole tree) and equals a clean build."""
    make_build(tmp_path)
    _edit_description(tmp_path / "corpus")
    result = make_build(tmp_path)
    assert result.site.incremental and result.site.rendered == 1
    assert any(phase.startswith(("mkdocs (changed pages)", "mkdocs (other pages)"))
               for phase in result.site.timings)
    site = result.dist / "site"
    for page in ("skills/gamma-deploy", "skills", "tags/release", "tags/deploy"):
        assert "Quokka. Deploy" in (site / page / "index.html").read_text(), page
    assert "Quokka" in (result.dist / "site-cache" / "stubs.json").read_text()
    clean = make_build(tmp_path, "clean").dist / "site"
    ours, theirs = _hashes(site), _hashes(clean)
    assert ours.keys() == theirs.keys()
    assert [p for p in ours if ours[p] != theirs[p] and not p.startswith("sitemap")] == []
    searched = {p.split("/")[1] for p in ours if p.startswith("pagefind/") and "/fragment/" in p}
    assert len(searched) > 1                    # the search compared too, in several bundles


def test_a_new_skill_builds_as_in_a_clean_build(
        tmp_path: Path, make_build: Callable[..., Any]) -> None:
    make_build(tmp_path)
    new = tmp_path / "corpus" / "skills" / "epsilon-new"
    new.mkdir()
    (new / "SKILL.md").write_text("---\nname: epsilon-new\ndescription: A new skill. Use "
                                  "when testing.\n---\n\n# Epsilon\n\nText.\n")
    result = make_build(tmp_path)
    assert result.site.incremental and result.site.rendered == 1
    # The set of pages changed: mkdocs builds the whole tree, or, with stamped skill
    # pages, the other pages (as every build does).
    assert {"mkdocs", "stamped skill pages"} & set(result.site.timings)
    ours = _hashes(result.dist / "site")
    theirs = _hashes(make_build(tmp_path, "clean").dist / "site")
    assert ours.keys() == theirs.keys() and "skills/epsilon-new/index.html" in ours
    assert [p for p in ours if ours[p] != theirs[p] and not p.startswith("sitemap")] == []


def test_neighbours_are_kept_while_the_graph_is_and_made_again_when_tags_change(
        tmp_path: Path, make_build: Callable[..., Any]) -> None:
    """Each skill's neighbours (related skills by shared tags among them) are kept from
    the previous build while graph.json and the tags are the same, and made again when a
    tag changes: as in a clean build either way."""
    first = make_build(tmp_path)
    kept = first.dist / "site-cache" / "neighbours.bin"
    inode = kept.stat().st_ino
    _edit(tmp_path / "corpus")
    assert make_build(tmp_path).site.incremental and kept.stat().st_ino == inode
    page = tmp_path / "corpus" / "wiki" / "delta-notes.md"
    page.write_text(page.read_text().replace("tags: [release, notes]", "tags: [notes]"))
    result = make_build(tmp_path)
    assert result.site.incremental and kept.stat().st_ino != inode
    ours, theirs = _hashes(result.dist / "site"), _hashes(make_build(tmp_path, "clean").dist
                                                          / "site")
    assert ours.keys() == theirs.keys()
    assert [p for p in ours if ours[p] != theirs[p] and not p.startswith("sitemap")] == []


def test_a_bundle_left_empty_is_gone_as_in_a_clean_build(
        tmp_path: Path, make_build: Callable[..., Any]) -> None:
    make_build(tmp_path)
    gone = tmp_path / "corpus" / "wiki" / "hostile-page.md"
    alone = bundle_of("hostile-page")
    built = make_build(tmp_path).dist / "site"
    before = {p.name for p in (built / "pagefind").iterdir()}
    assert alone in before
    artifacts = built / ".well-known" / "agent-skills"
    assert [p for p in artifacts.rglob("*") if p.name.startswith("hostile-page")]
    gone.unlink()
    result = make_build(tmp_path)
    assert result.site.incremental
    site = result.dist / "site"
    assert {p.name for p in (site / "pagefind").iterdir()} == before - {alone}
    assert not (result.dist / ".site-stubs").exists()      # the stubs' scratch pages
    assert not [p for p in artifacts.rglob("*") if p.name.startswith("hostile-page")]
    ours, theirs = _hashes(site), _hashes(make_build(tmp_path, "clean").dist / "site")
    assert ours.keys() == theirs.keys()
    assert [p for p in ours if ours[p] != theirs[p] and not p.startswith("sitemap")] == []


def test_sharded_mkdocs_equals_one_process(tmp_path: Path, make_build: Callable[..., Any],
                                           monkeypatch: Any) -> None:
    one = _hashes(make_build(tmp_path, "one").dist / "site")
    monkeypatch.setattr("skillsite.site.stage.SHARD_FROM", 1)
    sharded = _hashes(make_build(tmp_path, "sharded", jobs=3).dist / "site")
    assert one.keys() == sharded.keys()
    assert [p for p in one if one[p] != sharded[p] and not p.startswith("sitemap")] == []


def test_mkdocs_shards_are_spawned_not_forked(tmp_path: Path, monkeypatch: Any) -> None:
    """The discovery thread runs beside mkdocs' shards and uses SQLite: a child forked
    while it held SQLite's allocator mutex would wait on it for ever (a clean 100k build
    of stamped pages hung so). A configuration with a hook of its own is rendered by
    mkdocs, in shards."""
    from skillsite.builder.pipeline import build
    from skillsite.site import stage
    from skillsite.site.mkdocs_run import PACKAGED_CONFIG

    def no_fork() -> int:
        raise AssertionError("a mkdocs shard was forked from the build process")

    real, calls = stage.run_mkdocs_sharded, []

    def guarded(*args: Any, **kwargs: Any) -> list[str]:
        calls.append(args)
        with monkeypatch.context() as patch:
            patch.setattr(os, "fork", no_fork)
            return real(*args, **kwargs)

    monkeypatch.setattr(stage, "run_mkdocs_sharded", guarded)
    monkeypatch.setattr(stage, "SHARD_FROM", 1)
    (tmp_path / "noop_hook.py").write_text("")
    config = tmp_path / "mkdocs.yml"
    config.write_text(PACKAGED_CONFIG.read_text() + "hooks:\n  - noop_hook.py\n")
    corpus = shutil.copytree(FIXTURE, tmp_path / "corpus")
    result = build(corpus, tmp_path / "dist", jobs=2, site=True, mkdocs_config=config)
    assert len(calls) == 1
    assert (result.dist / "site" / "index.html").is_file()


def test_hook_changes_speed_not_pages(tmp_path: Path, make_build: Callable[..., Any],
                                      monkeypatch: Any) -> None:
    """Plain mkdocs (no skillsite hook) makes the same pages, blank lines aside."""
    def pages(site: Path) -> dict[str, list[str]]:
        return {p.relative_to(site).as_posix(): [line for line in p.read_text().splitlines()
                                                 if line.strip() and "Security-Policy" not in line]
                for p in site.rglob("*.html")}

    hooked = pages(make_build(tmp_path, "hooked").dist / "site")
    empty = tmp_path / "no_hook.py"
    empty.write_text("")
    monkeypatch.setattr("skillsite.site.mkdocs_run.HOOK", empty)
    plain = pages(make_build(tmp_path, "plain").dist / "site")
    assert hooked.keys() == plain.keys()
    assert [p for p in hooked if hooked[p] != plain[p] and not p.startswith("sitemap")] == []


def test_site_failure_leaves_dist_untouched(tmp_path: Path, make_build: Callable[..., Any]) -> None:
    first = make_build(tmp_path)
    before = _hashes(first.dist)
    bad = tmp_path / "bad.yml"
    bad.write_text("site_name: x\ntheme:\n  name: no-such-theme\n")
    _edit(tmp_path / "corpus")
    result = CliRunner().invoke(main, ["build", str(tmp_path / "corpus"), "-o",
                                       str(first.dist), "--mkdocs-config", str(bad)])
    assert result.exit_code != 0
    assert "catalog site failed" in result.output and "Traceback" not in result.output
    assert "--no-site" in result.output
    assert _hashes(first.dist) == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".dist.tmp")]


def test_a_failed_incremental_view_build_leaves_dist_untouched(tmp_path: Path) -> None:
    """mkdocs failing on the view of changed pages (here a user hook that refuses skill
    pages once a marker file exists) fails the build, and dist/ stays as it was."""
    corpus, dist, marker = tmp_path / "corpus", tmp_path / "dist", tmp_path / "refuse"
    shutil.copytree(FIXTURE, corpus)
    hook = tmp_path / "refusing_hook.py"
    hook.write_text("import os\n\ndef on_page_markdown(markdown, page, **kwargs):\n"
                    f"    if os.path.exists({str(marker)!r}) and "
                    "page.file.src_uri.startswith('skills/'):\n"
                    "        raise ValueError('refused by the test hook')\n"
                    "    return markdown\n")
    config = tmp_path / "mkdocs.yml"
    config.write_text(default_config().read_text()
                      + f"hooks:\n  - {hook}\n")
    command = ["build", str(corpus), "-o", str(dist), "--mkdocs-config", str(config)]
    assert CliRunner().invoke(main, command).exit_code == 0
    before = _hashes(dist)
    marker.write_text("")
    _edit_description(corpus)
    result = CliRunner().invoke(main, command)
    assert result.exit_code != 0 and "refused by the test hook" in result.output
    assert "Traceback" not in result.output
    assert _hashes(dist) == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".dist.tmp")]
    marker.unlink()
    assert CliRunner().invoke(main, command).exit_code == 0
    assert "Quokka. Deploy" in (dist / "site" / "skills" / "index.html").read_text()


def test_your_own_pages_follow_their_edits_in_both_incremental_paths(tmp_path: Path) -> None:
    corpus, dist, pages = tmp_path / "corpus", tmp_path / "dist", tmp_path / "pages"
    shutil.copytree(FIXTURE, corpus)
    pages.mkdir()
    (pages / "about.md").write_text("# About\n\nFirst words.\n")
    config = tmp_path / "mkdocs.yml"
    config.write_text(default_config().read_text()
                      + f"docs_dir: {pages}\n")
    command = ["build", str(corpus), "-o", str(dist), "--mkdocs-config", str(config)]
    assert CliRunner().invoke(main, command).exit_code == 0
    about = dist / "site" / "about" / "index.html"
    assert "First words." in about.read_text()
    (pages / "about.md").write_text("# About\n\nSecond words.\n")
    _edit(corpus)                                  # the same set of pages: a view
    assert CliRunner().invoke(main, command).exit_code == 0
    assert "Second words." in about.read_text()
    (pages / "about.md").write_text("# About\n\nThird words.\n")
    new = corpus / "skills" / "epsilon-new"       # a new page: the whole tree, --dirty
    new.mkdir()
    (new / "SKILL.md").write_text("---\nname: epsilon-new\ndescription: A new skill. Use "
                                  "when testing.\n---\n\n# Epsilon\n\nText.\n")
    assert CliRunner().invoke(main, command).exit_code == 0
    assert "Third words." in about.read_text()
    assert (dist / "site" / "skills" / "epsilon-new" / "index.html").is_file()


def test_the_site_waits_for_the_files_the_writing_thread_still_writes(
        tmp_path: Path, make_build: Callable[..., Any], monkeypatch: Any) -> None:
    """The builder writes catalog.json, graph.json, groups.json and its cache on a thread;
    the site stage reads the new dist/ only once they are written, however late the
    thread is."""
    import time

    from skillsite.builder import writer

    opened = writer._File.open

    def late(self: Any) -> None:
        time.sleep(0.2)
        opened(self)

    monkeypatch.setattr(writer._File, "open", late)
    result = make_build(tmp_path)
    assert result.site.pages == 8


def test_no_site_skips_it(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(FIXTURE, corpus)
    result = CliRunner().invoke(main, ["build", str(corpus), "-o", str(tmp_path / "d"),
                                       "--no-site"])
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "d" / "site").exists() and "Site:" not in result.output


def test_the_parts_of_unchanged_shards_are_kept_and_a_changed_record_is_not_used(
        tmp_path: Path, make_build: Callable[..., Any]) -> None:
    """The site's parts of each content shard (site-cache/skills/) are linked from the
    previous build when the shard is the same file; one that differs from the manifest
    makes the previous site unusable, and nothing of it reaches the new pages."""
    import marshal

    first = make_build(tmp_path)
    parts = first.dist / "site-cache" / "skills"
    inodes = {p.name: p.stat().st_ino for p in parts.iterdir()}
    _edit(tmp_path / "corpus")
    second = make_build(tmp_path)
    again = {p.name: p.stat().st_ino for p in parts.iterdir()}
    assert again.keys() == inodes.keys()
    assert 0 < sum(again[n] == inodes[n] for n in again) == len(again) - 1  # alpha's shard
    for path in parts.iterdir():  # every skill's title, as a damaged cache would say
        seen, found, keys = marshal.loads(path.read_bytes())
        found = {name: ("TAMPERED", *rest[1:]) for name, rest in found.items()}
        path.unlink()
        path.write_bytes(marshal.dumps((seen, found, keys)))
    _edit_description(tmp_path / "corpus")
    third = make_build(tmp_path)
    assert not third.site.incremental and second.site.incremental
    pages = [p.read_text() for p in (third.dist / "site" / "skills").glob("*/index.html")]
    assert pages and not any("TAMPERED" in page for page in pages)


def test_file_times_from_the_child_process_are_those_taken_here(tmp_path: Path,
                                                                 monkeypatch: Any) -> None:
    """The skills' file times are stat'ed by a child process at scale: the same values as
    in this process, 0 for a file that is gone, odd names included."""
    from skillsite.site import data

    names = ["a.md", "b c.md", "d\udcff.md", "gone.md"]
    for number, name in enumerate(names[:-1]):
        path = tmp_path / name
        path.write_text("x")
        os.utime(path, ns=(0, 1_700_000_000_999_999_999 - number))
    here = data._Mtimes(str(tmp_path), names).result()
    monkeypatch.setattr(data, "_MTIMES_APART_FROM", 0)
    child = data._Mtimes(str(tmp_path), names)
    assert child.child is not None
    assert child.result() == here
    assert here[-1] == 0 and here[0] == int(os.stat(tmp_path / "a.md").st_mtime)
