"""Rules about links and the files bundled with a skill: broken or escaping links (in
``SKILL.md`` and in bundled Markdown), reference chains, orphans, sizes, tables of contents."""
from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterator

from skillsite.filenames import printable, utf8
from skillsite.linter.bundle import Bundled
from skillsite.linter.discover import own_path
from skillsite.linter.lazy import lazy
from skillsite.linter.links import Link, folder_of, local_links
from skillsite.linter.refgraph import References, references
from skillsite.linter.rules.context import Context
from skillsite.linter.rules.registry import Elsewhere, Finding, rule
from skillsite.linter.rules.surroundings import outside_texts
from skillsite.linter.supporting import nothing_skipped, supporting_of
from skillsite.models import Document

LONG_REFERENCE_LINES = 100
#: The specification's folders of files for the agent; other files "may also be present".
AGENT_FOLDERS = ("scripts/", "references/", "assets/")
_ENDS_A_NAME = frozenset(" \t\n`'\")]*,;:")
_TOC_LINES = 40
_TOC = lazy(r"^\s*(?:[-*+]|\d+\.)\s+\[[^\]]+\]\(#|^#{1,6}\s*(?:table of )?contents\b",
                  re.IGNORECASE | re.MULTILINE)
def _skill_root(doc: Document) -> str:
    if doc.source.kind != "virtual":
        return folder_of(doc)
    return doc.memo("skill-root", lambda: os.path.abspath(doc.source.root))


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root + os.sep)


_TEMPLATE = re.compile(r"(?:^|/)(?:assets|templates?)/|template", re.IGNORECASE)


def _all_links(doc: Document, ctx: Context) -> list[tuple[str | None, Link]]:
    """Every local link of the skill: ``(None, link)`` for ``SKILL.md``'s own, ``(rel,
    link)`` for those of the bundled Markdown file ``rel``. A template's links
    (``assets/``, ``templates/``, ``*template*``) belong to the document it is a template
    of, not to the skill, and a link that names a file from the skill's root, as the
    specification asks, resolves there. Worked out once per document (each rule about
    links asks)."""
    return doc.memo("all-links", lambda: list(_each_link(doc, ctx)))


def _each_link(doc: Document, ctx: Context) -> Iterator[tuple[str | None, Link]]:
    for link in local_links(doc):
        yield None, link
    if doc.source.kind != "skill-md":
        return
    root = _skill_root(doc)
    corpus = None  # worked out for the first link of a bundled file (most skills have none)
    for rel, links in references(doc, ctx.config.max_file_size).links.items():
        if _TEMPLATE.search(rel):
            continue
        for link in links:
            corpus = os.path.abspath(doc.source.root) if corpus is None else corpus
            yield rel, _from_root(link, root, corpus)


def _from_root(link: Link, root: str, corpus: str) -> Link:
    """The link resolved from the skill's root when that is where its file is (never a
    path outside the corpus)."""
    target, where, path = link
    if path is not None and os.path.exists(path):
        return link
    name = target.split("#", 1)[0].split("?", 1)[0]
    if not name or name.startswith("/"):
        return link
    rooted = os.path.normpath(os.path.join(root, name))
    if _inside(rooted, corpus) and os.path.exists(rooted):
        return target, where, rooted
    return link


def _at(rel: str | None, where: tuple[int, int]) -> object:
    return where if rel is None else Elsewhere(rel, *where)


@rule("broken-link", "warning", formats=("skill-md", "virtual"), family="links",
      peers={"agnix": "REF-002", "skillsaw": "content-broken-internal-reference"})
