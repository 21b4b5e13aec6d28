"""The catalog site (``dist/site/``): an mkdocs-material site built from the artifacts of
a build, with Pagefind search and an Agent Skills discovery index. ``skillsite.builder``
calls :func:`build_site`; this package never imports the builder."""
from __future__ import annotations

from skillsite.site.mkdocs_run import SiteError
from skillsite.site.stage import SiteResult, build_site

__all__ = ["SiteError", "SiteResult", "build_site"]
