"""Hostile names, tags and file names, and every kind of file in every position of a
skill, through ``check`` (every report format), ``build`` with the site, the reader and
every page (issue #20). Properties:

- nothing raises and no problem is an internal error; every problem is well located;
- the secret outside the corpus, and the one in a hidden folder, are in no byte of dist/
  (archives unpacked);
- every published page carries skillsite's policy ``<meta>`` first in ``<head>``, and has
  a title of its own;
- every file a skill publishes is a regular file that the skill lists;
- ``verify`` finds the dist/ whole.
"""
from __future__ import annotations

import io
import json
import re
import tarfile
import tempfile
from pathlib import Path

from fuzzkit import examples, tried
from hostile import SECRET, hostile_corpora, write_hostile
from hypothesis import Phase, given, settings

import skillsite
from skillsite.linter.rules import RULES
from skillsite.report import REPORTERS, render

_POLICY_FIRST = re.compile(r'<head><meta http-equiv="Content-Security-Policy" content="')
_TITLE = re.compile(r"<title>(.*?)</title>", re.DOTALL)


def _all_bytes(dist: Path) -> bytes:
    blobs = []
    for path in dist.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            blobs.append(data)
            if path.name.endswith(".tar.gz"):
                with tarfile.open(fileobj=io.BytesIO(data)) as tar:
                    blobs += [tar.extractfile(m).read() for m in tar.getmembers()
                              if m.isfile()]
    return b"\n".join(blobs)


def _check_pages(site: Path) -> None:
    for page in site.rglob("*.html"):
        html = page.read_text("utf-8")
        assert _POLICY_FIRST.search(html[:4096]), page
        title = _TITLE.search(html)
        assert title is not None and title.group(1).strip() not in ("", "Index"), page


# Without shrinking: a build with the site per example makes shrinking take many minutes.
@settings(examples(6), phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(hostile_corpora())
def test_hostile_corpora_build_check_and_publish_safely(corpus) -> None:
    tried("hostile names, tags, file names and kinds: check, build, site, reader")
    with tempfile.TemporaryDirectory() as tmp:
        root = write_hostile(Path(tmp), corpus)
        checked = skillsite.check([root], base=root, jobs=1)
        assert not [p for p in checked.problems if p.rule == "internal-error"], checked.problems
        for fmt in REPORTERS:
            render(fmt, checked, rules=RULES)
        dist = Path(tmp) / "dist"
        result = skillsite.build(root, dist, jobs=1, site=True)
        assert not [p for p in result.problems if p.rule == "internal-error"], result.problems
        assert SECRET.encode() not in _all_bytes(dist)
        _check_pages(dist / "site")
        library = skillsite.Library(dist, max_chars=None, max_skills=None)
        assert library.verify() == []
        catalog = json.loads((dist / "catalog.json").read_text("utf-8"))["skills"]
        assert len(catalog) == result.included
        # A name that is all white space (U+0085) cannot be asked for: the reader strips
        # what it is asked.
        for record in (r for r in catalog if r["name"].strip() == r["name"]):
            for info in library.skill_files(record["name"]):
                data = library.skill_file(record["name"], info.path)
                assert SECRET.encode() not in data
