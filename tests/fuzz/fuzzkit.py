"""Strategies and checks shared by the fuzz properties.

The generators aim at the places where skill parsers go wrong: fences (``---`` inside
values, ``----``, trailing text), YAML 1.1 scalars, tabs, aliases, deep nesting, CRLF,
byte-order marks, escapes, duplicate keys, and random edits on top of well-formed files.
"""
from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from hypothesis import settings
from hypothesis import strategies as st

from skillsite.linter.parse import frontmatter
from skillsite.linter.rules import RULES
from skillsite.models import Problem

LONG = os.environ.get("SKILLSITE_FUZZ") == "long"
#: Examples run per property in this session (printed at the end by conftest.py).
TRIED: Counter[str] = Counter()


def examples(ci: int) -> settings:
    """Settings for a property: ``ci`` examples in CI, 20 times as many in the long mode."""
    return settings(max_examples=ci * 20 if LONG else ci, deadline=None)


def tried(name: str) -> None:
    TRIED[name] += 1


# -- scalars and keys -------------------------------------------------------------------

TRICKY_SCALARS = [
    "yes", "No", "on", "OFF", "y", "~", "null", "true", "False", "2024-01-01",
    "2001-12-14t21:59:43.10-05:00", "010", "0o17", "0x1F", "-0x1F", "1_000", "1:30", "1e3",
    "1.5", ".inf", "-.Inf", ".NaN", "+1", "0b101", "a---b", "---", "--- x", "----", "...",
    "a: b", "a #b", "#c", "&anchor v", "*alias", "!tag v", "!!str 1", "!!int x", "[1, 2",
    "{a: 1", "'quoted", '"dq', "|", ">-", "%YAML", "@at", "`tick", "\t", " lead", "trail ",
    "é ünï 日本", "\u200b", "\u2028", "\x85", "\\u0041", "\\", "<script>", "A" * 70, "",
]
KEYS = ["name", "description", "license", "compatibility", "metadata", "allowed-tools",
        "type", "id", "title", "tags", "depends_on", "version", "on", "yes", "<<", "x-key",
        "requires", "entry", "schema", "class", "skill_type", "domains", "prompt_additions"]

plain_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
scalars = st.one_of(st.sampled_from(TRICKY_SCALARS), plain_text,
                    st.integers(-10**6, 10**6).map(str))
keys = st.one_of(st.sampled_from(KEYS), st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,10}",
                                                      fullmatch=True))


# -- YAML -------------------------------------------------------------------------------

@st.composite
def yaml_lines(draw: st.DrawFn, depth: int = 0) -> list[str]:
    """Block-style YAML lines, mostly well-formed, with nested maps, lists and scalars."""
    lines: list[str] = []
    indent = "  " * depth
    for _ in range(draw(st.integers(0, 5 if depth == 0 else 3))):
        key = draw(keys)
        shape = draw(st.sampled_from(["plain", "plain", "quoted", "block", "list", "flow",
                                      "map", "anchor"]))
        value = draw(scalars).replace("\n", " ")
        if shape == "plain":
            lines.append(f"{indent}{key}: {value}")
        elif shape == "quoted":
            lines.append(f"{indent}{key}: {json.dumps(value)}")
        elif shape == "block":
            lines.append(f"{indent}{key}: {draw(st.sampled_from(['|', '>', '|-', '>+']))}")
            lines += [f"{indent}  {draw(scalars)}" for _ in range(draw(st.integers(0, 3)))]
        elif shape == "list":
            lines.append(f"{indent}{key}:")
            lines += [f"{indent}  - {draw(scalars)}" for _ in range(draw(st.integers(0, 3)))]
        elif shape == "flow":
            items = ", ".join(draw(st.lists(scalars, max_size=3)))
            lines.append(f"{indent}{key}: [{items}]")
        elif shape == "map" and depth < 3:
            lines.append(f"{indent}{key}:")
            lines += draw(yaml_lines(depth + 1))
        else:
            lines.append(f"{indent}{key}: &a{depth} {value}")
            lines.append(f"{indent}{key}2: *a{depth}")
    return lines


def join(lines: Iterable[str], newline: str = "\n") -> str:
    return "".join(line + newline for line in lines)


@st.composite
def mutated(draw: st.DrawFn, text: str) -> str:
    """``text`` after a few random edits: insert, delete, duplicate or swap a slice."""
    for _ in range(draw(st.integers(0, 3))):
        if not text:
            break
        at = draw(st.integers(0, len(text)))
        edit = draw(st.sampled_from(["insert", "delete", "duplicate", "tab", "fence"]))
        if edit == "insert":
            text = text[:at] + draw(st.sampled_from(
                [":", "\n", "-", "[", "{", "'", '"', "&x", "*x", "\ufeff", "\r", "\0", "é",
                 " ", "#", "|", "\\"])) + text[at:]
        elif edit == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 8)):]
        elif edit == "duplicate":
            text = text[:at] + text[max(0, at - 12):at] + text[at:]
        elif edit == "tab":
            text = text[:at] + "\t" + text[at:]
        else:
            text = text[:at] + "\n---\n" + text[at:]
    return text


