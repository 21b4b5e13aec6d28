"""The package's shape: simple functions, and imports that only run downward."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent.parent / "skillsite"


@pytest.mark.skipif(shutil.which("ruff") is None,
                    reason="ruff is not installed (pip install -e '.[test]')")
def test_functions_stay_within_the_complexity_gates() -> None:
    """ruff's C901 (at most 15), PLR0912 and PLR0915, as pyproject.toml configures them."""
    done = subprocess.run(["ruff", "check", "skillsite"], cwd=PACKAGE.parent,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.skipif(shutil.which("lint-imports") is None,
                    reason="import-linter is not installed (pip install -e '.[test]')")
def test_import_layers_hold() -> None:
    done = subprocess.run(["lint-imports"], cwd=PACKAGE.parent, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
