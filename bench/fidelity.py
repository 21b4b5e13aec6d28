"""How faithful a build is to the corpus it was built from (issue #19).

    python bench/fidelity.py CORPUS [CORPUS ...] [--workdir DIR] [--json]

For each corpus it builds ``dist/`` (with the site) in a scratch folder and prints:

- ``loadable``: the SKILL.md files a client would load, counted here without skillsite: a
  file named SKILL.md outside version-control and dependency folders whose YAML front
  matter is a
  mapping with a ``name`` string, or with no ``name`` (the folder's name stands in);
- how many of them reach the catalog, the search index, the content store and the site;
- the Claude Code plugins found, and the skills with a source link.

Every loadable skill must reach every artifact; the paths that do not are listed.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import tantivy
import yaml

from skillsite import Library, build

#: Version control and dependency folders: no client loads skills from them. Other hidden
#: folders count (openai/skills keeps its skills in ``skills/.curated``).
SKIPPED = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox"}


def loadable_skill_files(root: Path) -> list[str]:
    """SKILL.md files (relative to ``root``) that a client would load."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
        if "SKILL.md" in files and _loadable(Path(folder) / "SKILL.md"):
            found.append(os.path.relpath(os.path.join(folder, "SKILL.md"), root))
    return sorted(p.replace(os.sep, "/") for p in found)


def _loadable(path: Path) -> bool:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return False
    lines = text.replace("\r\n", "\n").split("\n")
    if not lines or lines[0].strip() != "---":
        return False
    try:
        end = next(i for i, line in enumerate(lines[1:], 1) if line.strip() == "---")
        data = yaml.safe_load("\n".join(lines[1:end]))
    except (StopIteration, yaml.YAMLError):
        return False
    return isinstance(data, dict) and (isinstance(data.get("name"), str) or "name" not in data)


def measure(corpus: Path, work: Path) -> dict[str, object]:
    dist = work / "dist"
    started = time.monotonic()
    result = build(corpus, dist, site=True, incremental=False)
    seconds = time.monotonic() - started
    loadable = loadable_skill_files(corpus)
    catalog = json.loads((dist / "catalog.json").read_text(encoding="utf-8"))
    by_path = {s["path"]: s for s in catalog["skills"]}
    library = Library(dist, max_skills=None, max_chars=None)
    stored = set(library.session().store.names())
    indexed = tantivy.Index.open(str(dist / "index")).searcher().num_docs
    pages = {p.name for p in (dist / "site" / "skills").iterdir() if p.is_dir()}
    from skillsite.site.data import slug_of

    in_catalog = [p for p in loadable if p in by_path]
    in_store = [p for p in in_catalog if by_path[p]["id"] in stored]
    in_site = [p for p in in_catalog if slug_of(by_path[p]["id"]) in pages]
    return {
        "corpus": corpus.name, "loadable": len(loadable), "catalog": len(in_catalog),
        "index": indexed, "content": len(in_store), "site": len(in_site),
        "catalog_total": len(catalog["skills"]), "plugins": len(catalog["plugins"]),
        "in_plugins": sum(1 for s in catalog["skills"] if s.get("plugin")),
        "with_errors": sum(1 for s in catalog["skills"] if s["problems"]["errors"]),
        "source_links": sum(1 for s in catalog["skills"] if s.get("source_url")),
        "missing": [p for p in loadable if p not in by_path][:10],
        "left_out": result.excluded[:10], "seconds": round(seconds, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="+", type=Path)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(dir=args.workdir) as scratch:
        for number, corpus in enumerate(args.corpora):
            work = Path(scratch) / str(number)
            work.mkdir()
            rows.append(measure(corpus.resolve(), work))
            print(f"built {corpus} in {rows[-1]['seconds']} s", file=sys.stderr)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    head = ("corpus", "loadable", "catalog", "index", "content", "site", "plugins",
            "in_plugins", "with_errors", "source_links")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in rows:
        print("| " + " | ".join(str(row[key]) for key in head) + " |")
    for row in rows:
        if row["missing"]:
            print(f"{row['corpus']}: loadable but not in the catalog: {row['missing']}")
    failed = [row["corpus"] for row in rows if row["catalog"] != row["loadable"]]
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
