"""The corpus as a whole: discovery and symlinks, configuration, and resilience."""
from __future__ import annotations

import dataclasses
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus_helpers import Link, check, found, lint, page, skill_md, toml, write

from skillsite.config import parse_table
from skillsite.errors import ConfigError
from skillsite.linter.discover import discover
from skillsite.linter.rules import RULES

GOOD = {
    "pdf/SKILL.md": skill_md("pdf"),
    "xlsx/SKILL.md": skill_md("xlsx"),
    "oxo/annotate.skill.toml": toml(),
    "wiki/alpha.md": page("alpha"),
}


# -- one bad file among good ones --------------------------------------------------------

@pytest.mark.parametrize("bad, rule", [
    (b"---\nname: bad\x00\n---\n", "binary-file"),
    (b"---\nname: caf\xe9\n---\n", "invalid-utf8"),
    ("---\nname: [\n---\nBody\n", "yaml-syntax"),
    ("---\nname: bad\n", "frontmatter-unclosed"),
    ("---\n" + "x: &a [*a]\n" + "---\n", "too-complex"),
])
def test_one_bad_file_does_not_stop_the_others(tmp_path: Path, bad: str | bytes,
                                                 rule: str) -> None:
    result = check(write(tmp_path, {**GOOD, "bad/SKILL.md": bad}))
    assert [p.rule for p in result.problems] == [rule]
    assert (result.files, result.skills) == (5, 4)