@st.composite
def markdown_body(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.sampled_from([
        "# Title", "## Usage", "### Deep", "Text with a [link](references/REF.md).",
        "[up](../other/SKILL.md)", "[abs](/etc/passwd)", "[web](https://example.com/x)",
        "```", "```bash", "    code", "- item", "1. step", "![img](assets/a.png)",
        "[ref]: references/REF.md", "<a href=\"javascript:alert(1)\">x</a>", "---", "",
        "!`touch /tmp/skillsite-pwned`", "| a | b |",
    ]) | plain_text, max_size=12))
    return join(parts)


@st.composite
def skill_md_text(draw: st.DrawFn) -> str:
    """A SKILL.md (or Mini-A page): front matter, body, then random edits."""
    lines = draw(yaml_lines())
    opening = draw(st.sampled_from(["---", "---", "--- ", "----", "---x", ""]))
    closing = draw(st.sampled_from(["---", "---", "---\t", "----", "...", "--- x", ""]))
    newline = draw(st.sampled_from(["\n", "\n", "\r\n", "\r"]))
    bom = draw(st.sampled_from(["", "", "\ufeff"]))
    text = bom + join([opening, *lines, closing], newline) + draw(markdown_body())
    return draw(mutated(text))


# -- TOML and JSON ----------------------------------------------------------------------

def toml_string(value: str) -> str:
    return json.dumps(value)  # a JSON string is a valid TOML basic string, escapes included


@st.composite
def toml_text(draw: st.DrawFn) -> str:
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 8))):
        key = draw(st.sampled_from(["name", "version", "description", "skill_type", "author",
                                    "domains", "prompt_additions", "requires", "entry",
                                    '"quoted key"', "a.b", "x-y", "name"]))
        value = draw(st.one_of(
            scalars.map(toml_string),
            st.sampled_from(['"\\u0041"', '""', "'lit'", '"""multi\nline"""', "'''raw\n'''",
                             "1979-05-27T07:32:00Z", "1979-05-27", "07:32:00", "true",
                             "nan", "+inf", "1_000", "0xDEAD", "1e3", "[]", "{}",
                             "{ a = 1 }", "[[1], [2]]", '["a", 1]', "[", '"open']),
            st.lists(scalars.map(toml_string), max_size=3).map(
                lambda items: "[" + ", ".join(items) + "]"),
            st.lists(scalars.map(toml_string), max_size=3).map(
                lambda items: "[\n" + "".join(f"  {i},\n" for i in items) + "]")))
        lines.append(f"{key} = {value}")
        if draw(st.integers(0, 6)) == 0:
            lines.append(draw(st.sampled_from(["[table]", "[[arr]]", "[a.b]", "[ bad",
                                               "# comment", ""])))
    return draw(mutated(join(lines)))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=20)


@st.composite
def json_text(draw: st.DrawFn) -> str:
    value = draw(st.dictionaries(keys, json_values, max_size=8) | json_values)
    text = json.dumps(value, indent=draw(st.sampled_from([None, 2, "\t"])),
                      ensure_ascii=draw(st.booleans()))
    if draw(st.integers(0, 4)) == 0 and text.startswith("{") and len(text) > 2:
        text = '{"name": "dup", "name": "dup",' + text[1:]  # duplicate keys
    return draw(mutated(text))


# -- checks ------------------------------------------------------------------------------

def lines_of(raw: bytes) -> list[str]:
    """The file's lines as the parsers count them (BOM dropped, CR/CRLF as LF)."""
    return frontmatter.normalize(raw.decode("utf-8", "replace")).split("\n")


def assert_well_located(problems: Iterable[Problem], root: Path) -> None:
    """Every problem has a known rule ID, a path under ``root`` and a 1-based location
    inside that file; and none is an internal error (a caught crash)."""
    for problem in problems:
        assert problem.rule in RULES, problem
        assert problem.rule != "internal-error", problem
        assert problem.severity in ("error", "warning"), problem
        path = root / problem.path
        assert os.path.lexists(path), problem
        assert problem.line >= 1 and problem.column >= 1, problem
        if not path.is_file() or problem.line == 1 and problem.column == 1:
            continue  # a whole-file problem (a broken link, a folder) is on line 1
        lines = lines_of(path.read_bytes())
        assert problem.line <= len(lines), (problem, len(lines))
        assert problem.column <= len(lines[problem.line - 1]) + 1, (
            problem, lines[problem.line - 1])
