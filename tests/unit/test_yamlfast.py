"""The fast path for plain front matter gives exactly what the YAML parser gives."""
from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from skillsite.linter.parse import yamlfast, yamlmap


def _parsed(text: str) -> tuple[object, ...]:
    loaded = yamlmap.load(text, first_line=2)
    return loaded.data, loaded.positions, loaded.key_positions, loaded.issues


def _both(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[object, object]:
    fast = _parsed(text)
    with monkeypatch.context() as patch:
        patch.setattr(yamlfast, "parse", lambda text: None)  # the parser alone
        slow = _parsed(text)
    return fast, slow


def _agreeing_where_taken(texts: list[str], monkeypatch: pytest.MonkeyPatch) -> int:
    """How many of ``texts`` the fast path takes; each of them reads as the parser reads it."""
    taken = 0
    for text in texts:
        if yamlfast.parse(text) is None:
            continue
        taken += 1
        fast, slow = _both(text, monkeypatch)
        assert fast == slow, text
    return taken


TAKEN = [
    "name: pdf\ndescription: Fills PDF forms. Use when a form must be filled.\n",
    "name: pdf\nmetadata:\n  author: team-api\n  version: \"2.4\"\nlicense: MIT\n",
    "name: pdf\nallowed-tools: Bash(git:*)\n",
    "name: a\non: yes\nversion: 2.0\ncount: 010\ndate: 2024-01-01\nnothing: ~\n",
    "# a comment\n\nname: x\n\n# another\ndescription: it's \"quoted\" inside, C# too\n",
    "name: x\nname: y\n",  # a duplicate key, reported by the walker
    "name: 'single'\ndescription: \"double: with # inside\"\n",
    "name:    spaced\n",
    "name: café — naïve\n",
    "metadata:\n    deep: four spaces\n    other: 1\n",
    "name: x\nhuge: " + "9" * 5000 + "\n",  # too many digits: too-complex, as the parser says
    "metadata:\n  on: off\n  on: 2\nmetadata:\n  x: y\n",
    "name: x\nrequires:\n  mcp: [rube]\n",
    "tags: [a, b, c]\n",
    "tags: [yes, 1.5, ~, 010, 2024-01-01, é, C++, a-b, x.y, a/b]\n",
    "metadata:\n  tags: [one]\n  other: [two, three]\nlist: [x]\n",
    # block lists of one-line values, under a root key or a nested one, indented or not
    "name: x\nallowed-tools:\n  - Read\n  - \"Bash(ls *)\"\n  - 'Write'\nlicense: MIT\n",
    "name: x\nrequires:\n  mcp:\n    - rube\n  other: 1\n",
    "requires:\n  mcp:\n  - rube\n  - yes\n  bins:\n      -   010\nname: x\n",
    "tools:\n- Read\n-  Grep\n\n# between\n- 2024-01-01\nname: x\n",
    "tools:\n  - a - b\n  - -x\n  - key:value\n  - ~\n  - \"\"\n",
    # a plain value that starts with "-"
    "name: -21risk-automation\nn: -1\nf: -.5\ni: -.inf\nd: --x\ne: ---\n",
]
FALLS_BACK = [
    "name: [a, [b]]\n", "name: []\n", "name: [a,b]\n", "name: [a,  b]\n", "name: [ a]\n",
    "name: [a ]\n", "name: [a, ]\n", "name: [a:b]\n", "name: ['a']\n", "name: [a #b]\n",
    "name: [-a]\n", "name: [a]x\n", "name: [a, b c]\n", "name: [{a: b}]\n",
    "name: [" + ", ".join(["w"] * 65) + "]\n", "description: |\n  text\n",
    "description: a: b\n", "description: a # comment\n", "name: x \n", "name:\n",
    "metadata:\nname: x\n", "metadata:\n  a:\n", "metadata:\n  a: 1\n   b: 2\n",
    "name: x\n  continued\n", "name: \"esc\\\"aped\"\n", "name: 'it''s'\n", "name: \"a\" # c\n",
    "name:\tx\n", "name: x\t\n", "name: &anchor x\n", "name: *alias\n", "name: !tag x\n",
    "name: - x\n", "name: -\n", "name: ?x\n", "name: :x\n", "name: %x\n", "name: @x\n", "name: `x`\n",
    "name: x:\n", "name: x\u00a0\n", "name: x\u2028y\n", "  name: x\n", "key.dotted: x\n",
    "\"quoted key\": x\n", "# only a comment\n", "", "name: x\n...\n", "name:x\n", "<<: merge\n",
    # block lists of anything but one-line values, or not where a list may start
    "tools:\n  -\n", "tools:\n  - \n", "tools:\n  -x\n", "tools:\n  - [a]\n",
    "tools:\n  - a: b\n", "tools:\n  - a:\n", "tools:\n  - - a\n", "tools:\n  - a # c\n",
    "tools:\n  - a\n   - b\n", "tools:\n  - a\n - b\n", "tools:\n  - a\n    more\n",
    "tools:\n  - a\n  # c\n  - b\n", "tools:\n  - a\n  b: c\n", "m:\n  k:\n - a\n",
    "m:\n  k:\n  n: 1\n", "m:\n  k:\n", "name: x\n  - a\n", "name: x\n- a\n", "- a\n",
    "tools:\n  - a\nm:\n  - b\n  c: d\n", "tools:\n  - a\tb\n", "tools:\n  - 'a\n",
]


@pytest.mark.parametrize("text", TAKEN)
def test_plain_front_matter_takes_the_fast_path_and_agrees(
        text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert yamlfast.parse(text) is not None
    fast, slow = _both(text, monkeypatch)
    assert fast == slow


@pytest.mark.parametrize("text", FALLS_BACK)
def test_anything_else_is_left_to_the_parser(text: str) -> None:
    assert yamlfast.parse(text) is None


_PIECES = ["name", "on", "metadata", "x_y", "a-b", "K"]
_VALUES = ["pdf", "yes", "1.5", "010", "0x1F", "~", "null", "true", "2024-01-01", "1:30",
           "'q'", "\"d q\"", "\"a: b\"", "a b  c", "it's", "x # y", "x: y", "x:", "-1", "[a]",
           "é", "\"\"", "''", "=", "<<", ".inf", "NaN", "a\\b", "\"a\\b\"", " lead", "C#",
           "[a]", "[a, b]", "[yes, no]", "[1, 2.5]", "[a,b]", "[]", "[a, [b]]", "[~]", "[é]",
           "[a:b]", "[x, 'y']", "[-1]", "[a, ]"]


def test_random_front_matter_agrees_wherever_the_fast_path_is_taken(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(11)
    texts = []
    for _ in range(5000):
        lines = []
        for _ in range(rng.randint(1, 6)):
            indent = rng.choice(["", "", "", "  ", "   ", "#", "\n"])
            value = rng.choice(["", " " + rng.choice(_VALUES), "  " + rng.choice(_VALUES)])
            if rng.random() < 0.2:  # a list's item
                lines.append(f"{rng.choice(['', '  ', ' '])}-{value}")
            else:
                lines.append(f"{indent}{rng.choice(_PIECES)}:{value}")
        texts.append("\n".join(lines) + "\n")
    assert _agreeing_where_taken(texts, monkeypatch) > 300


def test_random_block_lists_agree_wherever_the_fast_path_is_taken(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys with block lists under them, at the root and one level down, indented by
    0 to 4 spaces (each line now and then one space off)."""
    rng = random.Random(12)
    texts = []
    for _ in range(4000):
        lines = []
        for _ in range(rng.randint(1, 4)):
            lines.append(f"{rng.choice(_PIECES)}:")
            nested = rng.choice(["", "  ", "    "]) if rng.random() < 0.4 else ""
            if nested:
                lines.append(f"{nested}{rng.choice(_PIECES)}:")
            indent = nested + rng.choice(["", "  ", "   ", "    "])
            for _ in range(rng.randint(1, 3)):
                off = rng.choice([""] * 12 + [" "])
                lines.append(f"{indent}{off}-{rng.choice([' ', ' ', '  '])}"
                             f"{rng.choice(_VALUES)}")
            if rng.random() < 0.3:
                lines.append(f"{nested}{rng.choice(_PIECES)}: {rng.choice(_VALUES)}")
        texts.append("\n".join(lines) + "\n")
    assert _agreeing_where_taken(texts, monkeypatch) > 300


def test_the_resolvers_are_pyyaml_s() -> None:
    """The copy of PyYAML's implicit resolvers (so that the fast path need not import
    PyYAML) is PyYAML's table: the same first characters, tags, order and patterns."""
    import yaml

    theirs = {start: [(tag, regexp.pattern, regexp.flags) for tag, regexp in resolvers]
              for start, resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.items()}
    ours = {start: [(tag, pattern, yamlfast._compiled(pattern, flags).flags)
                    for tag, pattern, flags in resolvers]
            for start, resolvers in yamlfast._IMPLICIT.items()}
    assert ours == theirs
    assert not yaml.resolver.Resolver.yaml_path_resolvers


#: Real corpora (folders of skills) whose every front matter the fast path must read as
#: the parser does: ``SKILLSITE_CORPORA`` (paths separated by os.pathsep), else the
#: folders under /work/corpora when there are any; the test is skipped without them.
_CORPORA = [Path(p) for p in os.environ.get("SKILLSITE_CORPORA", "").split(os.pathsep) if p]
if not _CORPORA and Path("/work/corpora").is_dir():
    _CORPORA = sorted(p for p in Path("/work/corpora").iterdir() if p.is_dir())


@pytest.mark.skipif(not _CORPORA, reason="no real corpora here (SKILLSITE_CORPORA)")
@pytest.mark.parametrize("corpus", _CORPORA, ids=lambda p: p.name)
def test_every_front_matter_of_a_real_corpus_agrees(
        corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from skillsite.linter.parse import frontmatter

    taken = 0
    for path in sorted(corpus.rglob("*.md")):
        try:
            text = frontmatter.normalize(path.read_bytes().decode("utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
        parts = frontmatter.split(text)
        if parts.yaml is None or not parts.closed or yamlfast.parse(parts.yaml) is None:
            continue
        taken += 1
        fast, slow = _both(parts.yaml, monkeypatch)
        assert fast == slow, path
    assert taken
