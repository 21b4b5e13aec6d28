"""The site of a build whose skill pages are stamped (see :mod:`~skillsite.site.stamp`).

1. One mkdocs run over a *view* of the docs tree (hard links) that holds every page but
   the skill pages (the docs tree holds none), the shell page and a few real skill pages
   (the samples). Its pages get the security policy and are moved into ``site/``; the
   sitemap gets one entry per skill page where the shell had its own.
2. The samples are stamped and compared with what mkdocs wrote for them: on any
   difference, :class:`NotStampable` is raised and the build renders with mkdocs.
3. The skill pages to render (all of them when the shell changed) are rendered and
   stamped by the worker processes, which write them straight into ``site/``.
"""
from __future__ import annotations

import gzip
import hashlib
import heapq
import os
import re
import shutil
import string
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from skillsite.models import PhaseClock
from skillsite.site import pages, stamp
from skillsite.site.csp import CANARY, apply_policy, policy_meta, theme_hashes
from skillsite.site.data import SiteSkill
from skillsite.site.mkdocs_run import run_mkdocs
from skillsite.site.publish import remove_gone, utf8_text
from skillsite.site.writing import move_into

#: Where the view and its site are made (inside the new dist).
STAGED_SHELL = ".site-shell"
#: How many real skill pages are checked against mkdocs.
SAMPLES = 3
#: Deletes the ASCII letters and digits: what is left is the characters that are not.
_PLAIN = str.maketrans("", "", string.ascii_letters + string.digits)


class NotStampable(Exception):
    """Stamped pages would differ from mkdocs': the build renders them with mkdocs."""


def _page(path: str) -> str:
    return path[:-len("index.md")] + "index.html" if path.endswith("index.md") else path


def build_stamped(docs: Path, site: Path, dist: Path, plan: pages.Plan,
                  hashes: dict[str, str], config: Path | None, jobs: int | None,
                  old_shell: str | None, clock: PhaseClock,
                  started: Callable[[], None] | None = None,
                  move_in: Callable[[], None] | None = None) -> tuple[list[str], str]:
    """Build ``site`` (the previous site hard-linked, or nothing, or the previous site
    that ``move_in`` moves there before the first change to it); returns mkdocs'
    warnings and the key of the shell; ``started`` is called once the stamping workers
    are forked. Raises :class:`NotStampable`."""
    staging = dist / STAGED_SHELL
    view, output = staging / "docs", staging / "site"
    shutil.rmtree(staging, ignore_errors=True)
    samples = _samples(plan)
    try:
        for path in sorted(hashes):
            target = view / path
            target.parent.mkdir(parents=True, exist_ok=True)
            os.link(docs / path, target)
        (view / stamp.SHELL_PAGE).parent.mkdir(parents=True, exist_ok=True)
        (view / stamp.SHELL_PAGE).write_text(stamp.shell_markdown(), encoding="utf-8")
        texts = {}
        for item in samples:
            slug = item[0].slug
            texts[slug] = utf8_text(pages.page_markdown(item, plan.setup))
            (view / "skills" / slug).mkdir(parents=True, exist_ok=True)
            (view / "skills" / slug / "index.md").write_text(texts[slug], encoding="utf-8")
        clock.lap("shell view and samples")
        warnings = run_mkdocs(view, output, config, dirty=False)
        clock.lap("mkdocs (other pages)")
        canary = output / CANARY.replace("index.md", "index.html")
        apply_policy(output, policy_meta(theme_hashes(canary.read_text(encoding="utf-8"))))
        shell_file = output / "skills" / stamp.SHELL_SLUG / "index.html"
        shell = shell_file.read_text(encoding="utf-8")
        try:
            stamper = stamp.load_stamper(view, config, shell)
        except stamp.ShellError as error:
            raise NotStampable(str(error)) from None
        rendered = {slug: (text, (output / "skills" / slug / "index.html").read_bytes())
                    for slug, text in texts.items()}
        differ = stamp.verify(stamper, rendered)
        if differ:
            raise NotStampable(f"stamped pages differ from mkdocs': {', '.join(differ)}")
        _remove_samples(output, texts)
        key = hashlib.sha256(shell.encode("utf-8")).hexdigest()
        (docs.parent / "shell.html").write_text(shell, encoding="utf-8")
        if key != old_shell:       # every page shows the shell: all are stamped again
            plan.todo += map(plan.item, plan.kept)
            plan.kept = []
        (move_in or _nothing)()  # the previous site, moved in before the first change
        remove_gone(site, set(hashes), plan)
        _sitemap(output, [s.slug for s in plan.skills])
        _move_in(output, site)
        clock.lap("shell, samples checked, other pages moved in")
        try:
            pages.stamp_pages(plan, jobs, (str(view), str(config or ""), shell, str(site)),
                              started)
        except stamp.ShellError as error:
            raise NotStampable(str(error)) from None
        clock.lap("stamped skill pages")
        return warnings, key
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _nothing() -> None:
    pass


def _remove_samples(output: Path, slugs: Iterable[str]) -> None:
    """The shell's page and the samples' pages, out of mkdocs' output."""
    shutil.rmtree(output / "skills" / stamp.SHELL_SLUG)
    for slug in slugs:
        shutil.rmtree(output / "skills" / slug)


def _samples(plan: pages.Plan) -> list[Any]:
    """A few skill pages to check: the first, and those whose name, title and
    description hold the most characters other than letters and digits."""
    skills = sorted(plan.skills, key=lambda skill: skill.slug)
    if not skills:
        return []

    def odd(skill: SiteSkill) -> int:
        return len(f"{skill.name}{skill.title}{skill.description}".translate(_PLAIN))

    chosen = [skills[0], *heapq.nlargest(SAMPLES - 1, skills[1:], key=odd)]
    return [plan.item(skill) for skill in chosen]


def _sitemap(output: Path, slugs: list[str]) -> None:
    """The sitemap with one entry per skill page where it had the shell's."""
    sitemap = output / "sitemap.xml"
    if not sitemap.is_file():
        return
    text = sitemap.read_text(encoding="utf-8")
    # The samples' entries go: every skill page gets one where the shell's is.
    text = re.sub(r"\s*<url>\s*<loc>[^<]*/skills/(?!" + re.escape(stamp.SHELL_SLUG)
                  + r"/)[^/<]+/</loc>.*?</url>", "", text, flags=re.DOTALL)
    entry = re.search(r"\s*<url>\s*<loc>[^<]*/skills/" + re.escape(stamp.SHELL_SLUG)
                      + r"/</loc>.*?</url>", text, re.DOTALL)
    if entry is None:
        return
    template = entry.group(0)
    entries = "".join(template.replace(stamp.SHELL_SLUG, slug) for slug in sorted(slugs))
    text = text[:entry.start()] + entries + text[entry.end():]
    sitemap.write_text(text, encoding="utf-8")
    with gzip.GzipFile(output / "sitemap.xml.gz", "wb", mtime=0) as packed:
        packed.write(text.encode("utf-8"))


def _move_in(output: Path, site: Path) -> None:
    """Move every file of ``output`` over its place in ``site`` (new inodes: never a
    write through a hard link into the previous build)."""
    for folder, _, names in os.walk(output):
        relative = os.path.relpath(folder, output)
        target = site if relative == "." else site / relative
        for name in names:
            move_into(Path(folder, name), target / name)

