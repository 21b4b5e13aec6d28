"""Every parser, on generated and mutated input: nothing escapes, every location is inside
the text, and where a reference parser exists (json, tomllib) the values agree."""
from __future__ import annotations

import json
import math
import tempfile
import tomllib
from pathlib import Path

import yaml
from fuzzkit import (
    assert_well_located,
    examples,
    join,
    json_text,
    mutated,
    skill_md_text,
    toml_text,
    tried,
    yaml_lines,
)
from hypothesis import given
from hypothesis import strategies as st

import skillsite
from skillsite.linter.parse import frontmatter, jsonmap, tomlmap, yamlmap
from skillsite.linter.parse.limits import MAX_DEPTH
from skillsite.linter.pointer import resolve

ANY_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=400)


def _inside(position: tuple[int, int], text: str, first_line: int = 1) -> bool:
    lines = text.split("\n")
    line, column = position
    row = line - first_line
    return 0 <= row < len(lines) and 1 <= column <= len(lines[row]) + 1


def _check_one(relative: str, raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(raw)
        result = skillsite.check([root], base=root, jobs=1)
        assert_well_located(result.problems, root)


# -- the front-matter split --------------------------------------------------------------

@examples(150)
@given(st.one_of(skill_md_text(), ANY_TEXT))
def test_split_is_lossless(text: str) -> None:
    """The split never loses a character, and its body starts on ``body_line``."""
    tried("frontmatter.split lossless")
    text = frontmatter.normalize(text)
    parts = frontmatter.split(text)
    if parts.yaml is None:
        assert (parts.body, parts.body_line) == (text, 1)
        return
    first = text.split("\n", 1)[0]
    assert first.rstrip(" \t") == "---"
    if not parts.closed:
        assert text == first + "\n" + parts.yaml or text == first and parts.yaml == ""
        return
    fence_and_body = text[len(first) + 1 + len(parts.yaml):]
    fence = fence_and_body.split("\n", 1)[0]
    assert fence.rstrip(" \t") == "---"
    assert fence_and_body[len(fence) + 1:] == parts.body or (
        fence_and_body == fence and parts.body == "")
    assert all(line.rstrip(" \t") != "---" for line in parts.yaml.split("\n"))
    assert text.count("\n", 0, len(text) - len(parts.body)) + 1 == parts.body_line \
        or parts.body == ""


# -- YAML --------------------------------------------------------------------------------

@examples(150)
@given(st.one_of(yaml_lines().map(join).flatmap(mutated), ANY_TEXT),
       st.integers(1, 5))
def test_yaml_never_raises_and_locates_inside(text: str, first_line: int) -> None:
    tried("yamlmap.load")
    if text and not text.endswith("\n"):
        text += "\n"  # as read() passes it: the lines up to the closing fence
    loaded = yamlmap.load(text, first_line=first_line)
    for where in [*loaded.positions.values(), *loaded.key_positions.values(),
                  *((i.line, i.column) for i in loaded.issues)]:
        assert _inside(where, text, first_line), (where, text)
    if loaded.data is None and not loaded.issues:
        assert yaml.safe_load(text) is None  # a null document; read() reports it


def test_yaml_deep_nesting_is_bounded() -> None:
    for text in ("[" * 5000, "a:\n" + "".join("  " * i + "b:\n" for i in range(1, 300)),
                 "- " * 3000 + "x", "{a: " * 2000):
        loaded = yamlmap.load(text)
        assert loaded.data is None and loaded.issues, text[:20]


# -- JSON: the same values as the standard library, where both accept ------------------

def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return a == b and type(a) is type(b) if not isinstance(a, (dict, list)) else (
        type(a) is type(b) and len(a) == len(b) and all(  # type: ignore[arg-type]
            _same(x, y) for x, y in (zip(a.values(), b.values()) if isinstance(a, dict)
                                     else zip(a, b)))  # type: ignore[union-attr]
        and (not isinstance(a, dict) or list(a) == list(b)))  # type: ignore[arg-type]


@examples(150)
@given(st.one_of(json_text(), ANY_TEXT))
def test_json_agrees_with_the_standard_library(text: str) -> None:
    tried("jsonmap.load vs json.loads")
    loaded = jsonmap.load(text)
    for where in [*loaded.positions.values(), *loaded.key_positions.values(),
                  *((i.line, i.column) for i in loaded.issues)]:
        assert _inside(where, text), (where, text)
    try:
        expected = json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(
            ValueError(c)))
    except (ValueError, RecursionError):
        assert loaded.issues, text  # whatever json refuses, jsonmap reports
        return
    if _depth(expected) > MAX_DEPTH:
        assert any(i.rule == "too-complex" for i in loaded.issues)
        return
    if not _encodable(expected):  # an unpaired surrogate escape, which json lets through
        assert any(i.rule == "json-syntax" for i in loaded.issues), text
        return
    assert _same(loaded.data, expected), (loaded.data, expected)


