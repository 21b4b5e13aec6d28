"""Writing what :mod:`~skillsite.site.pages` planned: the docs tree, then, after mkdocs,
the supporting files and the discovery artifacts."""
from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Callable, Container
from pathlib import Path
from typing import TYPE_CHECKING

from skillsite.entries import SECTION_SEPARATOR
from skillsite.models import Problem
from skillsite.site import discovery, search
from skillsite.site.csp import CANARY, CANARY_TEXT
from skillsite.site.data import SiteSkill
from skillsite.site.groups import group_pages
from skillsite.site.index_pages import Corpus, listing_pages
from skillsite.site.mkdocs_run import SETTINGS
from skillsite.site.pages import ASSETS, Plan
from skillsite.site.published_files import copy_files, published_files, stored_bytes
from skillsite.site.skill_md import generated_skill_md
from skillsite.site.writing import remove, write_new

if TYPE_CHECKING:
    from skillsite.site.stopping import Stop
    from skillsite.store.content import ContentStore

#: Pages mkdocs writes on every build, dirty or not.
ALWAYS_WRITTEN = ("404.html", "sitemap.xml", "sitemap.xml.gz")


class DocsWriter:
    """Writes pages into the docs tree as they come, going by ``known`` (docs path ->
    sha256 of the previous build's docs tree, which ``docs`` links to once ``ready()``
    returned), so that no page is read back and unchanged pages are left alone."""

    def __init__(self, docs: Path, known: dict[str, str],
                 ready: Callable[[], object] = lambda: None) -> None:
        self.docs, self.known, self.ready = docs, known, ready
        self.hashes: dict[str, str] = {}     # docs path -> sha256, of this build
        self.written: set[str] = set()
        self._waited = False

    def __call__(self, path: str, content: str | bytes) -> None:
        if not self._waited:
            self.ready()
            self._waited = True
        data = _utf8(content) if isinstance(content, str) else content
        self.hashes[path] = hashlib.sha256(data).hexdigest()
        if self.known.get(path) != self.hashes[path] or not (self.docs / path).is_file():
            write_new(self.docs / path, data)
            self.written.add(path)


def utf8_text(text: str) -> str:
    """``text`` as its page holds it (see :func:`_utf8`)."""
    return _utf8(text).decode("utf-8")


