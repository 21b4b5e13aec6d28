"""A query in a fresh process loads neither the linter, the builder, yaml, jsonschema nor
the MCP SDK, nor the linter's dataclasses (``skillsite.models``) and the results of other
operations: creating a dataclass costs about a millisecond of a cold query."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FORBIDDEN = ("yaml", "jsonschema", "jsonschema_rs", "skillsite.linter", "skillsite.builder",
             "mcp", "whoosh", "markdown_it", "skills_ref", "skillsite.cli.build",
             "skillsite.cli.check", "skillsite.models")


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


@pytest.mark.parametrize("args, module", [(["search", "fill a pdf form"], "search"),
                                          (["open", "pdf-forms"], "outline"),
                                          (["read", "pdf-forms", "-s", "Step 3: Fill"], "passage")])
def test_a_cold_query_creates_only_its_own_results(dist: Path, args: list[str],
                                                   module: str) -> None:
    # sys.modules, not -X importtime: importlib.import_module (the lazy load) is not timed.
    code = ("import json, sys\nfrom skillsite.cli import main\ntry:\n"
            f"    main({[*args, '--json']!r}, prog_name='skillsite')\n"
            "except SystemExit:\n    pass\nprint(json.dumps(sorted(sys.modules)), file=sys.stderr)")
    env = {**os.environ, "SKILLSITE_DIST": str(dist)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, check=True)
    json.loads(done.stdout)
    loaded = json.loads(done.stderr.splitlines()[-1])
    assert {name for name in loaded if name.startswith("skillsite.reader.results.")} == {
        "skillsite.reader.results.base", f"skillsite.reader.results.{module}"}
