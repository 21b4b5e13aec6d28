"""The docs stay usable: a short README whose commands are CI's, every command and benchmark
documented, and no session diary (clock times) in any page. ``mkdocs build --strict`` in
``.ci/run`` checks the links and anchors."""
from __future__ import annotations

import re
from pathlib import Path

from skillsite.cli import COMMANDS

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "docs").glob("*.md"))
PROSE = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "bench" / "README.md", *PAGES]
CLOCK_TIME = re.compile(r"\b[0-2]?\d:[0-5]\d(?:[-–][0-2]?\d:[0-5]\d)?\s*UTC\b")


def test_the_readme_is_short() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines: move detail into docs/"


def test_the_readme_opens_with_the_commands_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```bash\n", 1)[1].split("```", 1)[0]
    install, test = block.splitlines()[:2]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert install.startswith("pip install -e . && skillsite build")
    assert "pip install -e '.[test]'" in test and "python -m pip install --quiet -e '.[test]'" in ci
    test_command = test.split("&&", 1)[1].split("#", 1)[0].strip()
    assert ci.rstrip().splitlines()[-1] == test_command


def test_no_page_keeps_a_session_diary() -> None:
    found = [f"{page.relative_to(ROOT)}: {match.group(0)}" for page in PROSE
             for match in CLOCK_TIME.finditer(page.read_text(encoding="utf-8"))]
    assert not found, "clock times belong in git history, not in the docs: " + ", ".join(found)


def test_every_command_is_documented() -> None:
    docs = "\n".join(page.read_text(encoding="utf-8") for page in PAGES)
    missing = [name for name in COMMANDS if f"skillsite {name}" not in docs]
    assert not missing, f"commands without a mention in docs/: {missing}"


def test_every_benchmark_is_indexed_with_its_figures() -> None:
    index = (ROOT / "bench" / "README.md").read_text(encoding="utf-8")
    performance = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    scripts = sorted(path.name for path in (ROOT / "bench").glob("bench_*.py"))
    assert scripts
    assert not [name for name in scripts if f"`{name}`" not in index], "add it to bench/README.md"
    assert not [name for name in scripts if f"bench/{name}" not in performance], \
        "give its command, targets and latest figures in docs/performance.md"


def test_the_code_cites_only_the_repository() -> None:
    cited = [str(path.relative_to(ROOT)) for folder in ("skillsite", "tests", "bench")
             for path in (ROOT / folder).rglob("*.py")
             if re.search(r"\b(?:FORMATS|STYLE|DESIGN)\.md\b", path.read_text(encoding="utf-8"))]
    assert not cited, f"these cite notes outside the repository (cite docs/ instead): {cited}"
