"""Bugs the fuzz properties found, each pinned by the smallest input that showed it.

Numbered in the order they were found.
"""
from __future__ import annotations

from pathlib import Path

import pytest

import skillsite


def _problems(root: Path, relative: str, text: str) -> list[tuple[int, int, str]]:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    result = skillsite.check([root], base=root, jobs=1)
    return [(p.line, p.column, p.rule) for p in result.problems]


# 1. A document that is YAML or JSON null was silently not a skill: "no problems".
@pytest.mark.parametrize("relative, text", [
    ("skills/demo/SKILL.md", "---\n~\n---\nbody\n"),
    ("skills/demo/SKILL.md", "---\nnull\n---\nbody\n"),
    ("wiki/page.md", "---\ntype: skill\n---\n"),  # control: a page that is a mapping
    ("ongrid/demo/skill.json", "null"),
])
def test_null_document_is_not_a_mapping(tmp_path: Path, relative: str, text: str) -> None:
    found = _problems(tmp_path, relative, text)
    if "type: skill" in text:
        assert ("not-a-mapping" not in {rule for _, _, rule in found}) and found
    else:
        assert (1 if relative.endswith(".json") else 2, 1, "not-a-mapping") in found


# 2. A TOML date or time where the schema wants a string crashed the schema validator
#    (jsonschema-rs: "Unsupported type: 'datetime'") and came out as an internal-error.
@pytest.mark.parametrize("value", ["1979-05-27T07:32:00Z", "1979-05-27", "07:32:00"])
def test_toml_datetime_is_a_type_error(tmp_path: Path, value: str) -> None:
    text = (f'name = {value}\nversion = "1.0.0"\ndescription = "d."\n'
            'skill_type = "knowledge"\ndomains = ["x"]\n')
    found = _problems(tmp_path, "oxo/demo.skill.toml", text)
    assert (1, 8, "field-type") in found, found
    assert all(rule != "internal-error" for _, _, rule in found)


# 3. A TOML array item was located by searching for its decoded text: an escaped item
#    ("\u0041") landed in another key's value at column 0, an empty one before its quote.
@pytest.mark.parametrize("text, pointer, where", [
    ('x = [\n"\\u0041",\n]\nA = 1\n', "/x/0", (2, 1)),
    ('x = ["\\u0041"]\ny = "AA"\n', "/x/0", (1, 6)),
    ('x = ["", "b"]\n', "/x/0", (1, 6)),
    ('x = [["a"], "b", {c = "d"}, # ,\n "e"]\n', "/x/3", (2, 2)),
])
def test_toml_array_items_are_located_at_their_quote(text: str, pointer: str,
                                                     where: tuple[int, int]) -> None:
    from skillsite.linter.parse import tomlmap

    assert tomlmap.load(text).positions[pointer] == where


# 4. PyYAML breaks lines at NEL, LS and PS (U+0085, U+2028, U+2029) as YAML 1.1 does: a
#    description holding one shifted every later location down a line (past the end of
#    the file), and a plain scalar holding one was a syntax error.
def test_unicode_line_separators_are_text(tmp_path: Path) -> None:
    text = ("---\nname: demo\ndescription: Fills\u2028forms\x85fast. Use when asked.\n"
            "compatibility: yes\n---\nBody.\n")
    assert ("skills/demo/SKILL.md", 4, 16, "yaml-implicit-type") in [
        (p.path, p.line, p.column, p.rule) for p in skillsite.check(
            [_write(tmp_path, "skills/demo/SKILL.md", text)], base=tmp_path, jobs=1).problems]
    from skillsite.linter.parse import yamlmap

    assert yamlmap.load("d: a\u2029b\n").data == {"d": "a\u2029b"}


def _write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return root


# 5. The location of a NUL byte or an invalid UTF-8 byte counted only LF line ends: in a
#    file with CR line ends it was on line 1, past the end of that line (column 11 of 3).
@pytest.mark.parametrize("raw, where", [
    (b"---\rname: \x00\r---\r", (2, 7)),
    (b"---\r\nname: \x00\r\n---\r\n", (2, 7)),
    (b"\xef\xbb\xbf---\nname: \xff\n", (2, 7)),
])
def test_byte_locations_count_every_line_end(tmp_path: Path, raw: bytes,
                                             where: tuple[int, int]) -> None:
    path = tmp_path / "skills" / "demo" / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(raw)
    found = skillsite.check([tmp_path], base=tmp_path, jobs=1).problems
    assert [(p.line, p.column) for p in found] == [where], found
