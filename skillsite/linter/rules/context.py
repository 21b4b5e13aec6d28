"""What a document rule may look at besides the document itself."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillsite.config import Config
from skillsite.linter.links import folder_of
from skillsite.linter.namespaces import Namespace, Namespaces
from skillsite.models import Document


@dataclass(frozen=True)
class Context:
    config: Config
    #: The document rules to run on each format, worked out once per run from the
    #: configuration (``lint.rule_plan``) rather than for every document.
    plans: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    #: Namespaces by corpus root, worked out as files are met (see ``namespace_of``).
    namespaces: dict[str, Namespaces] = field(default_factory=dict, compare=False, repr=False)
    #: Namespaces by a document's root as the document names it (see ``namespace_of``).
    roots: dict[Path, Namespaces] = field(default_factory=dict, compare=False, repr=False)
    #: Texts around skills (instruction files, plugin agents, sibling skills) that rules
    #: read once per run (see ``rules.surroundings``).
    texts: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    #: The real path of each corpus root (see ``real_root``).
    real_roots: dict[str, Path] = field(default_factory=dict, compare=False, repr=False)
    #: Per rule ID, whether the rule runs under the configuration and the severity its
    #: findings get unless they name their own (``problems.make_problem``), worked out
    #: once per run rather than for every problem.
    levels: dict[str, tuple[bool, str | None, str]] = field(
        default_factory=dict, compare=False, repr=False)

    def namespaces_of(self, root: Path | str) -> Namespaces:
        key = os.path.abspath(root)
        found = self.namespaces.get(key)
        if found is None:
            found = self.namespaces[key] = Namespaces(key, self.config.collections)
        return found

    def _namespaces_of_root(self, root: Path) -> Namespaces:
        """:meth:`namespaces_of` a document's root (the same root object for every file
        of a check), without working out its absolute path for each document."""
        found = self.roots.get(root)
        if found is None:
            found = self.roots[root] = self.namespaces_of(root)
        return found

    def namespace_of(self, doc: Document) -> Namespace:
        """The plugin and collection of ``doc`` (see :mod:`skillsite.linter.namespaces`)."""
        found: Namespace | None = doc.derived.get("namespace")
        if found is None:
            found = doc.derived["namespace"] = self._namespace(doc)
        return found

    def _namespace(self, doc: Document) -> Namespace:
        tree = doc.source.tree  # a SKILL.md's folders as discovery listed them
        names = [name for name, _ in tree[""]] if tree else None
        # The file's absolute folder, as links.folder_of works it out once per document.
        return self._namespaces_of_root(doc.source.root).of_folder(folder_of(doc), names)

    def real_root(self, doc: Document) -> Path:
        """The real path of the document's corpus root, worked out once per root."""
        root = str(doc.source.root)
        found = self.real_roots.get(root)
        if found is None:
            found = self.real_roots[root] = doc.source.root.resolve()
        return found


#: Front-matter fields only Claude Code defines. ``argument-hint``, ``user-invocable``,
#: ``disable-model-invocation`` and ``allowed-tools`` prove nothing: VS Code's and Copilot's
#: skills take them too.
CLAUDE_CODE_FIELDS = ("context", "agent", "hooks", "when_to_use")
#: Variables only Claude Code substitutes in a skill's body.
CLAUDE_CODE_VARIABLES = ("${CLAUDE_SKILL_DIR}", "${CLAUDE_PLUGIN_ROOT}")


def is_claude_code(doc: Document, ctx: Context) -> bool:
    """Whether the skill is established as Claude Code's, so that Claude Code's own lists
    (its tools, its model aliases) apply: it sits under a ``.claude`` folder
    (``.claude/skills/``), in a Claude Code plugin (``.claude-plugin/plugin.json``, or a
    local plugin of a ``.claude-plugin/marketplace.json``), or it uses what only Claude Code
    defines (a field of :data:`CLAUDE_CODE_FIELDS`, a variable of
    :data:`CLAUDE_CODE_VARIABLES`). A skill of another client (GitHub Copilot's
    ``.github/skills/``, a plain repository of skills) names that client's tools.
    """
    return doc.memo("claude-code", lambda: _claude_code(doc, ctx))


def _claude_code(doc: Document, ctx: Context) -> bool:
    data = doc.data or {}
    path = doc.source.path
    # A path whose text lacks ".claude" has no such part, without splitting it into parts.
    if (".claude" in str(path) and ".claude" in path.parts
            or (not data.keys().isdisjoint(CLAUDE_CODE_FIELDS) if isinstance(data, dict)
                else any(key in data for key in CLAUDE_CODE_FIELDS))):
        return True
    # Each variable starts with "$": one character, looked for at memchr speed, spares
    # most bodies two searches that read them whole.
    if "$" in doc.body and any(variable in doc.body for variable in CLAUDE_CODE_VARIABLES):
        return True
    return bool(ctx.namespace_of(doc).plugin)


def dialect(doc: Document) -> str:
    """``ongrid`` for an ongrid-native SKILL.md, ``mini-a`` for a Mini-A page, else
    ``agent-skills`` (which takes Claude Code's fields as its own).

    Only evidence no other dialect produces counts: ongrid's ``tools`` is a list of
    objects with an ``impl``, its ``activation`` a mapping with a ``mode``, its
    ``metadata.ongrid`` a mapping, and ``config_section`` is ongrid's alone; a Mini-A page
    says ``type: skill`` or ``schema: mini-a.skill/...``. A bare ``tools`` key proves
    nothing: Claude Code's ``tools`` is a string or a list of tool names.
    """
    found: str | None = doc.derived.get("dialect")
    if found is None:
        found = doc.derived["dialect"] = dialect_of_fields(doc.data or {})
    return found


def dialect_of_fields(data: dict[str, Any]) -> str:
    """:func:`dialect` of a SKILL.md whose front matter is ``data``."""
    if doc_is_mini_a(data):
        return "mini-a"
    tools, activation, metadata = data.get("tools"), data.get("activation"), data.get("metadata")
    if (isinstance(tools, list) and any(isinstance(t, dict) and "impl" in t for t in tools)
            or isinstance(activation, dict) and "mode" in activation
            or isinstance(metadata, dict) and isinstance(metadata.get("ongrid"), dict)
            or "config_section" in data):
        return "ongrid"
    return "agent-skills"


def doc_is_mini_a(data: dict[str, Any]) -> bool:
    kind, schema = data.get("type"), data.get("schema")
    return (isinstance(kind, str) and kind.strip().lower() == "skill"
            or isinstance(schema, str) and schema.startswith("mini-a.skill/"))


def text_field(doc: Document, key: str) -> str | None:
    value: Any = (doc.data or {}).get(key)
    return value if isinstance(value, str) else None