def test_a_crashing_rule_does_not_stop_the_others(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(*args: object) -> Iterator[tuple[Any, ...]]:
        raise RuntimeError("boom")

    rule = RULES["virtual-id-format"]
    monkeypatch.setitem(RULES, rule.id, dataclasses.replace(rule, check=explode))
    result = check(write(tmp_path, {**GOOD, "wiki/beta.md": page("beta", "id: nope\n")}))
    assert found(result) == [("wiki/alpha.md", 1, 1, "internal-error"),
                             ("wiki/beta.md", 1, 1, "internal-error")]
    assert "virtual-id-format" in result.problems[0].message
    assert (result.files, result.skills) == (5, 5)


def test_a_clean_corpus(tmp_path: Path) -> None:
    result = check(write(tmp_path, GOOD))
    assert result.problems == []
    assert result.summary() == {"files": 4, "skills": 4, "errors": 0, "warnings": 0}
    assert result.success


def test_markdown_pages_that_are_not_skills_are_not_counted(tmp_path: Path) -> None:
    result = check(write(tmp_path, {**GOOD, "wiki/notes.md": "# Notes\n",
                                    "pdf/references/guide.md": "# Guide\n"}))
    assert (result.files, result.skills) == (4, 4)


# -- symlinks ----------------------------------------------------------------------------

def test_symlinked_skill_folder_is_checked_once(tmp_path: Path) -> None:
    result = check(write(tmp_path, {"skills/pdf/SKILL.md": skill_md("pdf"),
                                    "pdf": Link("skills/pdf"), "all": Link("skills")}))
    assert found(result) == []
    assert (result.files, result.skills) == (1, 1)


def test_a_file_is_reported_under_its_real_path(tmp_path: Path) -> None:
    write(tmp_path, {"pdf/SKILL.md": skill_md("pdf"), "aaa": Link("pdf")})
    assert [s.path for s in discover([tmp_path])] == [tmp_path / "pdf/SKILL.md"]


def test_a_markdown_link_to_skill_md_does_not_hide_it(tmp_path: Path) -> None:
    result = check(write(tmp_path, {"pdf/SKILL.md": skill_md("pdf", "owner: me\n"),
                                    "pdf/notes.md": Link("SKILL.md")}))
    assert found(result) == [("pdf/SKILL.md", 4, 1, "unknown-field")]
    assert (result.files, result.skills) == (1, 1)


def test_bad_symlinks_are_reported_and_the_rest_is_checked(tmp_path: Path) -> None:
    result = check(write(tmp_path, {
        **GOOD,
        "../outside/SKILL.md": skill_md("outside"),
        "escape": Link("../outside"),
        "pdf/broken.md": Link("nowhere.md"),
        "pdf/loop": Link(".."),
    }))
    assert found(result) == [("escape", 1, 1, "symlink-escape"),
                             ("pdf/broken.md", 1, 1, "symlink-broken"),
                             ("pdf/loop", 1, 1, "symlink-loop")]
    assert result.skills == 4


def test_skipped_folders_are_not_walked(tmp_path: Path) -> None:
    result = check(write(tmp_path, {**GOOD, "node_modules/x/SKILL.md": skill_md("y"),
                                    ".git/SKILL.md": ""}))
    assert (result.files, result.skills) == (4, 4)


def test_a_single_file_can_be_checked(tmp_path: Path) -> None:
    write(tmp_path, {**GOOD, "bad/SKILL.md": skill_md("Bad")})
    assert lint(tmp_path, {}, paths=["pdf/SKILL.md"]) == []
    assert lint(tmp_path, {}, paths=["bad/SKILL.md"]) == [("bad/SKILL.md", 2, 7, "name-format")]


# -- configuration -----------------------------------------------------------------------

BAD = {"PDF/SKILL.md": skill_md("PDF", "x-owner: me\n", body="[g](guide.md)\n")}
ALL = [("PDF/SKILL.md", 2, 7, "name-format", "error"),
       ("PDF/SKILL.md", 4, 1, "unknown-field", "warning"),
       ("PDF/SKILL.md", 6, 5, "broken-link", "warning")]


def problems(root: Path, table: dict[str, Any]) -> list[tuple[str, int, int, str, str]]:
    result = check(root, config=parse_table(table, "test", RULES))
    return [(p.path, p.line, p.column, p.rule, p.severity) for p in result.problems]


def test_config_defaults(tmp_path: Path) -> None:
    assert problems(write(tmp_path, BAD), {}) == ALL


def test_config_select(tmp_path: Path) -> None:
    assert problems(write(tmp_path, BAD), {"select": ["unknown-field", "broken-link"]}) == ALL[1:]


def test_config_ignore(tmp_path: Path) -> None:
    assert problems(write(tmp_path, BAD), {"ignore": ["name-format"]}) == ALL[1:]


def test_config_select_and_ignore(tmp_path: Path) -> None:
    table = {"select": ["name-format", "unknown-field"], "ignore": ["name-format"]}
    assert problems(write(tmp_path, BAD), table) == [ALL[1]]


def test_config_severity_override(tmp_path: Path) -> None:
    table = {"severity": {"name-format": "warning", "unknown-field": "error"}}
    assert problems(write(tmp_path, BAD), table) == [
        ("PDF/SKILL.md", 2, 7, "name-format", "warning"),
        ("PDF/SKILL.md", 4, 1, "unknown-field", "error"),
        ALL[2]]


def test_config_severity_override_beats_a_rules_own_downgrade(tmp_path: Path) -> None:
    write(tmp_path, {"pdf_tools/SKILL.md": skill_md("pdf_tools", "config_section: pdf\n")})
    assert problems(tmp_path, {}) == [("pdf_tools/SKILL.md", 2, 7, "name-format", "warning")]
    assert problems(tmp_path, {"severity": {"name-format": "error"}}) == [
        ("pdf_tools/SKILL.md", 2, 7, "name-format", "error")]


def test_config_allow_fields(tmp_path: Path) -> None:
    assert problems(write(tmp_path, BAD), {"allow-fields": ["x-owner"]}) == [ALL[0], ALL[2]]


def test_config_exclude(tmp_path: Path) -> None:
    write(tmp_path, {**BAD, "pdf/SKILL.md": skill_md("pdf")})
    result = check(tmp_path, config=parse_table({"exclude": ["PDF"]}, "test", RULES))
    assert (found(result), result.files) == ([], 1)


def test_config_exclude_globs_match_names_and_relative_paths(tmp_path: Path) -> None:
    write(tmp_path, {"skills/pdf/SKILL.md": skill_md("pdf"),
                     "skills/pdf/drafts/SKILL.md": skill_md("drafts"),
                     "skills/csv/SKILL.md": skill_md("csv"),
                     "archive/old/SKILL.md": skill_md("old")})
    config = parse_table({"exclude": ["drafts", "skills/c*", "arch?ve"]}, "test", RULES)
    sources = discover([tmp_path], exclude=config.exclude)
    assert sorted(s.path.relative_to(tmp_path).as_posix() for s in sources) == [
        "skills/pdf/SKILL.md"]


def test_config_ignoring_a_corpus_rule(tmp_path: Path) -> None:
    write(tmp_path, {"pdf/SKILL.md": skill_md("pdf"), "oxo/pdf.skill.toml": toml("pdf")})
    assert [p[3] for p in problems(tmp_path, {})] == ["duplicate-name"]
    assert problems(tmp_path, {"ignore": ["duplicate-name"]}) == []


@pytest.mark.parametrize("table", [
    {"select": ["no-such-rule"]},
    {"ignore": ["no-such-rule"]},
    {"severity": {"name-format": "fatal"}},
    {"severity": {"no-such-rule": "error"}},
    {"max-file-size": 0},
    {"unknown-setting": 1},
    {"select": "name-format, unknown-field"},
])
def test_config_errors(table: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        parse_table(table, "test", RULES)


def test_config_max_file_size(tmp_path: Path) -> None:
    write(tmp_path, {"pdf/SKILL.md": skill_md("pdf", body="x" * 2000)})
    assert problems(tmp_path, {"max-file-size": 1000}) == [
        ("pdf/SKILL.md", 1, 1, "file-too-large", "error")]
    assert problems(tmp_path, {"max-file-size": 4000}) == []


# -- untrusted input never reaches the network -------------------------------------------

@pytest.fixture
def http_server() -> Iterator[tuple[str, list[str]]]:
    requests: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            requests.append(self.path)
            body = b'{"type": "object"}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", requests
    finally:
        server.shutdown()
        server.server_close()


def test_args_schema_with_a_remote_meta_schema_is_not_fetched(
        tmp_path: Path, http_server: tuple[str, list[str]]) -> None:
    url, requests = http_server
    manifest = ('{\n  "name": "x",\n  "description": "d",\n  "entry": "run.sh",\n'
                f'  "schema": {{"$schema": "{url}/meta", "properties": {{"a": '
                f'{{"$ref": "{url}/ref"}}}}}}\n}}\n')
    result = check(write(tmp_path, {"x/skill.json": manifest, "x/run.sh": "#!/bin/sh\n"}))
    assert found(result) == [("x/skill.json", 5, 13, "args-schema-invalid")]
    assert "cannot be checked" in result.problems[0].message
    assert requests == []


def test_markdown_inside_a_skill_folder_is_reference_material_not_a_page(
        tmp_path: Path) -> None:
    write(tmp_path, {"pdf/SKILL.md": skill_md("pdf", body="See [the guide](references/guide.md).\n"),
                     "pdf/references/guide.md": page("guide", "risk: extreme\n"),
                     "wiki/guide.md": page("guide2")})
    result = check(tmp_path)
    assert (result.files, result.skills) == (2, 2)
    assert found(result) == []


def test_a_schema_message_names_the_whole_location(tmp_path: Path) -> None:
    write(tmp_path, {"pdf/SKILL.md": skill_md(
        "pdf", "tools:\n  - name: t\n    impl: x\n    class: nuke\n")})
    [problem] = check(tmp_path).problems
    assert problem.message.startswith("tools[0].class: ")


def test_peer_linters_false_positives_are_not_findings(tmp_path: Path) -> None:
    body = ("Ask @john.doe, decorate with @cuda.jit, and pay $5.00 per run.\n"
            "Email me@example.com about it.\n")
    write(tmp_path, {"pdf/SKILL.md": skill_md("pdf", "argument-hint: [file]\n", body=body)})
    assert found(check(tmp_path)) == []


# -- automatic job count -----------------------------------------------------------------

@pytest.mark.parametrize("running, expected", [(0, 2), (1, 2), (2, 1), (3, 1), (9, 1)])
def test_automatic_workers_are_the_idle_cores(monkeypatch: pytest.MonkeyPatch, running: int,
                                              expected: int) -> None:
    from skillsite.linter import checker

    monkeypatch.setattr(checker.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(checker, "running_elsewhere", lambda: max(running - 1, 0))
    assert checker.spare_cores() == expected


@pytest.mark.parametrize("looks, expected", [([3, 1, 2], 2), ([3, 3], 1), ([1, None, 3], 2)])
def test_the_idle_cores_are_those_of_the_quietest_look(
        monkeypatch: pytest.MonkeyPatch, looks: list[int | None], expected: int) -> None:
    from skillsite.linter import checker

    monkeypatch.setattr(checker.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert checker.spare_cores(looks) == expected


def test_the_automatic_job_count_looks_while_the_walk_runs_and_never_sleeps(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from skillsite.config import Config
    from skillsite.linter import checker
    from skillsite.linter.rules.context import Context
    from skillsite.models import Source

    (tmp_path / "SKILL.md").write_text(skill_md("x"))
    given: list[list[int | None]] = []

    def spare(looks: list[int | None]) -> int:
        given.append(looks)
        return 1

    monkeypatch.setattr(checker, "spare_cores", spare)
    monkeypatch.setattr(checker.time, "sleep", lambda seconds: pytest.fail("slept"))
    sources = [Source(tmp_path / "SKILL.md", tmp_path, "skill-md")] * checker.PARALLEL_THRESHOLD
    done = list(checker.check_files(sources, Context(Config()), tmp_path, None))
    assert len(done) == len(sources)
    assert [len(looks) for looks in given] == [
        len(range(0, checker.PARALLEL_THRESHOLD, checker._LOOK_EVERY)) + 1]


def test_running_elsewhere_reads_the_runnable_tasks() -> None:
    from skillsite.linter import checker

    assert checker.running_elsewhere(looks=2) >= 0


def test_a_parallel_check_gives_what_one_process_gives(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from skillsite.linter import checker

    files = {f"s{i}/SKILL.md": skill_md(f"s{i}" if i % 3 else f"S{i}") for i in range(12)}
    write(tmp_path, files)
    one = checker.check([tmp_path], base=tmp_path, jobs=1)
    monkeypatch.setattr(checker, "PARALLEL_THRESHOLD", 2)
    monkeypatch.setattr(checker, "_CHUNK", 3)
    two = checker.check([tmp_path], base=tmp_path, jobs=2)
    assert one.problems and two.problems == one.problems
    assert (two.files, two.skills, two.trust) == (one.files, one.skills, one.trust)


def test_a_shared_check_gives_every_result_in_order(tmp_path: Path) -> None:
    """Sharing, this process checks files between the worker's chunks: the results
    still come in the order of the sources, each once, and this process did some."""
    import os

    from skillsite.config import Config
    from skillsite.linter import checker
    from skillsite.linter.rules.context import Context
    from skillsite.models import Source

    sources = []
    for number in range(700):
        folder = tmp_path / f"s{number:03}"
        folder.mkdir()
        (folder / "SKILL.md").write_text(skill_md(f"s{number:03}"))
        sources.append(Source(folder / "SKILL.md", tmp_path, "skill-md"))
    here = os.getpid()
    mine = 0

    def finish(source: Source, result: object) -> tuple[str, int]:
        nonlocal mine
        mine += os.getpid() == here
        return str(source.path), os.getpid()

    results = list(checker.check_files(sources, Context(Config()), tmp_path, 2,
                                       finish=finish, share=True))
    assert [path for path, _ in results] == [str(s.path) for s in sources]
    assert 0 < mine < len(sources)
    assert {pid for _, pid in results} - {here}  # and the worker did the others


def _sleep(seconds: float) -> float:
    import time

    time.sleep(seconds)
    return seconds


def test_stopping_the_pool_frees_a_future_lock_that_an_interrupt_left_held() -> None:
    """A signal's exception landing inside Future.done() can leave the future's lock held
    by the main thread; stopping the pool must not wait for ever on it (a hung build after
    SIGTERM in tests/test_interrupt.py)."""
    import threading
    from concurrent.futures import ProcessPoolExecutor

    from skillsite.linter.checker import _stop

    ended = threading.Event()

    def interrupted_consumer() -> None:
        pool = ProcessPoolExecutor(1)
        submitted = [pool.submit(_sleep, 0.5) for _ in range(4)]
        submitted[-1]._condition.acquire()  # as an exception inside done() leaves it
        _stop(pool, submitted)
        ended.set()

    threading.Thread(target=interrupted_consumer, daemon=True).start()
    assert ended.wait(30), "stopping the pool waited for ever on a future's lock"


def test_the_pool_keeps_only_the_futures_it_has_not_collected(tmp_path: Path) -> None:
    """Each future keeps its chunk's results: keeping every future submitted kept the
    whole build's results to its end (a clean 100k build's process peaked at 2.3 GB)."""
    import gc
    from concurrent.futures import Future

    from skillsite.config import Config
    from skillsite.linter.checker import check_files
    from skillsite.linter.rules.context import Context
    from skillsite.models import Source

    sources = []
    for number in range(1500):  # 30 chunks of 50
        folder = tmp_path / f"s{number}"
        folder.mkdir()
        (folder / "SKILL.md").write_text(skill_md(f"s{number}"))
        sources.append(Source(folder / "SKILL.md", tmp_path, "skill-md"))
    alive = 0
    for done, _result in enumerate(check_files(sources, Context(Config()), tmp_path, 2), 1):
        if done == len(sources):
            gc.collect()  # an earlier test's garbage (a build's writer, its futures) is not kept
            alive = sum(isinstance(thing, Future) for thing in gc.get_objects())
    assert done == len(sources)
    assert 0 < alive <= 10  # at most 4 pending a worker and the one being collected


def test_results_cross_the_process_boundary_whole() -> None:
    """FileResult and Problem pickle as tuples of their fields (faster to load): every
    field comes back, so a field added later must be added to ``__reduce__`` too."""
    import dataclasses
    import pickle

    from skillsite.linter.checker import FileResult
    from skillsite.models import Problem

    problem = Problem("a/SKILL.md", 2, 7, "name-format", "error", "bad name")
    values = {"path": "a/SKILL.md", "problems": [problem], "record": ("a", "skill-md"),
              "is_skill": True, "extracted": {"x": 1}, "trust": {"level": "none"},
              "wide": True, "outside": ("/elsewhere",)}
    assert set(values) == {field.name for field in dataclasses.fields(FileResult)}
    result = FileResult(**values)  # type: ignore[arg-type]
    back = pickle.loads(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
    assert back == result and back.problems[0] == problem
    assert all(getattr(back, name) == value for name, value in values.items())
