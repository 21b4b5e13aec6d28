"""Both index backends, on real indexes in tmp_path: same candidates, same ranking.

The corpus below is 40 small but realistic skills. Every test builds the tantivy and
the Whoosh index from it and checks that ranking above the interface cannot tell
them apart, that obvious queries find the obvious skill, and that an index copied
and updated in place (what an incremental build does) answers with the new data.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from skillsite.index import BACKENDS, DEFAULT_BACKEND, IndexDoc, SearchIndexError, get_backend
from skillsite.index.ranking import WEIGHTS, rank
from skillsite.index.tokens import query_terms, stem, tokenize

# name, title, description, tags, intents, applies_to, headings, body
_ROWS: list[tuple[str, str, str, str, str, str, str, str]] = [
    ("pdf-extract", "PDF text extraction", "Extract text and tables from PDF files. Use when a "
     "user shares a PDF and asks what it says.", "pdf documents", "read a pdf|extract tables",
     "pdf", "Usage|Tables|Scanned pages", "Run pdftotext with -layout. For tables use camelot. "
     "Scanned pages need OCR first: see the ocr-images skill."),
    ("pdf-merge", "Merge PDFs", "Combine several PDF files into one document, in order.",
     "pdf documents", "merge pdfs", "pdf", "Usage", "Use qpdf --empty --pages a.pdf b.pdf -- out.pdf."),
    ("ocr-images", "OCR for images", "Recognize text in scanned images and photos with Tesseract.",
     "ocr images", "read text in an image", "png|jpeg|tiff", "Install|Languages",
     "Install tesseract and language packs. Preprocess with ImageMagick to raise contrast."),
    ("docker-compose", "Docker Compose stacks", "Write and debug docker-compose files for "
     "multi-container development environments.", "docker containers", "run services locally",
     "docker-compose.yml", "Services|Volumes|Networks", "Declare services, volumes and networks. "
     "Use depends_on with healthchecks so databases start first."),
    ("dockerfile-lint", "Lint Dockerfiles", "Check Dockerfiles with hadolint and fix common "
     "mistakes such as unpinned base images.", "docker lint", "lint a dockerfile", "Dockerfile",
     "Rules|Fixes", "Pin base image digests, merge RUN layers, avoid apt-get upgrade."),
    ("kubernetes-deploy", "Deploy to Kubernetes", "Roll out an application to a Kubernetes "
     "cluster with kubectl and manifests.", "kubernetes k8s deploy", "deploy an app|roll back",
     "k8s manifests", "Rollout|Rollback|Probes", "kubectl apply -f, then kubectl rollout status. "
     "Liveness and readiness probes keep bad pods out of service."),
    ("helm-charts", "Helm charts", "Package Kubernetes applications as Helm charts with values "
     "files per environment.", "kubernetes helm", "package an app", "Chart.yaml", "Values|Templates",
     "helm template renders locally; helm upgrade --install deploys."),
    ("terraform-plan", "Terraform plans", "Review terraform plan output before applying "
     "infrastructure changes.", "terraform infrastructure", "review a plan", "*.tf",
     "Reading a plan|Drift", "Look for resources marked for replacement and destroy."),
    ("git-bisect", "Find the commit that broke it", "Use git bisect to find the commit that "
     "introduced a bug.", "git debugging", "find a regression", "git repositories",
     "Start|Automate", "git bisect start, git bisect bad, git bisect good v1.2, then git bisect run."),
    ("git-rebase", "Interactive rebase", "Clean up commit history with git rebase -i before "
     "opening a pull request.", "git history", "squash commits", "git repositories",
     "Squash|Reword|Conflicts", "Use fixup and squash; resolve conflicts then git rebase --continue."),
    ("github-actions", "GitHub Actions workflows", "Write CI workflows for GitHub Actions with "
     "caching and matrices.", "ci github", "set up ci", ".github/workflows",
     "Triggers|Matrix|Caching", "Use actions/cache keyed on the lock file. Matrix over versions."),
    ("flaky-tests", "Fix flaky tests", "Find and fix flaky tests: timing, ordering and shared "
     "state.", "testing ci", "stabilize a test suite", "pytest|jest", "Diagnose|Quarantine",
     "Rerun with pytest -p no:randomly to rule out ordering. Replace sleeps with waits."),
    ("pytest-fixtures", "Pytest fixtures", "Design pytest fixtures and conftest layouts for "
     "readable tests.", "python testing", "write tests", "pytest", "Scopes|Factories",
     "Prefer factory fixtures over deep fixture chains; keep conftest small."),
    ("jest-mocking", "Mocking in Jest", "Mock modules, timers and fetch in Jest tests.",
     "javascript testing", "mock a module", "jest", "Modules|Timers",
     "jest.mock hoists; use jest.useFakeTimers for timers."),
    ("sql-optimize", "Optimize SQL queries", "Speed up slow SQL queries with EXPLAIN and the "
     "right indexes.", "sql databases performance", "speed up a query", "postgresql|mysql",
     "EXPLAIN|Indexes", "Read EXPLAIN ANALYZE bottom up. Add a composite index for the filter."),
    ("postgres-migrations", "Postgres migrations", "Write safe schema migrations for "
     "PostgreSQL without locking tables.", "sql postgres databases", "change a schema",
     "postgresql", "Zero downtime|Backfills", "Add columns nullable, backfill in batches, "
     "then add constraints NOT VALID and validate."),
    ("redis-cache", "Caching with Redis", "Add a Redis cache in front of a slow service with "
     "sensible expiry.", "caching redis", "cache responses", "redis", "Keys|Expiry",
     "Use cache-aside; set TTLs; beware thundering herds."),
    ("react-components", "React components", "Build accessible React components with hooks "
     "and typed props.", "react frontend", "build a component", "tsx", "Hooks|Props|Testing",
     "Keep components small; lift state up; test with testing-library."),
    ("css-layout", "CSS layout", "Lay out pages with CSS grid and flexbox that work on "
     "phones.", "css frontend", "fix a layout", "css", "Grid|Flexbox",
     "Grid for two dimensions, flexbox for one. Use minmax and auto-fit."),
    ("accessibility-audit", "Accessibility audit", "Audit a web page for accessibility "
     "problems: contrast, labels, keyboard use.", "a11y frontend", "audit a page", "html",
     "Contrast|Keyboard|Screen readers", "Run axe; tab through every control; check labels."),
    ("i18n-strings", "Translate UI strings", "Extract and translate user interface strings "
     "with gettext catalogs.", "i18n localization", "translate an app", "po files",
     "Extraction|Plurals", "Mark strings with _(); plural forms differ per language."),
    ("regex-builder", "Build regular expressions", "Write and test regular expressions "
     "step by step with examples.", "regex text", "match a pattern", "any", "Anchors|Groups",
     "Start from examples; anchor with ^ and $; name your groups."),
    ("csv-clean", "Clean CSV data", "Clean messy CSV files: encodings, delimiters, dates "
     "and duplicates.", "csv data", "clean a spreadsheet", "csv", "Encodings|Dates",
     "Detect the delimiter; parse dates explicitly; drop exact duplicates."),
    ("pandas-analysis", "Data analysis with pandas", "Explore and summarize tabular data "
     "with pandas DataFrames.", "python data pandas", "analyze a dataset", "csv|parquet",
     "Groupby|Joins", "Use groupby and agg; merge on keys; avoid chained assignment."),
    ("plot-charts", "Plot charts", "Make clear charts with matplotlib: labels, scales and "
     "colors that print well.", "charts data visualization", "draw a chart", "python",
     "Axes|Colors", "Label axes with units; use a colorblind-safe palette."),
    ("excel-formulas", "Excel formulas", "Write Excel formulas such as XLOOKUP and pivot "
     "tables for spreadsheets.", "excel spreadsheets", "write a formula", "xlsx",
     "Lookups|Pivots", "XLOOKUP replaces VLOOKUP; pivot tables summarize."),
    ("email-drafting", "Draft emails", "Draft clear, polite emails for work: requests, "
     "follow-ups and apologies.", "writing email", "write an email", "any", "Tone|Structure",
     "Lead with the ask; keep it short; one topic per email."),
    ("meeting-notes", "Meeting notes", "Turn a meeting transcript into notes with decisions "
     "and action items.", "writing meetings", "summarize a meeting", "transcripts",
     "Decisions|Actions", "List decisions first, then owners and dates for each action."),
    ("changelog-writer", "Write a changelog", "Write a changelog entry from merged pull "
     "requests, grouped by kind.", "writing releases", "prepare a release", "CHANGELOG.md",
     "Added|Fixed", "Group by Added, Changed, Fixed; link each pull request."),
    ("semver-release", "Semantic versioning", "Choose the next semantic version and tag a "
     "release.", "releases versioning", "bump a version", "git tags", "Major|Minor|Patch",
     "Breaking changes bump major; features bump minor; fixes bump patch."),
    ("api-design", "Design HTTP APIs", "Design REST endpoints with consistent naming, "
     "pagination and errors.", "api http", "design an endpoint", "openapi",
     "Resources|Pagination|Errors", "Use nouns; cursor pagination; problem+json errors."),
    ("openapi-spec", "OpenAPI specifications", "Write and validate OpenAPI 3 specs for an "
     "HTTP API.", "api openapi", "document an api", "openapi.yaml", "Paths|Schemas",
     "Reuse components/schemas; validate with a linter."),
    ("oauth-login", "OAuth login", "Add OAuth 2 login with PKCE to a web or mobile app.",
     "security auth", "add login", "web apps", "Flows|Tokens", "Use authorization code with "
     "PKCE; store refresh tokens server side."),
    ("secret-scanning", "Scan for secrets", "Find leaked API keys and passwords in a "
     "repository and rotate them.", "security git", "find leaked keys", "git repositories",
     "Scan|Rotate", "Run gitleaks on the full history; rotate anything found."),
    ("dependency-audit", "Audit dependencies", "Check project dependencies for known "
     "vulnerabilities and outdated versions.", "security dependencies", "audit packages",
     "pip|npm", "Scan|Upgrade", "pip-audit and npm audit; upgrade in small steps."),
    ("log-analysis", "Analyze logs", "Search and summarize application logs to find the "
     "cause of an incident.", "logs debugging operations", "investigate an incident", "any",
     "Grep|Timelines", "Build a timeline; correlate request ids across services."),
    ("incident-postmortem", "Write a postmortem", "Write a blameless postmortem after an "
     "incident, with a timeline and follow-ups.", "writing operations", "review an incident",
     "any", "Timeline|Causes|Follow-ups", "Blameless; five whys; owners for follow-ups."),
    ("shell-scripting", "Robust shell scripts", "Write bash scripts that fail loudly and "
     "quote correctly.", "bash shell", "write a script", "sh", "Strict mode|Quoting",
     "set -euo pipefail; quote every expansion; use shellcheck."),
    ("rust-errors", "Rust error handling", "Handle errors in Rust with Result, thiserror and "
     "anyhow.", "rust errors", "handle errors", "rust", "Libraries|Applications",
     "thiserror for libraries, anyhow for applications; avoid unwrap."),
    ("go-concurrency", "Go concurrency", "Use goroutines, channels and contexts in Go "
     "without leaks.", "go concurrency", "run work in parallel", "go",
     "Channels|Contexts", "Always pass a context; close channels from the sender."),
]


def _doc(row: tuple[str, str, str, str, str, str, str, str]) -> IndexDoc:
    name, title, description, tags, intents, applies, headings, body = row
    return IndexDoc(name=name, title=title, description=description, tags=tuple(tags.split()),
                    intents=tuple(intents.split("|")), applies_to=tuple(applies.split("|")),
                    headings=tuple(headings.split("|")), body=body)


DOCS = [_doc(row) for row in _ROWS]
BY_NAME = {doc.name: doc for doc in DOCS}

QUERIES = [
    "pdf",
    "docker",
    "kubernetes deploy",
    "git-bisect",
    "security",
    "fix flaky tests!",
    "How do I speed up a slow SQL query?",
    "write an email to my boss",
    "testing, mocks & fixtures",
    "CSV data",
    "zzyzx quux",
    "",
    "   ",
    '"title:(broken AND',
    "AND OR NOT",
    "name:pdf-extract)",
    "kube",
    "release changelog",
]

EXPECTED_TOP = {
    "git-bisect": "git-bisect",
    "pdf-merge": "pdf-merge",
    "docker compose": "docker-compose",
    "fix flaky tests!": "flaky-tests",
    "kubernetes deploy": "kubernetes-deploy",
    "How do I speed up a slow SQL query?": "sql-optimize",
    "write an email to my boss": "email-drafting",
    "merge pdfs": "pdf-merge",
    "name:pdf-extract)": "pdf-extract",
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("indexes")
    paths = {}
    for name, backend in BACKENDS.items():
        paths[name] = root / name
        with backend.create(paths[name]) as writer:
            for doc in DOCS:
                writer.add(doc)
    return paths


def _candidates(backend: str, path: Path, query: str) -> list[str]:
    with BACKENDS[backend].open(path) as searcher:
        return searcher.candidates(query, limit=100)


def test_registry_and_weights() -> None:
    assert DEFAULT_BACKEND == "tantivy"
    assert set(BACKENDS) == {"tantivy", "whoosh"}
    assert get_backend("whoosh") is BACKENDS["whoosh"]
    with pytest.raises(SearchIndexError, match="known: tantivy, whoosh"):
        get_backend("lucene")
    assert WEIGHTS == {"lexical": 1.0, "name": 3.0, "title": 2.0, "intent": 2.5, "tag": 1.0,
                       "applies_to": 1.5, "compatibility": 1.0, "graph": 1.0}


def test_tokenizer_rules() -> None:
    assert tokenize("Extract PDFs: the pdf-extract_skill!") == ["extract", "pdf", "pdf",
                                                                 "extract", "skill"]
    assert [stem(w) for w in ("skills", "libraries", "classes", "status", "gas", "llms")] \
        == ["skill", "librari", "class", "status", "gas", "llm"]
    assert query_terms('"title:(broken AND') == ["titl", "broken"]
    assert tokenize("x" * 65 + " ok") == ["ok"]
    assert tokenize("Café Ünïcode naïve") == ["café", "ünïcode", "naïv"]
    ascii_text = "Mixed-Case_words, (PUNCT!!) and 42 numbers\ttabs: a/b.c"
    assert tokenize(ascii_text) == tokenize(ascii_text + " é")[:-1]  # fast path == regex


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_doc_count(built: dict[str, Path], backend: str) -> None:
    with BACKENDS[backend].open(built[backend]) as searcher:
        assert searcher.doc_count() == len(DOCS)


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_the_index_knows_every_name(built: dict[str, Path], backend: str) -> None:
    with BACKENDS[backend].open(built[backend]) as searcher:
        assert all(searcher.may_hold(doc.name) for doc in DOCS)
        others = [doc.name.upper() for doc in DOCS] + ["no-such-skill", "", "pdf", "x" * 300]
        assert not any(searcher.may_hold(name) for name in others)


@pytest.mark.parametrize("query", QUERIES)
def test_backends_agree(built: dict[str, Path], query: str) -> None:
    tantivy = _candidates("tantivy", built["tantivy"], query)
    whoosh = _candidates("whoosh", built["whoosh"], query)
    assert set(tantivy) == set(whoosh)
    assert len(tantivy) == len(set(tantivy))
    ranked = [rank(query, [BY_NAME[n] for n in names], limit=5) for names in (tantivy, whoosh)]
    assert ranked[0] == ranked[1]


@pytest.mark.parametrize("query", ["", "   ", "zzyzx quux", "the of and", "!!! ::: ((("])
def test_queries_without_terms_or_hits(built: dict[str, Path], query: str) -> None:
    for backend in BACKENDS:
        assert _candidates(backend, built[backend], query) == []
    assert rank(query, DOCS) == []


@pytest.mark.parametrize("query, expected", sorted(EXPECTED_TOP.items()))
def test_obvious_top_hit(built: dict[str, Path], query: str, expected: str) -> None:
    for backend in BACKENDS:
        names = _candidates(backend, built[backend], query)
        assert rank(query, [BY_NAME[n] for n in names])[0][0] == expected


def test_every_name_ranks_itself_first(built: dict[str, Path]) -> None:
    with BACKENDS["tantivy"].open(built["tantivy"]) as searcher:
        for doc in DOCS:
            names = searcher.candidates(doc.name)
            assert rank(doc.name, [BY_NAME[n] for n in names])[0][0] == doc.name


def test_candidates_respect_limit_and_prefer_name_hits(built: dict[str, Path]) -> None:
    for backend in BACKENDS:
        names = _candidates(backend, built[backend], "pdf")
        assert set(names[:2]) == {"pdf-extract", "pdf-merge"}
        with BACKENDS[backend].open(built[backend]) as searcher:
            assert len(searcher.candidates("git security", limit=2)) == 2
            assert searcher.candidates("git", limit=0) == []


def test_rank_is_deterministic_and_uses_graph() -> None:
    docker = [BY_NAME["docker-compose"], BY_NAME["dockerfile-lint"]]
    plain = rank("docker", docker)
    assert plain == rank("docker", list(reversed(docker)))
    assert [name for name, _ in plain] == ["docker-compose", "dockerfile-lint"]
    security = [BY_NAME[n] for n in ("secret-scanning", "oauth-login", "dependency-audit")]
    tied = rank("security", security)
    assert [name for name, _ in tied] == ["dependency-audit", "oauth-login", "secret-scanning"]
    assert len({score for _, score in tied}) == 1  # equal scores: ties go by name
    boosted = rank("security", security, graph={"secret-scanning": 0.5})
    assert boosted[0] == ("secret-scanning", tied[0][1] + 0.5 * WEIGHTS["graph"])
    assert rank("docker", docker, limit=1) == plain[:1]
    assert rank("docker", docker + docker) == plain


def test_phrase_bonus_reranks() -> None:
    ordered = rank("pull request", [BY_NAME["git-rebase"], BY_NAME["changelog-writer"]])
    assert all(score > 0 for _, score in ordered)
    swapped = rank("request pull", [BY_NAME["git-rebase"], BY_NAME["changelog-writer"]])
    assert dict(ordered)["git-rebase"] > dict(swapped)["git-rebase"]


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_incremental_update_in_place(built: dict[str, Path], tmp_path: Path,
                                     backend: str) -> None:
    engine = BACKENDS[backend]
    path = tmp_path / "index"
    shutil.copytree(built[backend], path)
    changed = IndexDoc(name="pdf-extract", title="Invoice reader",
                       description="Read invoices and receipts into structured fields.",
                       tags=("finance",), body="Totals, tax and dates from scanned invoices.")
    added = IndexDoc(name="invoice-approve", title="Approve invoices",
                     description="Route invoices for approval.", tags=("finance",))
    with engine.update(path) as writer:
        writer.delete("pdf-extract")
        writer.add(changed)
        writer.add(added)
        writer.delete("go-concurrency")
    with engine.open(path) as searcher:
        assert searcher.doc_count() == len(DOCS)
        assert set(searcher.candidates("invoices")) == {"pdf-extract", "invoice-approve"}
        assert "pdf-extract" not in searcher.candidates("camelot tables")
        assert searcher.candidates("goroutines") == []
        assert "pdf-extract" in searcher.candidates("pdf")  # by its name
    docs = {**BY_NAME, "pdf-extract": changed, "invoice-approve": added}
    with engine.open(path) as searcher:
        names = searcher.candidates("invoice")
    assert rank("invoice", [docs[n] for n in names])[0][0] == "invoice-approve"
    with engine.open(built[backend]) as searcher:  # the copied original is untouched
        assert "pdf-extract" in searcher.candidates("camelot")


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_add_in_update_replaces_and_failed_batch_is_dropped(built: dict[str, Path],
                                                           tmp_path: Path,
                                                           backend: str) -> None:
    engine = BACKENDS[backend]
    path = tmp_path / "index"
    shutil.copytree(built[backend], path)
    with engine.update(path) as writer:  # no explicit delete: add still replaces
        writer.add(IndexDoc(name="css-layout", description="Tailwind utility classes"))
    with pytest.raises(RuntimeError), engine.update(path) as writer:
        writer.delete("css-layout")
        raise RuntimeError("build failed half way")
    with engine.open(path) as searcher:
        assert searcher.doc_count() == len(DOCS)
        assert searcher.candidates("tailwind") == ["css-layout"]
        assert searcher.candidates("flexbox") == []


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_delete_after_add_in_one_batch(tmp_path: Path, backend: str) -> None:
    engine = BACKENDS[backend]
    with engine.create(tmp_path / "index") as writer:
        writer.add(DOCS[0])
        writer.add(DOCS[1])
        writer.delete(DOCS[0].name)
    with engine.open(tmp_path / "index") as searcher:
        assert searcher.doc_count() == 1
        assert searcher.candidates("pdf") == [DOCS[1].name]


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_errors_are_clear(built: dict[str, Path], tmp_path: Path, backend: str) -> None:
    engine = BACKENDS[backend]
    other = "whoosh" if backend == "tantivy" else "tantivy"
    with pytest.raises(SearchIndexError, match="no search index"):
        engine.open(tmp_path / "missing")
    with pytest.raises(SearchIndexError):
        engine.open(built[other])
    with pytest.raises(SearchIndexError, match="not an empty folder"):
        engine.create(built[backend])
    writer = engine.create(tmp_path / "empty")
    writer.commit()
    with pytest.raises(SearchIndexError, match="already committed"):
        writer.add(DOCS[0])
    with engine.open(tmp_path / "empty") as searcher:
        assert searcher.doc_count() == 0
        assert searcher.candidates("pdf") == []
