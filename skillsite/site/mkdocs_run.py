"""Run mkdocs (with mkdocs-material) over the generated docs tree.

The configuration is the package's ``skillsite/site/mkdocs.yml`` or the user's
``--mkdocs-config`` (the repository's top-level ``mkdocs.yml`` is the project's own docs).
skillsite only overrides what the generated
tree needs: where the pages are and go, directory URLs, its own script and style sheet,
and a small nav when the configuration has none (Material's automatic nav is quadratic in
the number of pages).
"""
from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from skillsite.errors import SkillsiteError

PACKAGED_CONFIG = Path(__file__).with_name("mkdocs.yml")
#: The optional accelerator (see hook.py): same pages, without re-parsing HTML blocks.
HOOK = Path(__file__).with_name("hook.py")
#: Every page's sharing metadata (OpenGraph, its own description): see head.py.
HEAD = Path(__file__).with_name("head.py")
#: What the pages need, relative to the site root.
SCRIPTS = ("assets/skillsite/skillsite.js",)
STYLES = ("assets/skillsite/skillsite.css",)
#: The nav when the configuration has none: those of its pages that the build wrote.
NAV = [{"Home": "index.md"}, {"Skills A-Z": "skills/index.md"},
       {"Plugins": "plugins/index.md"}, {"Collections": "collections/index.md"},
       {"Categories": "categories/index.md"}, {"Tags": "tags/index.md"},
       {"Problems": "problems/index.md"}]
#: What a build sets in the configuration of every mkdocs run (``site_name``: the
#: corpus's name, used unless the configuration names the site): a file of the docs tree
#: that mkdocs does not publish (its name starts with a dot).
SETTINGS = ".skillsite.json"
#: The packaged configuration's name for the site.
DEFAULT_SITE_NAME = "Skills catalog"


class SiteError(SkillsiteError):
    """The catalog site could not be built; ``dist/`` was left as it was."""


def default_config() -> Path:
    """The catalog site's default mkdocs.yml, shipped in the package."""
    return PACKAGED_CONFIG


def run_mkdocs(docs: Path, site: Path, config_file: Path | None, *, dirty: bool) -> list[str]:
    """Build ``docs`` into ``site``; returns mkdocs' warnings. Raises :class:`SiteError`."""
    from mkdocs.commands.build import build
    from mkdocs.exceptions import MkDocsException

    config_file = config_file or default_config()
    records = _Collector()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(records)
    propagate, logger.propagate = logger.propagate, False
    try:
        config = site_config(docs, site, config_file)
        build(config, dirty=dirty)
    except (MkDocsException, OSError, ValueError, KeyError, TypeError) as error:
        if isinstance(error, OSError) and error.errno is not None:
            raise  # the disk or the permissions, not the configuration: the build says so
        detail = "; ".join(records.errors[-3:]) or str(error)
        raise SiteError(f"the catalog site failed to build with {config_file}: {detail}; "
                        "dist/ was not changed (fix the configuration, or pass --no-site)"
                        ) from None
    finally:
        logger.removeHandler(records)
        logger.propagate = propagate
    return records.warnings


def site_config(docs: Path, site: Path, config_file: Path | None) -> Any:
    """The mkdocs configuration a build of ``docs`` into ``site`` runs with (the file's,
    with what skillsite overrides). Raises :class:`SiteError` or mkdocs' own errors."""
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    from mkdocs.config import load_config

    config_file = config_file or default_config()
    if not config_file.is_file():
        raise SiteError(f"mkdocs configuration {config_file} does not exist; pass an "
                        "existing file with --mkdocs-config, or --no-site to skip the site")
    raw = _raw(config_file)
    _copy_user_docs(raw, config_file, docs)
    overrides: dict[str, Any] = {
        "docs_dir": str(docs.absolute()), "site_dir": str(site.absolute()),
        "use_directory_urls": True,
        "extra_javascript": _merged(raw.get("extra_javascript"), SCRIPTS),
        "extra_css": _merged(raw.get("extra_css"), STYLES),
    }
    extra = dict(raw["extra"]) if isinstance(raw.get("extra"), dict) else {}
    # One scope for every page makes Material's inline scripts identical everywhere,
    # so the security policy can allow exactly them by hash (see csp.py).
    extra.setdefault("scope", urlsplit(str(raw.get("site_url") or "/")).path or "/")
    overrides["extra"] = extra
    if not raw.get("nav"):
        overrides["nav"] = [item for item in NAV if (docs / next(iter(item.values()))).is_file()]
    name = _settings(docs).get("site_name")
    if isinstance(name, str) and name and raw.get("site_name") in (None, DEFAULT_SITE_NAME):
        overrides["site_name"] = name
    hooks = list(raw.get("hooks") or [])
    overrides["hooks"] = hooks + [str(h) for h in (HOOK, HEAD) if str(h) not in hooks]
    return load_config(str(config_file), **overrides)


def site_names(config_file: Path | None) -> tuple[str, str]:
    """The ``site_name`` and ``site_description`` that the configuration itself sets
    ("" for the packaged configuration's, or where it cannot be read)."""
    config_file = config_file or default_config()
    if config_file == PACKAGED_CONFIG:
        return "", ""
    try:
        raw = _raw(config_file)
    except SiteError:
        return "", ""
    name, description = raw.get("site_name"), raw.get("site_description")
    return (name if isinstance(name, str) and name != DEFAULT_SITE_NAME else "",
            description if isinstance(description, str) else "")


def _settings(docs: Path) -> dict[str, Any]:
    try:
        found = json.loads((docs / SETTINGS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _raw(config_file: Path) -> dict[str, Any]:
    from mkdocs.utils.yaml import yaml_load

    try:
        with open(config_file, "rb") as handle:
            loaded = yaml_load(handle)
    except Exception as error:  # mkdocs raises yaml's and its own errors here
        raise SiteError(f"cannot read mkdocs configuration {config_file}: {error}") from None
    if not isinstance(loaded, dict):
        raise SiteError(f"mkdocs configuration {config_file} is not a mapping")
    return loaded


def _merged(theirs: Any, ours: tuple[str, ...]) -> list[Any]:
    listed = list(theirs) if isinstance(theirs, list) else []
    present = {item if isinstance(item, str) else item.get("path") for item in listed
               if isinstance(item, (str, dict))}
    return listed + [path for path in ours if path not in present]


def _copy_user_docs(raw: dict[str, Any], config_file: Path, docs: Path) -> None:
    """Extra pages from the user's own ``docs_dir``, where they do not clash with ours."""
    if not raw.get("docs_dir"):
        return
    theirs = (config_file.parent / str(raw["docs_dir"])).resolve()
    if not theirs.is_dir():
        return
    for source in sorted(theirs.rglob("*")):
        target = docs / source.relative_to(theirs)
        if source.is_file() and not source.is_symlink() and not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)


class _Collector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.warnings: list[str] = []
        self.errors: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        kept = self.errors if record.levelno >= logging.ERROR else self.warnings
        kept.append(record.getMessage())
