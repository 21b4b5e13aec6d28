"""The check that a previous build's site can be carried forward (store.manifest.intact)
sees every kind of change."""
from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from skillsite.store.manifest import intact

TOPS = ("site", "site-cache")


def _modify(dist: Path) -> None:
    page = dist / "site" / "skills" / "beta-check" / "index.html"
    page.write_bytes(page.read_bytes().replace(b"beta-check", b"beta-chekk", 1))


def _add(dist: Path) -> None:
    (dist / "site" / "skills" / "extra.html").write_text("x")


def _remove(dist: Path) -> None:
    (dist / "site" / "skills" / "beta-check" / "index.html").unlink()


def _link(dist: Path) -> None:
    page = dist / "site" / "skills" / "beta-check" / "index.html"
    copy = dist / "copy.html"
    os.replace(page, copy)
    page.symlink_to(copy)


@pytest.mark.parametrize("change", [None, _modify, _add, _remove, _link])
def test_intact_sees_every_kind_of_change(tmp_path: Path, make_build: Callable[..., Any],
                                      change: Callable[[Path], None] | None) -> None:
    dist = make_build(tmp_path).dist
    if change is not None:
        change(dist)
    assert intact(dist, TOPS) == (change is None)


def test_a_site_changed_since_its_build_is_not_carried_forward(
        tmp_path: Path, make_build: Callable[..., Any]) -> None:
    dist = make_build(tmp_path).dist
    _modify(dist)
    again = make_build(tmp_path)
    assert not again.site.incremental and again.site.rendered == again.site.pages
    page = again.dist / "site" / "skills" / "beta-check" / "index.html"
    assert b"beta-chekk" not in page.read_bytes()
    assert intact(again.dist, TOPS)
