"""The parsers: front matter splitting, the YAML, JSON and TOML source maps, and ``read``."""
from __future__ import annotations

from pathlib import Path

import pytest
from corpus_helpers import write

from skillsite.linter.capped import read_capped
from skillsite.linter.parse import frontmatter, jsonmap, read, tomlmap, yamlmap
from skillsite.linter.parse.limits import MAX_DEPTH
from skillsite.models import Document, Issue, Source


def read_file(tmp_path: Path, name: str, content: str | bytes, kind: str = "") -> Document:
    write(tmp_path, {name: content})
    kinds = {"SKILL.md": "skill-md", "skill.json": "skill-json"}
    kind = kind or kinds.get(Path(name).name) or (
        "skill-toml" if name.endswith(".skill.toml") else "markdown")
    doc = read(Source(tmp_path / name, tmp_path, kind))
    assert doc is not None
    return doc


def located(issues: list[Issue]) -> list[tuple[int, int, str]]:
    return [(i.line, i.column, i.rule) for i in issues]


# -- front matter ------------------------------------------------------------------------

def test_dashes_inside_a_value_do_not_close_the_front_matter(tmp_path: Path) -> None:
    doc = read_file(tmp_path, "pdf/SKILL.md",
                    "---\nname: pdf\ndescription: a---b\n---\n# PDF\n")
    assert doc.issues == []
    assert doc.data == {"name": "pdf", "description": "a---b"}
    assert doc.positions["/description"] == (3, 14)
    assert (doc.body, doc.body_line) == ("# PDF\n", 5)


def test_bom_and_crlf_parse_with_the_right_line_numbers(tmp_path: Path) -> None:
    text = "\ufeff---\r\nname: pdf\r\ndescription: Fills forms.\r\nlicense: MIT\r\n---\r\n# PDF\r\n"
    doc = read_file(tmp_path, "pdf/SKILL.md", text.encode("utf-8"))
    assert doc.issues == []
    assert doc.data == {"name": "pdf", "description": "Fills forms.", "license": "MIT"}
    assert doc.positions["/name"] == (2, 7)
    assert doc.key_positions["/license"] == (4, 1)
    assert (doc.body, doc.body_line) == ("# PDF\n", 6)


def test_bom_and_crlf_keep_error_locations(tmp_path: Path) -> None:
    text = "\ufeff---\r\nname: pdf\r\ndescription: d\r\nname: again\r\n---\r\nBody\r\n"
    doc = read_file(tmp_path, "pdf/SKILL.md", text.encode("utf-8"))
    assert located(doc.issues) == [(4, 1, "duplicate-key")]


def test_bare_carriage_returns_are_line_breaks() -> None:
    assert frontmatter.normalize("---\rname: x\r---\r") == "---\nname: x\n---\n"


@pytest.mark.parametrize("text, yaml, body, body_line, closed", [
    ("---\nname: x\n---\nBody\n", "name: x\n", "Body\n", 4, True),
    ("---   \nname: x\n---\t\nBody\n", "name: x\n", "Body\n", 4, True),
    ("---\n---\n", "", "", 3, True),
    ("---\nname: x\n---", "name: x\n", "", 3, True),
    ("---\ndescription: a---b\n --- \n", None, "", 1, False),
    ("---\nname: x\n", None, "", 1, False),
    ("# Title\n---\nname: x\n---\n", None, "# Title\n---\nname: x\n---\n", 1, True),
    ("----\nname: x\n----\n", None, "----\nname: x\n----\n", 1, True),
])
def test_split(text: str, yaml: str | None, body: str, body_line: int, closed: bool) -> None:
    parts = frontmatter.split(text)
    assert parts.closed is closed
    if closed:
        assert (parts.yaml, parts.body, parts.body_line) == (yaml, body, body_line)
    else:
        assert parts.yaml is not None and parts.body == ""


def test_unclosed_front_matter(tmp_path: Path) -> None:
    doc = read_file(tmp_path, "pdf/SKILL.md", "---\nname: pdf\ndescription: a---b\n\n# PDF\n")
    assert located(doc.issues) == [(1, 1, "frontmatter-unclosed")]
    assert doc.data is None


def test_missing_front_matter_keeps_the_whole_file_as_body(tmp_path: Path) -> None:
    doc = read_file(tmp_path, "pdf/SKILL.md", "# PDF\n\nname: pdf\n")
    assert located(doc.issues) == [(1, 1, "frontmatter-missing")]
    assert (doc.data, doc.body, doc.body_line) == (None, "# PDF\n\nname: pdf\n", 1)