def _utf8(text: str) -> bytes:
    """A page's text as UTF-8; a file name that is not UTF-8 (decoded with surrogate
    escapes) shows its bytes as ``\\xff``, since no page can hold them as they are."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode(
            "utf-8", "backslashreplace").encode("utf-8")


def write_docs(writer: DocsWriter, plan: Plan, problems: list[Problem],
               corpus: Corpus | None = None, *, skill_pages: bool = True) -> None:
    """After the skill pages: the listing pages and assets, the settings of the mkdocs
    runs, the hashes of the skill pages kept from the previous build (unless the docs
    tree holds no skill page: ``skill_pages``), and no page that is gone."""
    corpus = corpus or Corpus()
    for path, text in listing_pages(plan.listed, problems, corpus).items():
        writer(path, text)
    writer(SETTINGS, json.dumps({"site_name": corpus.about.name}, ensure_ascii=False))
    for path, text in group_pages(plan.groups, plan.skills).items():
        writer(path, text)
    writer(CANARY, CANARY_TEXT)
    writer(search.MANIFEST, search.manifest([skill.slug for skill in plan.skills]))
    for asset in sorted(ASSETS.iterdir()):
        writer(f"assets/skillsite/{asset.name}", asset.read_bytes())
    for skill in plan.skills if skill_pages else ():
        path = f"skills/{skill.slug}/index.md"
        writer.hashes.setdefault(path, writer.known.get(path, ""))
    for path in writer.known.keys() - writer.hashes.keys():
        (writer.docs / path).unlink(missing_ok=True)


def prune_docs(docs: Path, wanted: set[str]) -> None:
    """Remove every file of the docs tree that is not in ``wanted``: the copies of the
    user's own pages made by an earlier build, so that mkdocs_run copies them afresh
    (only before a build of the whole tree; a view copies them into the view)."""
    for folder, _, names in os.walk(docs):
        for name in names:
            path = os.path.relpath(os.path.join(folder, name), docs).replace(os.sep, "/")
            if path not in wanted:
                os.unlink(os.path.join(folder, name))


def forget_outputs(site: Path, written: set[str], pages: set[str], plan: Plan) -> None:
    """Before a dirty mkdocs build over the hard-linked previous site: remove the outputs
    mkdocs will write again (so it never writes through a link into the previous build)
    and the pages of skills, tags and formats that are gone (``pages``: every docs path
    of this build)."""
    for path in written:
        output = path[:-len("index.md")] + "index.html" if path.endswith("index.md") else path
        (site / output).unlink(missing_ok=True)
    for name in ALWAYS_WRITTEN:
        (site / name).unlink(missing_ok=True)
    remove_gone(site, pages, plan)


def remove_gone(site: Path, pages: set[str], plan: Plan) -> None:
    """Remove the pages of skills, tags and formats that are gone from ``site`` (the
    previous site, hard-linked; ``pages``: every docs path of this build)."""
    slugs = {s.slug for s in plan.skills}
    for folder in _folders(site / "skills"):
        if folder.name not in slugs:
            remove(Path(folder.path))
    for section in ("tags", "formats", "categories", "plugins", "collections"):
        for folder in _folders(site / section):
            if f"{section}/{folder.name}/index.md" not in pages:
                remove(Path(folder.path))


def _folders(parent: Path) -> list[os.DirEntry[str]]:
    """The folders in ``parent`` (none if it is no folder), from the directory entries
    (100k skill folders: a stat each cost 0.5 s)."""
    try:
        with os.scandir(parent) as entries:
            return [entry for entry in entries if entry.is_dir()]
    except (FileNotFoundError, NotADirectoryError):
        return []


def publish_files(site: Path, dist: Path, plan: Plan, reuse: bool) -> None:
    from skillsite.store.content import ContentStore

    with ContentStore(dist / "content") as store:
        for skill in plan.skills:
            if not reuse or skill.name in plan.changed:
                copy_files(store, skill, site / "skills" / skill.slug,
                           published_files(skill))


def publish_discovery(site: Path, plan: Plan, dist: Path, reuse: bool,
                      kept: Container[str] | None = None, stop: Stop | None = None
                      ) -> list[dict[str, str]]:
    """Write each skill's artifact (only those that changed after an incremental build)
    and return the index entries. ``kept``: the files the site holds from the previous
    build (``site/`` and their path in the site, as its manifest lists them), when known;
    else each artifact kept is looked for on disk. Once ``stop`` is set,
    :class:`~skillsite.site.stopping.Stopped` is raised before the next skill."""
    from skillsite.store.content import ContentStore

    def there(url: str) -> bool:
        return f"site/{url}" in kept if kept is not None else (site / url).is_file()

    entries = []
    with ContentStore(dist / "content") as store:
        for skill in plan.skills:
            if stop is not None:
                stop.check()
            name = plan.served.get(skill.name, "")
            url = discovery.artifact_url(skill, name)
            if not url:
                continue
            keys = plan.keys[skill.name]
            relative = url[len(discovery.INDEX_DIR) + 1:]
            known = keys.get("digest")
            if reuse and known and there(url):
                entries.append(discovery.entry(skill, _kind(relative), relative, known, name))
                continue
            artifact = discovery.make_artifact(skill, _skill_md(skill, store),
                                               functools.partial(stored_bytes, store, skill),
                                               name)
            if artifact is None:
                continue
            keys["digest"] = discovery.write_artifact(site, artifact)
            entries.append(discovery.entry(skill, artifact.type, artifact.url,
                                           keys["digest"], name))
    return entries


def _kind(relative: str) -> str:
    return "archive" if relative.endswith(".tar.gz") else "skill-md"


def _skill_md(skill: SiteSkill, store: ContentStore) -> bytes:
    if skill.format == "skill-md":
        data = stored_bytes(store, skill, skill.path)
        if data is not None:
            return data
    sections = store.sections(skill.name)
    return generated_skill_md(skill, SECTION_SEPARATOR.join(s.text for s in sections))
