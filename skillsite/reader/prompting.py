"""``prompt``: the skills block of a system prompt, in two established formats.

- ``xml`` is byte-identical to skills-ref's ``to-prompt`` (``skills_ref.prompt.to_prompt``):
  multi-line tags, ``html.escape`` on the name and the description (both stripped, as
  skills-ref reads them), and each skill's file as its ``<location>``.
- ``markdown`` is byte-identical to Flux's ``build_skills_preamble``
  (edurdias/flux, ``flux/tasks/ai/skills.py``), em dash included.

A ``max_chars`` budget keeps whole skills only: a description is never cut, and the
skills that did not fit are named in :attr:`~skillsite.reader.results.Prompt.omitted`.
"""
from __future__ import annotations

import html
from collections.abc import Sequence

STYLES = ("xml", "markdown")
FLUX_HEADER = (
    "\n\n## Skills",
    "",
    "You have skills available. To activate a skill, call the `use_skill` "
    "tool with the skill name. The skill returns detailed instructions "
    "for completing the task \u2014 follow them using your available tools.",
    "",
    "Available skills:",
)


def render(style: str, skills: Sequence[tuple[str, str, str]],
           max_chars: int | None) -> tuple[str, list[str], list[str]]:
    """The prompt for (name, description, location) ``skills``; returns the text, the
    names included and the names left out to stay within ``max_chars``."""
    if style == "xml":
        head, tail, entry = ["<available_skills>"], ["</available_skills>"], _xml
    else:
        head, tail, entry = list(FLUX_HEADER), [], _markdown
    lines = list(head)
    size = len("\n".join(head + tail))
    included: list[str] = []
    omitted: list[str] = []
    for name, description, location in skills:
        block = entry(name, description, location)
        cost = len("\n".join(block)) + 1
        if max_chars is not None and (omitted or size + cost > max_chars):
            omitted.append(name)
            continue
        lines += block
        size += cost
        included.append(name)
    return "\n".join(lines + tail), included, omitted


def _xml(name: str, description: str, location: str) -> list[str]:
    return ["<skill>", "<name>", html.escape(name.strip()), "</name>", "<description>",
            html.escape(description.strip()), "</description>", "<location>", location,
            "</location>", "</skill>"]


def _markdown(name: str, description: str, location: str) -> list[str]:
    return [f"- {name}: {description}"]
