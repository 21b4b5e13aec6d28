"""One skill's page, as Markdown with HTML blocks: badges, description, metadata table,
"use it" box, trust flags, lint warnings, the rendered body, files, dependencies, the
neighbourhood graph and the source."""
from __future__ import annotations

import json
import shlex
from dataclasses import dataclass

from skillsite.site.data import SiteSkill
from skillsite.site.discovery import publishable
from skillsite.site.markup import badge, block, front_matter, heading, href, link, table, value_html
from skillsite.site.neighbourhood import mermaid, neighbours
from skillsite.site.render import Part
from skillsite.site.sanitize import text
from skillsite.site.trust import Flag

#: Front-matter keys shown as rows of their own above the rest of the metadata.
_SHOWN_FIRST = ("name", "description", "version", "license", "compatibility", "tags")


@dataclass(frozen=True)
class PageContext:
    """What a skill page needs besides the skill: other slugs, published files, the
    discovery artifact and where the corpus came from."""

    slugs: dict[str, str]          # skill name -> slug
    files: dict[str, str]          # corpus-relative supporting file -> URL from the page
    artifact: str                  # the discovery artifact's URL, relative to the site
    repository: str = ""
    commit: str = ""


def skill_page(skill: SiteSkill, parts: list[Part], flags: list[Flag],
               context: PageContext) -> str:
    here = f"skills/{skill.slug}"
    pieces = [front_matter(skill.name), heading(1, skill.title or skill.name),
              block(_badges(skill, flags), "skillsite-badges"),
              block(f'<p class="skillsite-description">{text(skill.description)}</p>'),
              block(_metadata(skill), "skillsite-meta"),
              heading(2, "Use it"), block(_use_it(skill, context), "skillsite-use")]
    if skill.trust:
        pieces += [heading(2, "Trust"), block(_trust(skill, flags), "skillsite-flags")]
    if skill.problems:
        pieces += [heading(2, "Lint warnings"), block(_problems(skill), "skillsite-problems")]
    for part in parts:
        if part.heading:
            pieces.append(heading(min(6, max(2, part.level)), part.heading))
        if part.html.strip():
            pieces.append(block(part.html, "skillsite-body"))
    pieces += _files(skill, context)
    pieces += _relations(skill, context.slugs, here)
    pieces += [heading(2, "Source"), block(_source(skill, context), "skillsite-source")]
    return "\n".join(pieces)


def _badges(skill: SiteSkill, flags: list[Flag]) -> str:
    data = skill.metadata
    badges = [badge("format", skill.format), badge("dialect", skill.dialect),
              badge("risk", data.get("risk") or "unrated"),
              badge("trust", skill.level if skill.trust else "not assessed"),
              badge("class", data.get("class") or data.get("skill_type") or "n/a")]
    badges += [badge("tag", tag) for tag in skill.tags]
    return " ".join(badges)


def _metadata(skill: SiteSkill) -> str:
    data = skill.metadata
    rows = [[text(key), value_html(data[key])] for key in _SHOWN_FIRST if key in data]
    rows += [[text(key), value_html(data[key])] for key in sorted(data)
             if key not in _SHOWN_FIRST]
    if "name" not in data:
        rows.insert(0, ["name", text(skill.name)])
    return table(("field", "value"), rows)


def _use_it(skill: SiteSkill, context: PageContext) -> str:
    """Commands to copy. Every value in a shell command is shell-quoted (and then
    HTML-escaped); install commands are offered only for a name a client can invoke."""
    quoted = text(shlex.quote(skill.name))
    base = '<span class="skillsite-base">https://your-site.example/</span>'
    call = {"method": "tools/call", "params": {"name": "read",
                                               "arguments": {"ref": skill.name}}}
    commands = [("skillsite", f"skillsite read {quoted}"),
                ("MCP", text(json.dumps(call, ensure_ascii=False)))]
    if publishable(skill.name):
        artifact = f"{base}{text(context.artifact)}"
        for client, folder in (("Claude Code", "~/.claude/skills"), ("Codex", "~/.codex/skills")):
            commands.append((client, f"mkdir -p {folder}/{quoted} && cd {folder}/{quoted} "
                                     f"&& {_fetch(context, artifact)}"))
        commands.append(("skills CLI", f"npx skills add {base} --skill {quoted}"))
    shown = "\n".join(f"<p>{text(label)}</p>\n<pre><code>{command}</code></pre>"
                      for label, command in commands)
    if not publishable(skill.name):
        shown += ("\n<p>No install command: a client can only invoke a skill whose name is "
                  "lowercase letters, digits and single hyphens (at most 64).</p>")
    return shown