def broken_link(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    A relative link points at a file that does not exist, in the body or in a bundled
    Markdown file (``references/*.md``), which is reported at its own path and line.

    Links with a scheme (``https:``, ``mailto:``) and pure anchors (``#usage``) are not
    checked; links inside code blocks and inline code are ignored, and so are footnotes
    (``[^1]: ...``). ``{baseDir}/`` and ``${CLAUDE_SKILL_DIR}/`` stand for the skill's
    folder, and a link in ``references/guide.md`` to ``scripts/run.py`` that exists from
    the skill's root is fine (the specification asks for links relative to the root).
    Templates' links are not checked. The specification is silent on links, so this is a
    warning.
    """
    root = _skill_root(doc)
    # A bundled file was just listed: it exists without asking the file system again.
    listed = (references(doc, ctx.config.max_file_size).by_path
              if doc.source.kind == "skill-md" else {})
    below = root + os.sep  # _inside(path, root), without a call and a join per link
    for rel, (target, where, path) in _all_links(doc, ctx):
        if (path is not None and (path.startswith(below) or path == root)
                and path not in listed and not os.path.exists(path)):
            yield _at(rel, where), f"link target {target!r} does not exist"


@rule("link-escapes-root", "warning", formats=("skill-md", "virtual"), family="links")
def link_escapes_root(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    A relative link leaves the skill's root: the folder holding ``SKILL.md`` (for a Mini-A
    page, the corpus root), or is an absolute file path. Bundled Markdown is checked too.

    A skill is copied and installed as one folder, so such links break once it is
    installed; and skillsite never follows a path out of the root. The specification asks
    that file references be relative to the skill root. The message says whether the file
    exists (copy it in) or not (fix the link). Links in templates (``assets/``,
    ``templates/``, ``*template*``) are the sample links of the document they make, and
    are not checked.

    A skill of a Claude Code plugin is installed with its plugin, so a link to a file
    that exists in the same plugin (a sibling skill, the plugin's README) is fine; a link
    into another plugin is not. Links through ``${CLAUDE_PLUGIN_ROOT}`` name the plugin's
    folder and are not checked.
    """
    root = _skill_root(doc)
    plugin = _plugin_root(doc, ctx)
    below = root + os.sep  # _inside(path, root), without a call and a join per link
    for rel, (target, where, path) in _all_links(doc, ctx):
        if path is None or not (path.startswith(below) or path == root):
            exists = path is not None and os.path.exists(path)
            if path is not None and exists and plugin is not None and _inside(path, plugin):
                continue  # installed with the skill, as part of its Claude Code plugin
            advice = ("copy the file into the skill instead" if exists
                      else "and its file does not exist; fix the link or remove it")
            yield _at(rel, where), (f"link {target!r} leads outside the skill folder; "
                                    f"{advice}")


def _plugin_root(doc: Document, ctx: Context) -> str | None:
    """The folder of the Claude Code plugin the skill belongs to, if it does."""
    namespace = ctx.namespace_of(doc)
    if not namespace.plugin:
        return None
    return os.path.normpath(os.path.join(os.path.abspath(doc.source.root),
                                         namespace.plugin_folder))


@rule("reference-depth", "warning", formats=("skill-md",), family="links",
      peers={"agnix": "AS-013", "skillsaw": "content-progressive-disclosure"})
def reference_depth(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    A reference chain deeper than one hop: ``SKILL.md`` links to ``a.md``, which links to
    ``b.md``, and nothing in ``SKILL.md`` links to ``b.md`` directly.

    The Agent Skills specification asks that references go one level deep from
    ``SKILL.md``, because an agent may only skim a file it reached through another one.
    The depth counts hops of references, not folders: a direct link to
    ``references/pdf/forms.md`` is one hop. Reported at the link in the intermediate file.

    Passing example: ``SKILL.md`` links to both ``a.md`` and ``b.md``.
    """
    refs = references(doc, ctx.config.max_file_size)
    for rel, (target, where, path) in refs.deep:
        yield Elsewhere(rel, *where), (
            f"{target!r} is {refs.depth[_rel(doc, path)]} hops from SKILL.md; link it "
            "from SKILL.md directly")


def _rel(doc: Document, path: str | None) -> str:
    return os.path.relpath(path or "", _skill_root(doc)).replace(os.sep, "/")


@rule("orphan-file", "warning", formats=("skill-md",), family="bundled",
      peers={"agnix": "AS-023", "skillsaw": "agentskill-unreferenced-files"})
def orphan_file(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    A file in ``scripts/``, ``references/`` or ``assets/`` that neither ``SKILL.md`` nor
    any other file of the skill mentions, so the agent never learns it exists.

    The specification names those three folders for what the agent runs, reads and uses;
    other files "may also be present" and are not checked.

    A file counts as mentioned when a link leads to it, or its path (with or without its
    extension), its file name or its Python module (``import fill``, ```fill.run()``)
    appears in the text of a file of the skill, or one of its folders is named on its own
    ("templates are in ``assets/``"); ``scripts/fill.py`` names that file, not the whole
    ``scripts/``. A file's mention of itself (its own usage line) does not count.

    Files outside the skill count too when they name the file by a path through the
    skill's folder (``pdf/references/forms.md``, ``{baseDir}/references/forms.md``): the
    repository's or the plugin's instruction files (``CLAUDE.md``, ``GEMINI.md``'s
    ``@./skills/pdf/references/forms.md`` include, ``AGENTS.md``), a Claude Code plugin's
    ``agents/`` and ``commands/``, and the skill's sibling skills.

    Licences, READMEs, changelogs and package manifests are for people and tools, and a
    test of a script (``test_fill.py``, ``fill_test.py``, ``conftest.py``,
    ``fill.test.js``) is for its developers: they are never orphans.
    """
    refs = references(doc, ctx.config.max_file_size)
    # One text to search; a file found there only because it names itself (a usage
    # line) is searched for again in the other files.
    texts = "\n".join([doc.body, *(f.text for f in refs.files if f.text)])
    candidates = [f for f in refs.files
                  if not f.for_people and f.rel.startswith(AGENT_FOLDERS)
                  and not _TEST_FILE().search(f.rel)
                  and not (_mentioned(f.rel, texts) and _mentioned_elsewhere(doc, refs, f))]
    if not candidates:
        return
    root = _skill_root(doc)
    linked = {_rel(doc, path) for _, (_, _, path) in _all_links(doc, ctx)
              if path and _inside(path, root)}
    for bundled in candidates:
        if bundled.rel in linked or any(_named_alone(texts, folder)
                                        for folder in _folders(bundled.rel)):
            continue
        if _named_outside(doc, ctx, bundled.rel):
            continue
        yield Elsewhere(bundled.rel, 1, 1), (
            f"{bundled.rel} is not mentioned in SKILL.md or another file of the "
            "skill; link it where the agent should use it, or remove it")


#: A test runner's file names: pytest's ``test_*.py``, ``*_test.py`` and ``conftest.py``,
#: and the ``*.test.*``/``*.spec.*`` of JavaScript's runners.
_TEST_FILE = lazy(r"(?:^|/)(?:test_[^/]*\.py|[^/]*_test\.py|conftest\.py|"
                        r"[^/]*\.(?:test|spec)\.[cm]?[jt]sx?)$")


def _named_outside(doc: Document, ctx: Context, rel: str) -> bool:
    """Named by a text around the skill, by a path through the skill's own folder."""
    outside = outside_texts(doc, ctx)
    if not outside:
        return False
    own = os.path.basename(_skill_root(doc))
    return any(form in outside for form in (f"{own}/{rel}", f"{{baseDir}}/{rel}",
                                            f"${{CLAUDE_SKILL_DIR}}/{rel}"))


def _mentioned(rel: str, texts: str) -> bool:
    return rel in texts or any(name in texts for name in _names(rel))


def _mentioned_elsewhere(doc: Document, refs: References, bundled: Bundled) -> bool:
    """Mentioned by a file other than itself: its own usage line does not count."""
    if not bundled.text or not _mentioned(bundled.rel, bundled.text):
        return True  # the mention found was in another file
    others = "\n".join([doc.body, *(f.text for f in refs.files
                                    if f.text and f.rel != bundled.rel)])
    return _mentioned(bundled.rel, others)


def _names(rel: str) -> list[str]:
    """The ways a text may name ``rel``: its path (with or without its extension), its
    file name and, for a Python file, its module (``scripts.fill``, ``import fill``)."""
    stem, suffix = posixpath.splitext(rel)
    base = posixpath.basename(stem)
    names = [rel, posixpath.basename(rel), stem + " ", stem + "`"]
    if suffix == ".py":
        parent = posixpath.basename(posixpath.dirname(stem))
        names += [stem.replace("/", "."), f"import {base}", f"from {base} import",
                  f".{base} import", f"{parent}.{base}", f"`{base}."]
    return names


def _named_alone(texts: str, folder: str) -> bool:
    """Whether ``folder`` (``assets/``) is named on its own ("templates are in
    `assets/`"), not as the start of a file's path (``assets/form.txt``)."""
    at = texts.find(folder)
    while at >= 0:
        after = texts[at + len(folder):at + len(folder) + 1]
        before = texts[at - 1:at] if at else ""
        if (not after or after in _ENDS_A_NAME) and not (before.isalnum() or before in "_-"):
            return True
        at = texts.find(folder, at + 1)
    return False


def _folders(rel: str) -> Iterator[str]:
    folder = posixpath.dirname(rel)
    while folder:
        yield folder + "/"
        folder = posixpath.dirname(folder)


@rule("bundled-file-too-large", "warning", formats=("skill-md",), family="bundled",
      peers={"agnix": "AS-015"})
def bundled_file_too_large(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    A bundled file is larger than ``max-file-size`` (1 MiB by default).

    An agent that reads it spends its whole context on it, and skillsite does not scan
    it for secrets or hidden instructions. Split it, or keep data outside the skill.
    """
    cap = ctx.config.max_file_size
    for bundled in references(doc, cap).files:
        if bundled.size > cap:
            yield Elsewhere(bundled.rel, 1, 1), (
                f"{bundled.rel} is {bundled.size} bytes, over the {cap}-byte cap; it was "
                "not scanned")


@rule("reference-toc", "warning", formats=("skill-md",), family="bundled",
      peers={"agnix": "CC-SK-034"})
def reference_toc(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    A bundled Markdown reference longer than 100 lines has no table of contents near its
    top (a "Contents" heading, or a list of links to its own headings, in the first 40
    lines). A reference is a Markdown file that the skill links to, or one in
    ``references/``; READMEs and changelogs are for people and are not checked.

    Anthropic's skill authoring guidance asks for one, so that an agent that previews
    the file with a partial read still sees its whole scope.
    """
    refs = references(doc, ctx.config.max_file_size)
    for bundled in refs.files:
        text = bundled.text
        if not bundled.is_markdown or not text or text.count("\n") < LONG_REFERENCE_LINES:
            continue
        if bundled.for_people or not (bundled.rel in refs.depth
                                      or bundled.rel.startswith("references/")):
            continue  # not a reference: nothing links it and it is not in references/
        head = "\n".join(text.split("\n", _TOC_LINES)[:_TOC_LINES])
        if not _TOC().search(head):
            yield Elsewhere(bundled.rel, 1, 1), (
                f"{bundled.rel} has {text.count(chr(10))} lines and no table of contents "
                "in its first 40 lines; add one")


@rule("file-not-published", "warning", formats=("skill-md", "skill-json"), family="bundled")
def file_not_published(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    An entry of the skill's folder is not one of its supporting files, so the build does
    not keep it in ``dist/``, publish it on the skill's page or put it in the skill's
    archive. A supporting file is a regular file of the skill's own folder, or a symlink
    to one. Left out, and reported here: hidden files (``.env``; tool files such as
    ``.gitignore`` are left out without a word), symlinks to anything else (another
    skill's ``SKILL.md``, a file in a hidden folder, ``.git/config``), FIFOs, devices and
    sockets, and names that are not valid UTF-8.

    A symlink could otherwise publish what the build withholds: the file of a skill left
    out for a credential, or a repository's configuration. Move the file into the skill's
    folder (not hidden), or remove it.

    A skill whose own path is not valid UTF-8 (a folder named in another encoding) is not
    published at all, for the same reason: rename its folder.
    """
    # A file whose absolute folder and name are ASCII has an ASCII path below its root
    # (valid UTF-8): most skills, without working that path out.
    if not (folder_of(doc).isascii() and os.path.basename(doc.source.path).isascii()):
        own = own_path(doc)
        if not utf8(own):
            yield (1, 1), (f"{printable(own)} is not published: its path is not valid "
                           "UTF-8, which no page, archive or JSON file can hold; rename "
                           "its folder")
            return
    if doc.source.kind == "skill-md" and nothing_skipped(doc.source.tree):
        return  # most skills: nothing to report, without the walk
    for skipped in supporting_of(doc).skipped:
        yield Elsewhere(skipped.rel, 1, 1), (
            f"{printable(skipped.rel)} is not published: {skipped.reason}")
