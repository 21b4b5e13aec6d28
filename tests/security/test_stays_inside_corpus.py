"""No path outside the corpus is read: symlinks out (files, folders, a FIFO), ``../``
and absolute links, escaping ``entry`` paths.

Outside the corpus lies a file with a unique secret and a FIFO. The secret must not reach
any output or artifact, and a read of the FIFO would block (the run's time limit fails the
test); each escape is reported with its rule.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from secutil import every_byte, skillsite, write

SECRET = "OUTSIDE-SECRET-7f3c1e"


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    write(outside, {
        "secret.md": f"---\ntype: skill\nname: outside\ndescription: {SECRET}\n---\n{SECRET}\n",
        "SKILL.md": f"---\nname: outside\ndescription: {SECRET}\n---\n{SECRET}\n",
        "run.sh": f"#!/bin/sh\necho {SECRET}\n",
        "refs/REF.md": f"{SECRET}\n",
    })
    os.mkfifo(outside / "fifo.md")
    return outside


def _corpus(root: Path, outside: Path) -> Path:
    write(root, {
        "skills/links/SKILL.md": (
            "---\nname: links\ndescription: Links out. Use when testing.\n---\n"
            f"[up](../../../outside/secret.md) [abs]({outside}/secret.md) "
            "[fifo](references/fifo.md) [dir](refs/REF.md)\n"),
        "ongrid/escape/skill.json": json.dumps({
            "name": "escape", "description": "Escapes.", "entry": "../../../outside/run.sh"}),
        "ongrid/linked/skill.json": json.dumps({
            "name": "linked", "description": "Linked entry.", "entry": "run.sh"}),
    })
    links = {
        "skills/links/references/fifo.md": outside / "fifo.md",
        "skills/links/refs": outside / "refs",
        "skills/symlinked/SKILL.md": outside / "SKILL.md",
        "skills/fifo/SKILL.md": outside / "fifo.md",
        "skills/folder": outside,
        "wiki/page.md": outside / "secret.md",
        "ongrid/linked/run.sh": outside / "run.sh",
    }
    for rel, target in links.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, root / rel)
    return root


def test_nothing_outside_is_read(tmp_path: Path) -> None:
    outside = _outside(tmp_path)
    corpus = _corpus(tmp_path / "corpus", outside)
    checked = skillsite("check", ".", "--format", "json", cwd=corpus, timeout=60)
    dist = tmp_path / "dist"
    built = skillsite("build", ".", "-o", str(dist), cwd=corpus, timeout=60)
    assert built.returncode == 0, built.stderr
    for output in (checked.stdout, checked.stderr, built.stdout, built.stderr):
        assert SECRET not in output
    assert SECRET.encode() not in every_byte(dist)
    found = {(p["path"], p["rule"]) for p in json.loads(checked.stdout)["problems"]}
    for path, rule in [("skills/symlinked/SKILL.md", "symlink-escape"),
                       ("skills/fifo/SKILL.md", "symlink-escape"),
                       ("skills/folder", "symlink-escape"),
                       ("wiki/page.md", "symlink-escape"),
                       ("ongrid/escape/skill.json", "entry-escapes-root"),
                       ("ongrid/linked/skill.json", "entry-escapes-root"),
                       ("skills/links/SKILL.md", "link-escapes-root")]:
        assert (path, rule) in found, (path, rule, sorted(found))