@pytest.mark.parametrize("front, found", [
    ("- name: pdf\n- description: d\n", "a list"),
    ("just some words\n", "a single value (str)"),
    ("42\n", "a single value (int)"),
])
def test_front_matter_that_is_not_a_mapping(tmp_path: Path, front: str, found: str) -> None:
    doc = read_file(tmp_path, "pdf/SKILL.md", f"---\n{front}---\nBody\n")
    assert located(doc.issues) == [(2, 1, "not-a-mapping")]
    assert found in doc.issues[0].message
    assert doc.data is None


def test_empty_front_matter_is_an_empty_mapping(tmp_path: Path) -> None:
    doc = read_file(tmp_path, "pdf/SKILL.md", "---\n# only a comment\n---\nBody\n")
    assert (doc.data, doc.issues) == ({}, [])


# -- reading bytes -----------------------------------------------------------------------

@pytest.mark.parametrize("content, rule, where", [
    (b"", "empty-file", (1, 1)),
    (b" \n\t\r\n", "empty-file", (1, 1)),
    (b"---\nname: pdf\x00\n", "binary-file", (2, 10)),
    (b"\x00\x01\x02", "binary-file", (1, 1)),
    (b"---\nname: caf\xe9\n---\n", "invalid-utf8", (2, 10)),
    ("---\nname: ñandú ".encode() + b"\xc3\n", "invalid-utf8", (2, 13)),
    (b"\xef\xbb\xbfname: \xff\n", "invalid-utf8", (1, 7)),
])
def test_unusable_bytes(tmp_path: Path, content: bytes, rule: str,
                        where: tuple[int, int]) -> None:
    doc = read_file(tmp_path, "pdf/SKILL.md", content)
    assert located(doc.issues) == [(*where, rule)]
    assert doc.data is None


def test_size_cap(tmp_path: Path) -> None:
    write(tmp_path, {"pdf/SKILL.md": "---\nname: pdf\n---\n" + "x" * 100})
    source = Source(tmp_path / "pdf/SKILL.md", tmp_path, "skill-md")
    assert located(read(source, max_size=50).issues) == [(1, 1, "file-too-large")]  # type: ignore[union-attr]
    assert read(source, max_size=1000).issues == []  # type: ignore[union-attr]


@pytest.mark.parametrize("size, cap, kept", [(100, 1000, 100), (100, 100, 100),
                                             (100, 99, 100), (100, 50, 51)])
def test_read_capped_reads_the_file_or_one_byte_past_the_cap(
        tmp_path: Path, size: int, cap: int, kept: int) -> None:
    (tmp_path / "f").write_bytes(b"x" * size)
    assert read_capped(tmp_path / "f", cap) == b"x" * kept


def test_read_capped_reads_on_when_a_file_reports_no_size() -> None:
    status = Path("/proc/self/status")
    if not status.exists():
        pytest.skip("needs /proc")
    assert status.stat().st_size == 0
    assert len(read_capped(status, 1 << 20)) > 100
    assert len(read_capped(status, 10)) == 11


def test_a_markdown_page_is_a_skill_only_with_type_skill(tmp_path: Path) -> None:
    write(tmp_path, {"wiki/notes.md": "---\ntitle: Notes\nname: notes\n---\nText\n",
                     "wiki/alpha.md": "---\ntype: ' Skill '\nname: alpha\n---\nText\n",
                     "wiki/beta.md": "---\nschema: mini-a.skill/v1\nname: beta\n---\nText\n",
                     "wiki/nested.md": "---\nmeta:\n  type: skill\nname: x\n---\nText\n",
                     "wiki/body.md": "# Notes\n\ntype: skill\n"})

    def kind_of(name: str) -> str | None:
        doc = read(Source(tmp_path / "wiki" / name, tmp_path, "markdown"))
        return doc.source.kind if doc else None

    assert kind_of("notes.md") is None
    assert kind_of("alpha.md") == "virtual"
    assert kind_of("beta.md") == "virtual"
    assert kind_of("nested.md") is None
    assert kind_of("body.md") is None


# -- YAML --------------------------------------------------------------------------------

@pytest.mark.parametrize("plain, reading", [
    ("yes", "a boolean"), ("No", "a boolean"), ("on", "a boolean"), ("OFF", "a boolean"),
    ("2024-01-01", "a date"), ("2024-01-01 10:00:00", "a date"), ("010", "a number"),
    ("1:30", "a number"), ("0b101", "a number"), ("1_000", "a number"),
    ("0x1__f", "a number"),
])
def test_yaml_1_1_surprises_stay_strings_and_warn(plain: str, reading: str) -> None:
    loaded = yamlmap.load(f"name: pdf\nvalue: {plain}\n", first_line=2)
    assert loaded.data == {"name": "pdf", "value": plain}
    assert located(loaded.issues) == [(3, 8, "yaml-implicit-type")]
    assert reading in loaded.issues[0].message


