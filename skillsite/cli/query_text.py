"""Readable text for the query commands' results (``--json`` prints ``to_dict()``)."""
from __future__ import annotations

from typing import Any


def render(result: Any) -> str:
    """The text of one reader result, chosen by its type."""
    return _RENDERERS[type(result).__name__](result)


def _search(result: Any) -> str:
    refused = [f"(not searched: {problem['message']})" for problem in result.refused]
    if not result.results:
        return "\n".join([*refused, "No skills match." if not result.browse
                          else "dist/ holds no skills."])
    lines = []
    for number, hit in enumerate(result.results, 1):
        halves = f"; via {' + '.join(hit.via)}" if result.semantic else ""
        score = ("" if result.browse
                 else f"  ({hit.score:g}; {', '.join(hit.matched)}{halves})")
        lines.append(f"{number:2}. {_key(hit)} [{hit.format}]{score}")
        lines.append(f"    {hit.description}")
    if result.merged_by == "rank":
        lines.append("(a library ranked by meaning, so the libraries are merged by rank: "
                     "each score is 1 / (60 + the rank in its library))")
    return "\n".join(lines + refused)


def _key(hit: Any) -> str:
    """How a result names its skill: its ref with the library prefix when there are
    several libraries, else its id."""
    return str(hit.ref if hit.library else hit.id)


def _open(info: Any) -> str:
    lines = [f"{_key(info)}: {info.title}",
             f"  {info.description}", ""]
    for label, value in (("format", info.format), ("path", info.path),
                         ("version", info.version), ("tags", ", ".join(info.tags)),
                         ("applies to", ", ".join(info.applies_to)),
                         ("compatibility", info.compatibility), ("risk", info.risk),
                         ("depends on", ", ".join(info.depends_on)),
                         ("plugin", info.plugin), ("collection", info.collection),
                         ("source", info.source_url), ("changed", info.changed),
                         ("same content as", ", ".join(info.copies))):
        if value:
            lines.append(f"  {label}: {value}")
    lines += ["", f"Sections ({info.chars} characters, {info.lines} lines):"]
    for heading in info.headings:
        indent = "  " * max(heading.level - 1, 0)
        title = heading.heading or "(before the first heading)"
        lines.append(f"  {heading.index:2}. {indent}{title}  [lines {heading.start_line}-"
                     f"{heading.end_line}, {heading.chars} chars]")
    for label, values in (("Files", info.files), ("Links", info.links)):
        if values:
            lines += ["", f"{label}:", *(f"  {value}" for value in values)]
    if info.errors:
        lines += ["", "Errors (published with them):",
                  *(f"  {e.line}:{e.column} {e.rule} {e.message}" for e in info.errors)]
    if info.warnings:
        lines += ["", "Warnings:", *(f"  {w.line}:{w.column} {w.rule} {w.message}"
                                     for w in info.warnings)]
    return "\n".join(lines)


def _passage(passage: Any) -> str:
    text = passage.text
    if passage.front_matter_lines:
        first, last = passage.front_matter_lines
        span = f"line {first} is" if first == last else f"lines {first}-{last} are"
        text += (f"\n\n({span} the front matter, shown blank here; `skillsite open "
                 f"{_key(passage)}` shows its fields)")
    if passage.references:
        text += "\n\nFiles it refers to ({baseDir} is the skill's folder):"
        for reference in passage.references:
            how = (f"skillsite read {_key(passage)} --file {reference.path}" if reference.exists
                   else "not in dist/")
            text += f"\n  {reference.text}  ->  {how}"
    if passage.cursor:
        text += f"\n\n(cursor: {passage.cursor})"
    return text


def _resolved(result: Any) -> str:
    text = f"---\n{result.front_matter}---\n\n{result.template}"
    if result.cursor:
        text += f"\n\n(cursor: {result.cursor}; pass the same arguments with it)"
    return text


def _related(result: Any) -> str:
    if not result.results:
        return f"No skills are related to {_key(result)}."
    lines = [f"{_key(n)}  ({'; '.join(n.reasons)})\n    {n.description}"
             for n in result.results]
    return "\n".join(lines + [f"(not joined: {p['message']})" for p in result.refused])


def _composition(result: Any) -> str:
    lines = [f"{_key(c)}  {c.description}" for c in result.depends_on]
    if not lines:
        lines.append(f"{result.ref} declares no prerequisites that dist/ holds.")
    if result.truncated:
        lines.append("(more prerequisites than --limit)")
    lines += [f"unresolved: {ref}" for ref in result.unresolved]
    return "\n".join(lines)


def _context(context: Any) -> str:
    formats = ", ".join(f"{count} {kind}" for kind, count in sorted(context.formats.items()))
    tags = ", ".join(f"{t.tag} ({t.count})" for t in context.tags[:20])
    return "\n".join([
        f"{context.skills} skills ({formats}); index: {context.index_backend}",
        # with several libraries, each one's line says when it was built
        f"artifact {context.artifact_version}"
        + ("" if context.libraries else f", built {context.build_time}")
        + f" by skillsite {context.skillsite_version}",
        f"tags ({context.tags_total}): {tags or 'none'}",
        *(_library_line(library) for library in context.libraries), "", context.hint])


def _library_line(library: dict[str, Any]) -> str:
    if "error" in library:
        return f"library {library.get('library')}: REFUSED: {library['message']}"
    return (f"library {library['library']}: {library['skills']} skills, built "
            f"{library['build_time']}")


def _prompt(prompt: Any) -> str:
    if not prompt.omitted:
        return str(prompt.text)
    left = ", ".join(prompt.omitted[:10]) + (" ..." if len(prompt.omitted) > 10 else "")
    import click

    click.echo(f"Note: {len(prompt.omitted)} skills left out to stay within the budget: "
               f"{left}", err=True)
    return str(prompt.text)


_RENDERERS = {"SearchResult": _search, "SkillInfo": _open, "Passage": _passage,
              "Related": _related, "Composition": _composition, "Context": _context,
              "Prompt": _prompt, "Resolved": _resolved}
