"""A query in a fresh process loads neither the linter, the builder, yaml, jsonschema nor
the MCP SDK."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FORBIDDEN = ("yaml", "jsonschema", "jsonschema_rs", "skillsite.linter", "skillsite.builder",
             "mcp", "whoosh", "markdown_it", "skills_ref", "skillsite.cli.build",
             "skillsite.cli.check")


@pytest.mark.parametrize("args", [["search", "fill a pdf form"], ["open", "pdf-forms"],
                                  ["read", "pdf-forms", "-s", "Step 3: Fill"]])
def test_a_cold_query_imports_nothing_heavy(dist: Path, args: list[str]) -> None:
    env = {**os.environ, "SKILLSITE_DIST": str(dist)}
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "skillsite", *args,
                           "--json"], capture_output=True, text=True, env=env, check=True)
    json.loads(done.stdout)
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:")}
    forbidden = FORBIDDEN if args[0] == "search" else (*FORBIDDEN, "tantivy")
    heavy = {name for name in imported
             if any(name == f or name.startswith(f + ".") for f in forbidden)}
    assert heavy == set()  # open and read do not even load the search engine