def test_yaml_1_1_surprises_in_keys_warn_too() -> None:
    loaded = yamlmap.load("metadata:\n  on: push\n")
    assert loaded.data == {"metadata": {"on": "push"}}
    assert located(loaded.issues) == [(2, 3, "yaml-implicit-type")]


@pytest.mark.parametrize("plain, value", [
    ("true", True), ("False", False), ("~", None), ("null", None), ("", None),
    ("12", 12), ("-3", -3), ("0x1F", 31), ("1.5", 1.5), ("-.inf", float("-inf")),
    ("'yes'", "yes"), ('"2024-01-01"', "2024-01-01"), ("!!str on", "on"), ("pdf", "pdf"),
])
def test_yaml_1_2_scalars(plain: str, value: object) -> None:
    loaded = yamlmap.load(f"value: {plain}\n")
    assert loaded.issues == []
    assert loaded.data == {"value": value}


def test_yaml_positions_of_keys_and_values() -> None:
    loaded = yamlmap.load("name: pdf\ntools:\n  - name: t\n    class: read\n", first_line=2)
    assert loaded.positions["/name"] == (2, 7)
    assert loaded.key_positions["/tools"] == (3, 1)
    assert loaded.positions["/tools/0"] == (4, 5)
    assert loaded.positions["/tools/0/class"] == (5, 12)


def test_yaml_keys_with_slashes_and_tildes_are_escaped() -> None:
    loaded = yamlmap.load("metadata:\n  a/b: x\n  c~d: y\n")
    assert loaded.positions["/metadata/a~1b"] == (2, 8)
    assert loaded.positions["/metadata/c~0d"] == (3, 8)


def test_yaml_duplicate_key_points_at_the_second_key() -> None:
    loaded = yamlmap.load("name: a\ndescription: d\nname: b\n", first_line=2)
    assert located(loaded.issues) == [(4, 1, "duplicate-key")]
    assert "first on line 2" in loaded.issues[0].message


def test_yaml_tabs_get_a_hint() -> None:
    loaded = yamlmap.load("name: pdf\nmetadata:\n\towner: me\n", first_line=2)
    assert located(loaded.issues) == [(4, 1, "yaml-syntax")]
    assert "tabs" in loaded.issues[0].message
    assert loaded.data is None


def test_yaml_complex_key_is_reported() -> None:
    loaded = yamlmap.load("? [a, b]\n: c\nname: x\n")
    assert located(loaded.issues) == [(1, 3, "yaml-syntax")]
    assert loaded.data == {"name": "x"}


def test_yaml_alias_bomb_is_too_complex() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 10)]
    loaded = yamlmap.load("\n".join(lines) + "\n", first_line=2)
    assert located(loaded.issues) == [(2, 1, "too-complex")]
    assert "alias" in loaded.issues[0].message
    assert loaded.data is None


@pytest.mark.parametrize("text", [
    "m: " + "[" * 10_000 + "]" * 10_000 + "\n",
    "m: " + "{a: " * 10_000 + "1" + "}" * 10_000 + "\n",
    "m:\n  " + "- " * 10_000 + "x\n",
    "m: &a [*a]\n",
], ids=["flow-sequences", "flow-mappings", "block-sequences", "recursive-alias"])
def test_yaml_deep_nesting_is_too_complex(text: str) -> None:
    loaded = yamlmap.load(text)
    assert located(loaded.issues) == [(1, 1, "too-complex")]
    assert loaded.data is None


def test_yaml_nesting_at_the_limit_is_fine() -> None:
    loaded = yamlmap.load("m: " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "\n")
    assert loaded.issues == []


def test_yaml_front_matter_over_the_size_limit() -> None:
    loaded = yamlmap.load("description: " + "x" * 300_000 + "\n", first_line=2)
    assert located(loaded.issues) == [(2, 1, "too-complex")]


# -- JSON --------------------------------------------------------------------------------

def test_json_positions() -> None:
    loaded = jsonmap.load('{\n  "name": "x",\n  "env_allow": ["A", "B"]\n}\n')
    assert loaded.issues == []
    assert loaded.data == {"name": "x", "env_allow": ["A", "B"]}
    assert loaded.key_positions["/name"] == (2, 3)
    assert loaded.positions["/name"] == (2, 11)
    assert loaded.positions["/env_allow/1"] == (3, 22)


