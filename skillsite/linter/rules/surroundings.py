"""What the files around a skill say about its files: the uses ``orphan-file`` cannot see
inside the skill's folder.

An agent also reads instructions that live outside a skill: the repository's or the
plugin's instruction files (``GEMINI.md`` includes ``@./skills/x/references/tools.md``),
a Claude Code plugin's agents and commands (``{baseDir}/references/ir-analysis.md``) and
the skill's sibling skills (``../x/references/tools.md``). Each of those texts is read once
per run, only for a skill that has a file its own folder never mentions. Skills are
untrusted: only regular files inside the corpus root are read, up to the size cap, and
only a bounded number of them.
"""
from __future__ import annotations

import os

from skillsite.linter.capped import read_capped
from skillsite.linter.links import folder_of
from skillsite.linter.rules.context import Context
from skillsite.models import Document

#: A repository's or a plugin's instruction files, read by the agents of several clients.
INSTRUCTION_FILES = ("CLAUDE.md", "GEMINI.md", "AGENTS.md", ".github/copilot-instructions.md")
#: A Claude Code plugin's folders of agents and commands.
PLUGIN_FOLDERS = ("agents", "commands")
#: How many files of one folder are read at most (sibling skills, agents, commands).
MAX_FILES = 1000


def outside_texts(doc: Document, ctx: Context) -> str:
    """The texts around the skill of ``doc`` that may name its files, joined."""
    return doc.memo("surroundings", lambda: "\n".join(_texts(doc, ctx)))


def _texts(doc: Document, ctx: Context) -> list[str]:
    root = os.path.abspath(doc.source.root)
    real_root = str(ctx.real_root(doc))
    folder = folder_of(doc)
    parent = os.path.dirname(folder)
    plugin = ctx.namespace_of(doc).plugin_folder if ctx.namespace_of(doc).plugin else None
    places = [root] + ([os.path.join(root, plugin)] if plugin else [])
    paths = [os.path.join(place, name) for place in dict.fromkeys(places)
             for name in INSTRUCTION_FILES]
    found = [_cached(ctx, path, real_root) for path in paths]
    if plugin is not None:
        for name in PLUGIN_FOLDERS:
            found.append(_folder_texts(ctx, os.path.join(root, plugin, name), real_root))
    if parent.startswith(root + os.sep) or parent == root:
        found.append(_sibling_skills(ctx, parent, folder, real_root))
    return [text for text in found if text]


def _sibling_skills(ctx: Context, parent: str, own: str, real_root: str) -> str:
    key = f"siblings:{parent}"
    if key not in ctx.texts:
        texts = []
        for entry in _entries(parent):
            if entry.is_dir(follow_symlinks=False):
                texts.append(_read(os.path.join(entry.path, "SKILL.md"), real_root,
                                   ctx.config.max_file_size))
        ctx.texts[key] = "\n".join(t for t in texts if t)
    # The skill's own SKILL.md is among them: its mentions were counted already.
    return ctx.texts[key]


def _folder_texts(ctx: Context, folder: str, real_root: str) -> str:
    key = f"folder:{folder}"
    if key not in ctx.texts:
        ctx.texts[key] = "\n".join(
            _read(entry.path, real_root, ctx.config.max_file_size) for entry in _entries(folder)
            if entry.name.endswith(".md") and entry.is_file(follow_symlinks=False))
    return ctx.texts[key]


def _cached(ctx: Context, path: str, real_root: str) -> str:
    key = f"file:{path}"
    if key not in ctx.texts:
        ctx.texts[key] = _read(path, real_root, ctx.config.max_file_size)
    return ctx.texts[key]


def _entries(folder: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as listing:
            return sorted(listing, key=lambda entry: entry.name)[:MAX_FILES]
    except OSError:
        return []


def _read(path: str, real_root: str, cap: int) -> str:
    """The file's text, or "" when it is missing, outside the root, too large or binary."""
    real = os.path.realpath(path)
    if not real.startswith(real_root + os.sep):
        return ""
    try:
        raw = read_capped(real, cap)
    except OSError:
        return ""
    if len(raw) > cap or b"\0" in raw[:8192]:
        return ""
    return raw.decode("utf-8", "replace")
