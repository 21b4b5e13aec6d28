"""Settings for every test."""
from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True, scope="session")
def _check_cache_of_the_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """``skillsite check`` keeps its results cache in a folder of the test session, never
    in the user's own cache folder."""
    old = os.environ.get("SKILLSITE_CACHE_DIR")
    os.environ["SKILLSITE_CACHE_DIR"] = str(tmp_path_factory.mktemp("check-cache"))
    yield
    if old is None:
        os.environ.pop("SKILLSITE_CACHE_DIR", None)
    else:
        os.environ["SKILLSITE_CACHE_DIR"] = old
