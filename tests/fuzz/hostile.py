"""Generators of hostile corpora: names, tags and file names drawn from hostile alphabets,
and every kind of file (regular, FIFO, device, symlink to anything, non-UTF-8 name) in
every position of a skill (issue #20).

A drawn corpus is a list of :class:`Entry` written under a root; :func:`write_hostile`
also puts a secret beside the root (outside it), which no artifact may ever hold.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

SECRET = "OUTSIDE-SECRET-5e1c"
#: What shells, HTML, YAML, terminals and URLs make something of.
HOSTILE_PIECES = [
    "$(id)", "`id`", "; rm -rf ~", "| sh", "&&", "'", '"', "\\", "<script>", "</title>",
    "&amp;", "<!--", "Content-Security-Policy", "%00", "%2e%2e/", "../", "{{x}}", "${X}",
    "\u202e", "\u200b", "\u2028", "\x85", "\ufeff", "🚀", "𝕏", "\U000e0100", "é", "日本",
    " ", "-", "--", "#", ":", "*", "?", "[", "]", "~", "!", "\t",
]
_BASIC = "abcdefghijklmnopqrstuvwxyz0123456789-"
hostile_text = st.lists(st.one_of(st.sampled_from(HOSTILE_PIECES),
                                  st.text(_BASIC, min_size=1, max_size=6)),
                        min_size=1, max_size=6).map("".join)
#: File-name pieces: all of the above that a file name can hold, long runs, dots.
_NAME_PIECES = [p for p in HOSTILE_PIECES if "/" not in p and "\x00" not in p] + [
    "." * 3, "x" * 120, ".hidden", "SKILL.md", "index.html", "a.svg", "b.html"]
file_names = st.lists(st.sampled_from(_NAME_PIECES) | st.text(_BASIC, min_size=1, max_size=8),
                      min_size=1, max_size=4).map("".join).filter(
                          lambda n: n not in (".", "..") and len(n.encode()) < 250)
#: Where an entry goes in a skill's folder.
POSITIONS = ["", "scripts/", "refs/deep/", ".hidden/", "node_modules/", "nested/"]
#: What an entry is.
KINDS = ["file", "fifo", "device", "link-own", "link-other-skill", "link-hidden",
         "link-outside", "link-dangling", "link-loop", "link-folder", "non-utf8"]


@dataclass(frozen=True)
class Entry:
    skill: int
    position: str
    kind: str
    name: str


@dataclass(frozen=True)
class Hostile:
    names: list[str]
    tags: list[list[str]]
    entries: list[Entry]
    #: Whether the skill file itself is a Mini-A page (free-form names) or a SKILL.md.
    mini_a: list[bool]


@st.composite
def hostile_corpora(draw: st.DrawFn) -> Hostile:
    count = draw(st.integers(2, 4))
    names = draw(st.lists(hostile_text, min_size=count, max_size=count, unique=True))
    tags = [draw(st.lists(hostile_text, max_size=3)) for _ in names]
    entries = draw(st.lists(st.builds(Entry, st.integers(0, count - 1),
                                      st.sampled_from(POSITIONS), st.sampled_from(KINDS),
                                      file_names), max_size=8))
    mini_a = [draw(st.booleans()) for _ in names]
    return Hostile(names, tags, entries, mini_a)


def folder_of(index: int) -> str:
    return f"skill-{index}"


def write_hostile(tmp: Path, corpus: Hostile) -> Path:
    """Write ``corpus`` under ``tmp/corpus`` (the secret in ``tmp/outside``); the root."""
    root = tmp / "corpus"
    outside = tmp / "outside"
    outside.mkdir(parents=True, exist_ok=True)
    (outside / "secret.txt").write_text(SECRET)
    (root / ".hidden").mkdir(parents=True, exist_ok=True)
    (root / ".hidden" / "held.txt").write_text(SECRET + "-hidden")
    for index, (name, tags) in enumerate(zip(corpus.names, corpus.tags)):
        folder = root / folder_of(index)
        folder.mkdir(parents=True, exist_ok=True)
        front = (f"name: {json.dumps(name)}\ndescription: {json.dumps(name + ' helps.')}\n"
                 f"tags: {json.dumps(tags)}\n")
        if corpus.mini_a[index]:
            (root / f"page-{index}.md").write_text(f"---\ntype: skill\n{front}---\n# {index}\n",
                                                   encoding="utf-8")
        (folder / "SKILL.md").write_text(f"---\n{front}---\n# Skill {index}\n\nBody.\n",
                                         encoding="utf-8")
    (root / folder_of(0) / "nested" / "SKILL.md").parent.mkdir(exist_ok=True)
    for entry in corpus.entries:
        _place(root, outside, entry)
    return root


def _place(root: Path, outside: Path, entry: Entry) -> None:
    folder = root / folder_of(entry.skill) / entry.position
    folder.mkdir(parents=True, exist_ok=True)
    path = os.path.join(os.fsencode(folder), os.fsencode(entry.name))
    if os.path.lexists(path):
        return
    kind = entry.kind
    try:
        if kind == "file":
            Path(os.fsdecode(path)).write_bytes(b"plain file\n")
        elif kind == "fifo":
            os.mkfifo(path)
        elif kind == "device":
            os.mknod(path, 0o600 | 0o020000, os.makedev(1, 3))   # like /dev/null
        elif kind == "non-utf8":
            with open(path + b"\xff\xfe", "wb") as handle:
                handle.write(b"bytes\n")
        else:
            os.symlink(_target(root, outside, entry, path), path)
    except (PermissionError, OSError):
        pass   # a device needs root; a name too long for this file system


def _target(root: Path, outside: Path, entry: Entry, path: bytes) -> bytes | str:
    return {
        "link-own": str(root / folder_of(entry.skill) / "SKILL.md"),
        "link-other-skill": str(root / folder_of((entry.skill + 1) % 2) / "SKILL.md"),
        "link-hidden": str(root / ".hidden" / "held.txt"),
        "link-outside": str(outside / "secret.txt"),
        "link-dangling": str(root / "nothing-here"),
        "link-loop": path,
        "link-folder": str(outside),
    }[entry.kind]
