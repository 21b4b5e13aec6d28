"""What a skill's vector is made from: its name, title, description, intents and the
sections that say when to use it, as one text."""
from __future__ import annotations

import re
from collections.abc import Iterable

#: A section whose heading says when the skill applies.
WHEN_HEADING = re.compile(r"\b(when to|use (it |this )?when|use cases?|triggers?|usage)\b",
                          re.IGNORECASE)
SECTION_CHARS = 600
TEXT_CHARS = 2000


def semantic_text(name: str, title: str, description: str, intents: Iterable[str],
                  sections: Iterable[tuple[str, str]]) -> str:
    """The text a skill is embedded from. ``name`` is the skill's own name (not its id);
    ``sections`` are (heading, text) pairs, of which only the when-to-use ones count."""
    words = re.sub(r"[-_:.]+", " ", name)
    parts = [words, title if title.casefold() != name.casefold() else "", description,
             *intents]
    parts += [text[:SECTION_CHARS] for heading, text in sections
              if WHEN_HEADING.search(heading)]
    return "\n".join(part.strip() for part in parts if part and part.strip())[:TEXT_CHARS]
