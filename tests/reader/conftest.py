"""Fixtures: the bundled corpus built into dist/ folders once per session, one per engine."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from skillsite.builder.pipeline import build
from skillsite.reader import Library

REPO = Path(__file__).parent.parent.parent
ENGINES = ("tantivy", "whoosh")


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """engine -> a dist/ of corpus/ built with it (the corpus copy is deleted after)."""
    found = {}
    for engine in ENGINES:
        base = tmp_path_factory.mktemp(f"reader-{engine}")
        corpus = shutil.copytree(REPO / "corpus", base / "corpus")
        build(corpus, base / "dist", backend=engine)
        shutil.rmtree(corpus)  # the reader must work from dist/ alone
        found[engine] = base / "dist"
    return found


@pytest.fixture(scope="session")
def dist(built: dict[str, Path]) -> Path:
    return built["tantivy"]


@pytest.fixture
def library(dist: Path) -> Library:
    return Library(dist, max_skills=None, max_chars=None)


@pytest.fixture(params=ENGINES)
def engine_library(request: pytest.FixtureRequest, built: dict[str, Path]) -> Library:
    return Library(built[request.param], max_skills=None, max_chars=None)