def _encodable(value: object) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


ANY_CODE_POINT = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=8)


@examples(150)
@given(st.dictionaries(ANY_CODE_POINT, st.one_of(ANY_CODE_POINT, st.lists(ANY_CODE_POINT,
                                                                            max_size=3)),
                       max_size=4))
def test_json_strings_of_any_code_point_load_as_text_or_a_located_problem(
        data: dict[str, object]) -> None:
    """Issue #20 item 9: ``"\\ud800"`` loaded as a lone surrogate, which no UTF-8 output
    can hold (the build crashed in store/hits.py). Every string loaded is encodable."""
    tried("jsonmap: any code point, surrogates included")
    text = json.dumps(data)  # ASCII: every non-ASCII character as a \\u escape
    loaded = jsonmap.load(text)
    assert _encodable(loaded.data)
    if not _encodable(data):
        (issue,) = loaded.issues
        assert issue.rule == "json-syntax" and issue.line == 1
        assert text[issue.column - 1:issue.column + 1] == "\\u"


# -- TOML --------------------------------------------------------------------------------

@examples(150)
@given(st.one_of(toml_text(), ANY_TEXT))
def test_toml_locates_inside(text: str) -> None:
    tried("tomlmap.load")
    loaded = tomlmap.load(text)
    for where in [*loaded.positions.values(), *loaded.key_positions.values(),
                  *((i.line, i.column) for i in loaded.issues)]:
        assert _inside(where, text), (where, text)
    try:
        expected = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError):
        assert loaded.issues
        return
    if loaded.data is None:
        return
    assert _same(loaded.data, expected)
    lines = text.split("\n")
    for pointer, (line, column) in loaded.positions.items():
        parent, _, last = pointer.rpartition("/")
        if last.isdigit() and isinstance(resolve(loaded.data, pointer), str) \
                and isinstance(resolve(loaded.data, parent), list):
            assert lines[line - 1][column - 1] in "\"'", (pointer, line, column, text)


# -- whole files through check(): every format --------------------------------------------

RAW = st.binary(max_size=300)


@examples(60)
@given(st.one_of(skill_md_text().map(str.encode), RAW))
def test_check_skill_md(raw: bytes) -> None:
    tried("check SKILL.md")
    _check_one("skills/demo/SKILL.md", raw)


@examples(40)
@given(st.one_of(skill_md_text().map(lambda t: t.replace("---\n", "---\ntype: skill\n", 1)),
                 skill_md_text()).map(str.encode))
def test_check_virtual_page(raw: bytes) -> None:
    tried("check virtual page")
    _check_one("wiki/page.md", raw)


@examples(50)
@given(st.one_of(toml_text().map(str.encode), RAW))
def test_check_skill_toml(raw: bytes) -> None:
    tried("check .skill.toml")
    _check_one("oxo/demo.skill.toml", raw)


@examples(50)
@given(st.one_of(json_text().map(str.encode), RAW))
def test_check_skill_json(raw: bytes) -> None:
    tried("check skill.json")
    _check_one("ongrid/demo/skill.json", raw)