def test_json_duplicate_key_points_at_the_second_key() -> None:
    loaded = jsonmap.load('{\n  "name": "a",\n  "entry": "r",\n  "name": "b"\n}')
    assert located(loaded.issues) == [(4, 3, "duplicate-key")]
    assert loaded.data == {"name": "b", "entry": "r"}


@pytest.mark.parametrize("text, where", [
    ('{"a": 1,}', (1, 9)),
    ("{'a': 1}", (1, 2)),
    ('{"a": tru}', (1, 7)),
    ('{"a": "\n"}', (1, 8)),
    ('{"a": 1', (1, 8)),
    ("", (1, 1)),
    ("[1] [2]", (1, 5)),
])
def test_json_syntax_errors_are_located(text: str, where: tuple[int, int]) -> None:
    loaded = jsonmap.load(text)
    assert located(loaded.issues) == [(*where, "json-syntax")]
    assert loaded.data is None


@pytest.mark.parametrize("text", [
    "[" * 10_000 + "]" * 10_000,
    '{"a":' * 10_000 + "1" + "}" * 10_000,
    "[" * 10_000,
], ids=["arrays", "objects", "unclosed"])
def test_json_deep_nesting_is_too_complex(text: str) -> None:
    loaded = jsonmap.load(text)
    assert [i.rule for i in loaded.issues] == ["too-complex"]
    assert loaded.data is None


def test_json_nesting_at_the_limit_is_fine() -> None:
    loaded = jsonmap.load('{"a":' * MAX_DEPTH + "1" + "}" * MAX_DEPTH)
    assert loaded.issues == []


def test_json_huge_integer_is_too_complex_not_a_crash() -> None:
    loaded = jsonmap.load('{"n": ' + "9" * 5000 + "}")
    assert located(loaded.issues) == [(1, 7, "too-complex")]


def test_json_numbers() -> None:
    assert jsonmap.load('[0, -1, 1.5, 2e3, 1E-2]').data == [0, -1, 1.5, 2000.0, 0.01]


# -- TOML --------------------------------------------------------------------------------

def test_toml_positions() -> None:
    text = ('name = "x"\nrequires = [\n  "mcp://a.example.com:1",\n  "mcp://b.example.com:2",\n]\n'
            '[auth]\ntoken = "t"\n[[tools]]\nname = "one"\n[[tools]]\nname = "two"\n')
    loaded = tomlmap.load(text)
    assert loaded.issues == []
    assert loaded.positions["/name"] == (1, 8)
    assert loaded.positions["/requires/1"] == (4, 3)
    assert loaded.key_positions["/auth/token"] == (7, 1)
    assert loaded.positions["/tools/1/name"] == (11, 8)


def test_toml_implicit_tables_are_located() -> None:
    loaded = tomlmap.load('name = "x"\n[a.b]\nc = 1\nd.e = 2\n')
    assert loaded.key_positions["/a"] == (2, 1)
    assert loaded.key_positions["/a/b/d"] == (4, 1)


@pytest.mark.parametrize("text, where", [
    ('name = "a"\nversion = "1"\nname = "b"\n', (3, 1)),
    ('[t]\na = 1\n  [t]\nb = 2\n', (3, 3)),
    ('a.b = 1\na.b = 2\n', (2, 1)),
])
def test_toml_duplicate_key_points_at_the_second_key(text: str, where: tuple[int, int]) -> None:
    loaded = tomlmap.load(text)
    assert located(loaded.issues) == [(*where, "duplicate-key")]
    assert loaded.data is None


def test_toml_syntax_error_is_located() -> None:
    loaded = tomlmap.load('name = "x"\nversion = \n')
    assert located(loaded.issues) == [(2, 11, "toml-syntax")]


@pytest.mark.parametrize("text", [
    "a = " + "[" * 10_000 + "]" * 10_000 + "\n",
    "a = " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "\n",
    "[" + ".".join(["t"] * 10_000) + "]\n",
    "n = " + "9" * 5000 + "\n",
], ids=["10000-arrays", "65-arrays", "10000-tables", "huge-integer"])
def test_toml_too_complex(text: str) -> None:
    loaded = tomlmap.load(text)
    assert located(loaded.issues) == [(1, 1, "too-complex")]
    assert loaded.data is None


def test_toml_nesting_at_the_limit_is_fine() -> None:
    loaded = tomlmap.load("a = " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "\n")
    assert loaded.issues == []


def test_toml_multiline_strings_do_not_confuse_the_line_scan() -> None:
    text = 'description = """\nname = "fake"\n"""\nname = "real"\n'
    loaded = tomlmap.load(text)
    assert loaded.data == {"description": 'name = "fake"\n', "name": "real"}
    assert loaded.positions["/name"] == (4, 8)
