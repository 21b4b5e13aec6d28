"""``prompt`` and, for the MCP server, files, front matter and names, of
:class:`~skillsite.reader.library.Library`."""
from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from skillsite.reader import results
from skillsite.reader.artifacts import Artifacts
from skillsite.reader.budget import Budget
from skillsite.reader.errors import ReaderError
from skillsite.reader.finder import Finder
from skillsite.reader.shelf import Shelf, StoredSkill
from skillsite.reader.views import clamp, cursor_after, page_start

#: The ``prompt`` budget when every skill is asked for (about Claude Code's listing cap).
DEFAULT_PROMPT_CHARS = 8000


class Serving:
    """The serving half of the Library (a mixin: the Library sets these attributes)."""

    artifacts: Artifacts
    budget: Budget
    _shelf: Shelf
    _finder: Finder

    def _skill(self, ref: object) -> StoredSkill:
        raise NotImplementedError

    def _refuse_in_safe_mode(self, operation: str) -> None:
        raise NotImplementedError

    def _charge(self, name: str, chars: int) -> None:
        raise NotImplementedError

    def prompt(self, refs: Sequence[str] | None = None, style: str = "xml",
               max_chars: int | None = None, *, location_root: str | None = None) -> results.Prompt:
        """The skills block of a system prompt: ``xml`` as skills-ref's ``to-prompt``,
        ``markdown`` as Flux's ``build_skills_preamble``. ``refs`` default to every skill,
        then within :data:`DEFAULT_PROMPT_CHARS` unless ``max_chars`` says otherwise;
        whole skills only, and ``omitted`` names those left out. ``location_root`` is
        joined to each skill's path for ``<location>`` (default: the path in the corpus)."""
        from skillsite.reader.prompting import STYLES, render

        self._refuse_in_safe_mode("prompt")
        if style not in STYLES:
            raise ReaderError("invalid-argument", f"style must be one of {', '.join(STYLES)}")
        if max_chars is not None:
            max_chars = clamp(max_chars, 1, 10_000_000, "max_chars")
        if refs is None:
            entries = self._catalog()
            max_chars = DEFAULT_PROMPT_CHARS if max_chars is None else max_chars
        else:
            skills = [self._skill(ref) for ref in refs]
            entries = [(s.name, s.description, s.path) for s in skills]
        root = location_root
        listed = [(name, description, os.path.join(root, path) if root else path)
                  for name, description, path in entries]
        text, included, omitted = render(style, listed, max_chars)
        return results.Prompt(style, text, len(text), tuple(included), tuple(omitted))

    # -- for the MCP server: files, front matter and names ---------------------------

    def skill_file(self, name: str, path: str = "SKILL.md") -> bytes:
        """The bytes of a skill's file: ``SKILL.md`` verbatim (or a generated SKILL.md
        view for ``.skill.toml``, ``skill.json`` and Mini-A skills), its own file by name,
        or a supporting file by its path relative to the skill's folder. Counts against
        the Library's budgets."""
        self._refuse_in_safe_mode("skill_file")
        skill = self._skill(name)
        data = _files().file_bytes(self._shelf, skill, path)
        size = len(data)
        if self.budget.allowance(skill.name, size) < size:
            raise ReaderError("budget-exceeded", f"{skill.name}/{path} has {size} bytes, more "
                              "than this session's character budget has left",
                              budget="characters", used=self.budget.served,
                              limit=self.budget.max_chars)
        self._charge(skill.name, size)
        return data

    def has_skill(self, skill_id: str) -> bool:
        """Whether ``dist/`` holds a skill with exactly this id (no bare-name lookup)."""
        return self._shelf.get(skill_id) is not None

    def skill_files(self, name: str) -> list[results.FileInfo]:
        """Every file of the skill (path relative to its folder, size, sha256)."""
        self._refuse_in_safe_mode("skill_files")
        return _files().file_list(self._shelf, self._skill(name))

    def front_matter(self, name: str) -> str:
        """The skill's front matter exactly as written (a manifest's whole text)."""
        self._refuse_in_safe_mode("front_matter")
        return _files().front_matter(self._shelf, self._skill(name))

    def front_matter_data(self, name: str) -> dict[str, Any]:
        """The front matter of the SKILL.md :meth:`skill_file` serves, as a JSON object
        (the build's parse, kept in dist/): a generated view's is its name and description.
        """
        self._refuse_in_safe_mode("front_matter_data")
        skill = self._skill(name)
        if skill.format != "skill-md":
            return {"name": skill.meta.get("name", skill.name), "description": skill.description}
        return dict(skill.meta.get("metadata") or {})

    def names(self, cursor: str | None = None, limit: int = 100) -> results.NamePage:
        """Skill names A-Z, ``limit`` (1-1000) at a time; pass back ``cursor``."""
        self._refuse_in_safe_mode("names")
        limit = clamp(limit, 1, 1000, "limit")
        every = self._finder.names()
        start = page_start(every, cursor)
        page = every[start:start + limit]
        more = start + limit < len(every)
        return results.NamePage(tuple(page), len(every), cursor_after(page[-1]) if more else None)

    def _catalog(self) -> list[tuple[str, str, str]]:
        import json

        path = self.artifacts.require("catalog.json")
        try:
            skills = json.loads(path.read_bytes())["skills"]
            entries = [(s["name"], s["description"], s["path"]) for s in skills]
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise self.artifacts.damaged("catalog.json", f"cannot be read ({error})") from None
        return sorted(entries)




def _files() -> Any:
    from skillsite.reader import files

    return files
