"""A SKILL.md for skills that are not one (``.skill.toml``, ``skill.json``, Mini-A pages),
so the discovery index can serve every skill the same way. docs/site.md ("Discovery index
for agents") lists how each field maps.
"""
from __future__ import annotations

import json
from typing import Any

from skillsite.site.data import SiteSkill

#: (source field, metadata key) per format; the value is written as a string.
FIELD_MAP: dict[str, tuple[tuple[str, str], ...]] = {
    "skill-toml": (("version", "version"), ("skill_type", "skill-type"),
                   ("author", "author"), ("domains", "tags"), ("requires", "requires")),
    "skill-json": (("class", "class"), ("entry", "entry"),
                   ("timeout_seconds", "timeout-seconds"), ("env_allow", "env-allow"),
                   ("category", "tags")),
    "virtual": (("version", "version"), ("tags", "tags"), ("risk", "risk"),
                ("trust", "trust"), ("intents", "intents"), ("intent", "intents"),
                ("applies_to", "applies-to"), ("requires", "requires"),
                ("depends_on", "depends-on"), ("dependsOn", "depends-on"),
                ("dependencies", "depends-on"), ("id", "id")),
}


def generated_skill_md(skill: SiteSkill, body: str) -> bytes:
    """The generated SKILL.md: the spec's front matter, then the skill's body."""
    data = skill.metadata
    metadata: dict[str, str] = {}
    for field, key in FIELD_MAP.get(skill.format, ()):
        if field in data and key not in metadata:
            metadata[key] = _as_string(data[field])
    metadata["source"] = skill.path
    metadata["source-format"] = skill.format
    metadata["source-sha256"] = skill.sha256
    lines = ["---", f"name: {json.dumps(skill.name)}",
             f"description: {json.dumps(skill.description, ensure_ascii=False)}"]
    compatibility = data.get("compatibility")
    if compatibility is not None:
        text = _as_string(compatibility)
        if 0 < len(text) <= 500:
            lines.append(f"compatibility: {json.dumps(text, ensure_ascii=False)}")
    lines.append("metadata:")
    lines += [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}"
              for k, v in sorted(metadata.items())]
    lines += ["---", "", body.strip(), ""]
    return "\n".join(lines).encode("utf-8")


def _as_string(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return " ".join(str(v) for v in value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
