"""The package's shape: imports that only run downward.

Function size is gated by ruff (C901, PLR0912, PLR0915 in pyproject.toml), run by
``tests/test_typing.py``.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent.parent / "skillsite"


@pytest.mark.skipif(shutil.which("lint-imports") is None,
                    reason="import-linter is not installed (pip install -e '.[test]')")
def test_import_layers_hold() -> None:
    done = subprocess.run(["lint-imports"], cwd=PACKAGE.parent, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
