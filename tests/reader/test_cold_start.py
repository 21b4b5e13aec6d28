"""A query in a fresh process never loads the linter, the builder, their parsers or the MCP
SDK: that is the reader's contract (import-linter checks the imports; this checks what a real
process loads, lazy imports included). How fast a cold query is, is a benchmark's job
(``bench/bench_startup.py``, ``bench/bench_reader.py``), not a test's."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FORBIDDEN = ("yaml", "jsonschema", "jsonschema_rs", "skillsite.linter", "skillsite.builder",
             "mcp", "markdown_it", "skills_ref", "skillsite.cli.build", "skillsite.cli.check")


@pytest.mark.parametrize("args", [["search", "fill a pdf form"], ["open", "pdf-forms"],
                                  ["read", "pdf-forms", "-s", "Step 3: Fill"]])
def test_a_cold_query_imports_nothing_heavy(dist: Path, args: list[str]) -> None:
    env = {**os.environ, "SKILLSITE_DIST": str(dist)}
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "skillsite", *args,
                           "--json"], capture_output=True, text=True, env=env, check=True)
    json.loads(done.stdout)
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:")}
    heavy = {name for name in imported
             if any(name == f or name.startswith(f + ".") for f in FORBIDDEN)}
    assert heavy == set()
