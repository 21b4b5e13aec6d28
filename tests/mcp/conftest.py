"""Fixtures for the MCP server tests: a dist/ built from corpus/ (helpers live in
``mcp_helpers``)."""
from __future__ import annotations

from pathlib import Path

import pytest

from skillsite.builder.pipeline import build

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mcp") / "dist"
    build(REPO / "corpus", out)
    return out
