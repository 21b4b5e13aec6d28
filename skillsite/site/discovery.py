"""``/.well-known/agent-skills/index.json``, per the Agent Skills Discovery RFC v0.2.0.

Every skill whose name the RFC accepts is listed with ``name``, ``type``, ``description``,
``url`` (relative to the index) and ``digest`` (``sha256:`` and 64 lowercase hex digits over
the served bytes). A skill that is only a SKILL.md is served as that file (``skill-md``);
one with supporting files as a ``.tar.gz`` with SKILL.md at its root (``archive``).
Skills in other formats are served as a generated SKILL.md (:mod:`skillsite.site.skill_md`).
Archives are reproducible: sorted entries, fixed dates, owners and modes, no links; POSIX
(pax) headers, so that any file name fits. Their bytes are the ones the build linted and kept in
the content store (``read``), never read again from the corpus.
"""
from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import re
import tarfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillsite.site.data import SiteSkill
from skillsite.site.writing import remove, write_if_changed

SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
INDEX_DIR = ".well-known/agent-skills"
MAX_DESCRIPTION = 1024
MAX_ARCHIVE_FILES = 1000
MAX_ARCHIVE_BYTES = 50 * 1024 * 1024
#: 1980-01-01, the earliest date every archive format can hold.
FIXED_MTIME = 315532800
_NAME = re.compile(r"^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")


@dataclass(frozen=True)
class Artifact:
    name: str
    type: str            # skill-md or archive
    url: str             # relative to the index
    data: bytes


def publishable(name: str) -> bool:
    return bool(_NAME.match(name))


def served_names(skills: list[SiteSkill]) -> dict[str, str]:
    """The name each skill is served under, by id: its id when the RFC accepts it, else
    the name its own file gives (a plugin's ``toolbox:echo-tool`` is served as
    ``echo-tool``, the folder a client installs it under) unless another skill is served
    or named so. Skills missing here are not served."""
    served = {s.name: s.name for s in skills if publishable(s.name)}
    taken = set(served)
    short: dict[str, list[str]] = {}
    for skill in skills:
        if skill.name not in served and publishable(skill.short_name):
            short.setdefault(skill.short_name, []).append(skill.name)
    for name, ids in short.items():
        if len(ids) == 1 and name not in taken:
            served[ids[0]] = name
    return served


def artifact_url(skill: SiteSkill, name: str | None = None) -> str:
    """Where the skill's artifact is served (under ``name``, by default its id),
    relative to the site root ("" if nowhere)."""
    name = skill.name if name is None else name
    if not publishable(name):
        return ""
    kind = "archive" if _archived(skill) else "skill-md"
    return f"{INDEX_DIR}/{_relative(name, kind)}"


def _archived(skill: SiteSkill) -> bool:
    return skill.format in ("skill-md", "skill-json") and bool(skill.files)


def _relative(name: str, kind: str) -> str:
    return f"{name}.tar.gz" if kind == "archive" else f"{name}/SKILL.md"


def make_artifact(skill: SiteSkill, skill_md: bytes, read: Callable[[str], bytes | None],
                  name: str | None = None) -> Artifact | None:
    """The served artifact of ``skill`` (under ``name``, by default its id), whose
    SKILL.md is ``skill_md``; ``read(path)`` gives the kept bytes of the skill's file
    ``path`` (relative to the corpus root)."""
    name = skill.name if name is None else name
    if not publishable(name):
        return None
    if not _archived(skill):
        return Artifact(name, "skill-md", _relative(name, "skill-md"), skill_md)
    members = {"SKILL.md": skill_md}
    start = len(skill.folder) + 1 if skill.folder else 0
    for path in skill.files:
        inside = path[start:]
        if (inside == "SKILL.md" or ".." in inside.split("/") or inside.startswith("/")
                or any(part.startswith(".") for part in inside.split("/"))):
            continue
        data = read(path)
        if data is not None:
            members[inside] = data
    if skill.format == "skill-json":
        own = read(skill.path)
        if own is not None:
            members[os.path.basename(skill.path)] = own
    if len(members) > MAX_ARCHIVE_FILES or sum(map(len, members.values())) > MAX_ARCHIVE_BYTES:
        return None
    return Artifact(name, "archive", _relative(name, "archive"),
                    reproducible_tar_gz(members))


