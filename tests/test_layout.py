"""The package's shape: small modules, and imports that only run downward."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent.parent / "skillsite"
MAX_LINES = 300

#: Modules allowed past MAX_LINES, each with the reason. Keep it empty if you can: split a
#: module by responsibility when it starts doing two jobs.
ALLOWED_LONGER: dict[str, str] = {}


def test_no_module_passes_the_line_limit() -> None:
    too_long = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES and relative not in ALLOWED_LONGER:
            too_long[relative] = lines
    assert too_long == {}, f"split these modules (over {MAX_LINES} lines): {too_long}"


def test_the_allowlist_names_only_long_modules() -> None:
    for relative in ALLOWED_LONGER:
        lines = len((PACKAGE / relative).read_text(encoding="utf-8").splitlines())
        assert lines > MAX_LINES, f"{relative} is short again: remove it from ALLOWED_LONGER"


@pytest.mark.skipif(shutil.which("lint-imports") is None,
                    reason="import-linter is not installed (pip install -e '.[test]')")
def test_import_layers_hold() -> None:
    done = subprocess.run(["lint-imports"], cwd=PACKAGE.parent, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