def _fetch(context: PageContext, artifact: str) -> str:
    if context.artifact.endswith(".tar.gz"):
        return f"curl -fsSL {artifact} | tar -xz"
    return f"curl -fsSLO {artifact}"


def _trust(skill: SiteSkill, flags: list[Flag]) -> str:
    """The level with its sentence and evidence (and the site's own security flags, such
    as a name a shell interprets), then the capabilities (information, never flags)."""
    trust = skill.trust
    html = f"<p><strong>{text(skill.level)}</strong>: {text(str(trust.get('summary', '')))}</p>"
    reasons = list(trust.get("reasons", ()))
    known = {(r.get("rule"), r.get("path"), r.get("line")) for r in reasons}
    reasons += [{"rule": f.rule, "path": f.path, "line": f.line, "message": f.detail}
                for f in flags if f.kind == "security" and (f.rule, f.path, f.line) not in known]
    rows = [[f"<code>{text(str(r.get('rule')))}</code>",
             f"<code>{text(str(r.get('path')))}:{text(str(r.get('line')))}</code>",
             text(str(r.get("message", "")))] for r in reasons]
    if rows:
        html += table(("rule", "where", "evidence"), rows)
    caps = trust.get("capabilities") or {}
    scripts = caps.get("scripts") or {}
    items = [f"scripts: {scripts.get('count', 0)} ({', '.join(scripts.get('languages', ()))})"
             if scripts.get("count") else "scripts: none",
             "network at run time: " + (", ".join(caps.get("network", ())) or "none"),
             "writes files: " + ("yes" if caps.get("writes_files") else "no"),
             "credentials: " + (", ".join(caps.get("credentials", ())) or "none"),
             "allowed-tools: " + (" ".join(caps.get("allowed_tools", ())) or "not declared")]
    return html + "<p>Capabilities (what it can do; not flags):</p><ul>" + "".join(
        f"<li>{text(item)}</li>" for item in items) + "</ul>"


def _problems(skill: SiteSkill) -> str:
    rows = [[text(p.severity), f"<code>{text(p.rule)}</code>",
             f"<code>{text(p.path)}:{p.line}:{p.column}</code>", text(p.message)]
            for p in skill.problems]
    return table(("severity", "rule", "where", "message"), rows)


def _files(skill: SiteSkill, context: PageContext) -> list[str]:
    own = [(path, context.files[path]) for path in skill.files if path in context.files]
    if not own:
        return []
    start = len(skill.folder) + 1 if skill.folder else 0
    items = "\n".join(f"<li>{link(url, path[start:])}</li>" for path, url in own)
    return [heading(2, "Supporting files"), block(f"<ul>\n{items}\n</ul>",
                                                  "skillsite-files")]


def _relations(skill: SiteSkill, slugs: dict[str, str], here: str) -> list[str]:
    groups = [("Depends on", skill.depends_on), ("Needed by", skill.dependents),
              ("Links to", skill.links_to), ("Linked from", skill.linked_from),
              ("Related (shared tags)", skill.related)]
    lines = []
    for label, names in groups:
        if names:
            links = ", ".join(link(href(here, f"skills/{slugs[n]}"), n) for n in names
                              if n in slugs)
            lines.append(f'<p class="skillsite-rel"><strong>{text(label)}:</strong> '
                         f"{links}</p>")
    if skill.unresolved:
        missing = ", ".join(f"<code>{text(ref)}</code>" for ref in skill.unresolved)
        lines.append(f"<p><strong>Unresolved dependencies:</strong> {missing}</p>")
    if not lines:
        return []
    pieces = [heading(2, "Dependencies and related skills"),
              block("\n".join(lines), "skillsite-relations")]
    graph = mermaid(skill)
    if graph and neighbours(skill):
        pieces.append(block(f'<pre class="skillsite-graph">{graph}</pre>',
                            "skillsite-graph-box"))
    return pieces


def _source(skill: SiteSkill, context: PageContext) -> str:
    rows = [["path", f"<code>{text(skill.path)}</code>"],
            ["sha256", f"<code>{text(skill.sha256)}</code>"]]
    if skill.source_url and skill.source_url.startswith("https://"):
        rows.append(["source", link(skill.source_url, "the file at the built commit")])
    if skill.plugin:
        rows.append(["plugin", f"<code>{text(skill.plugin)}</code>"])
    if skill.collection:
        rows.append(["collection", f"<code>{text(skill.collection)}</code>"])
    if skill.copies:
        rows.append(["same content as", ", ".join(f"<code>{text(c)}</code>"
                                                  for c in skill.copies)])
    if context.repository:
        rows.append(["repository", text(context.repository)])
    if context.commit:
        rows.append(["commit", f"<code>{text(context.commit)}</code>"])
    return table(("", ""), rows)
