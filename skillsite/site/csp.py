"""The Content-Security-Policy ``<meta>`` of every page.

Scripts may only come from the site itself; the only inline scripts allowed are
Material's own, by hash. The hashes are taken from a page skillsite writes with no skill
text in it (:data:`CANARY`): with a fixed ``extra.scope`` (set by
:mod:`~skillsite.site.mkdocs_run`) Material's inline scripts are the same on every page,
so any other inline script, such as one smuggled into a skill, does not run.
"""
from __future__ import annotations

import base64
import hashlib
import os
import re
from pathlib import Path

from skillsite.site.writing import write_new

#: The canary page, in the docs tree and in the site.
CANARY = "skillsite-csp/index.md"
CANARY_TEXT = ("---\ntitle: Security policy\n---\n\n# Security policy\n\n"
               "This page holds no skill text; the site's script policy is taken from it.\n")
_INLINE = re.compile(r"<script(?P<attrs>[^>]*)>(?P<body>.*?)</script>", re.DOTALL)
_POLICY = ("default-src 'self'; script-src 'self' 'wasm-unsafe-eval' {hashes}; "
           "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; "
           "connect-src 'self'; worker-src 'self' blob:; object-src 'none'; "
           "base-uri 'self'; form-action 'none'; frame-src 'none'")


def theme_hashes(canary_html: str) -> list[str]:
    """CSP hash sources of the inline scripts on the canary page."""
    hashes = set()
    for found in _INLINE.finditer(canary_html):
        attrs = found.group("attrs")
        if "src=" in attrs or "application/json" in attrs:
            continue
        body = found.group("body").encode("utf-8")
        hashes.add("'sha256-" + base64.b64encode(hashlib.sha256(body).digest()).decode() + "'")
    return sorted(hashes)


_OWN_META = '<meta http-equiv="Content-Security-Policy" content="'


def policy_meta(hashes: list[str]) -> str:
    return (_OWN_META + _POLICY.format(hashes=" ".join(hashes)) + '">')


def apply_policy(site: Path, meta: str) -> int:
    """Put ``meta`` first in the ``<head>`` of every page written by this build (pages
    still hard-linked to the previous build already have it). Returns pages changed."""
    changed = 0
    for folder, _, names in os.walk(site):
        for name in names:
            if not name.endswith(".html"):
                continue
            path = Path(folder) / name
            if path.stat().st_nlink > 1:
                continue
            html = path.read_text(encoding="utf-8")
            head = html.find("<head>")
            if head < 0:
                continue
            cut = head + len("<head>")
            # Only skillsite's own <meta>, first in <head>, counts: skill text (a name or
            # a tag in <title>) may say "Content-Security-Policy" anywhere else.
            if html.startswith(_OWN_META, cut):
                continue
            write_new(path, (html[:cut] + meta + html[cut:]).encode("utf-8"))
            changed += 1
    return changed