def reproducible_tar_gz(members: dict[str, bytes]) -> bytes:
    """A .tar.gz of ``members`` that is byte-identical for the same members."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name in sorted(members):
            info = tarfile.TarInfo(name)
            info.size = len(members[name])
            info.mtime = FIXED_MTIME
            info.mode = 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(members[name]))
    packed = io.BytesIO()
    with gzip.GzipFile(filename="", fileobj=packed, mode="wb", mtime=0,
                       compresslevel=9) as gz:
        gz.write(raw.getvalue())
    return packed.getvalue()


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def entry(skill: SiteSkill, kind: str, url: str, data_digest: str,
          name: str | None = None) -> dict[str, str]:
    return {"name": skill.name if name is None else name, "type": kind,
            "description": skill.description[:MAX_DESCRIPTION],
            "url": url, "digest": data_digest}


def write_artifact(site: Path, artifact: Artifact) -> str:
    """Write the artifact under the index folder; returns its digest."""
    write_if_changed(site / INDEX_DIR / artifact.url, artifact.data)
    return digest(artifact.data)


def index_text(document: dict[str, Any]) -> str:
    """``json.dumps(document, ensure_ascii=False, indent=1)`` of the index: its entries,
    flat objects of strings (100k at 100k skills), are encoded with the C string encoder
    instead of the indenting encoder, which is Python."""
    from json.encoder import encode_basestring as quoted

    skills = document.get("skills")
    if list(document) != ["$schema", "skills"] or not isinstance(skills, list) or not skills \
            or not all(isinstance(e, dict) and e and all(
                isinstance(k, str) and isinstance(v, str) for k, v in e.items())
                for e in skills):
        return json.dumps(document, ensure_ascii=False, indent=1)
    head = json.dumps({"$schema": document["$schema"]}, ensure_ascii=False, indent=1)
    items = ",\n".join(["  {\n" + ",\n".join([f"   {quoted(k)}: {quoted(v)}"
                                               for k, v in entry.items()]) + "\n  }"
                        for entry in skills])
    return f'{head[:-2]},\n "skills": [\n{items}\n ]\n}}'


def write_index(site: Path, entries: list[dict[str, str]],
                kept: Iterable[str] | None = None) -> None:
    """The index of ``entries``; the artifacts of skills that are gone (linked from the
    previous build's site) are removed. ``kept``: the paths in the site of every file the
    previous build left there (see :func:`~skillsite.site.publish.publish_discovery`),
    when known; else the index's folder is walked (100k files at 100k skills)."""
    document = {"$schema": SCHEMA, "skills": sorted(entries, key=lambda e: e["name"])}
    write_if_changed(site / INDEX_DIR / "index.json", index_text(document) + "\n")
    wanted = {e["url"] for e in entries} | {"index.json"}
    folder = site / INDEX_DIR
    if kept is not None:
        # What this build wrote is wanted: only what it kept can be gone.
        prefix = f"site/{INDEX_DIR}/"
        gone = [path[len(prefix):] for path in kept
                if path.startswith(prefix) and path[len(prefix):] not in wanted]
        for path in gone:
            remove(folder / path)
        for parent in sorted({os.path.dirname(path) for path in gone}, reverse=True):
            while parent and not os.listdir(folder / parent):
                remove(folder / parent)
                parent = os.path.dirname(parent)
        return
    start = len(os.path.join(folder, ""))
    for parent, _dirs, names in os.walk(folder, topdown=False):
        for name in names:
            path = os.path.join(parent, name)
            if path[start:].replace(os.sep, "/") not in wanted:
                remove(Path(path))
        if parent != str(folder) and not os.listdir(parent):
            remove(Path(parent))
