"""The fast path for plain front matter gives exactly what the YAML parser gives."""
from __future__ import annotations

import random

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
]
FALLS_BACK = [
    "name: [a, [b]]\n", "name: []\n", "name: [a,b]\n", "name: [a,  b]\n", "name: [ a]\n",
    "name: [a ]\n", "name: [a, ]\n", "name: [a:b]\n", "name: ['a']\n", "name: [a #b]\n",
    "name: [-a]\n", "name: [a]x\n", "name: [a, b c]\n", "name: [{a: b}]\n",
    "name: [" + ", ".join(["w"] * 65) + "]\n", "tools:\n  - Read\n", "description: |\n  text\n",
    "description: a: b\n", "description: a # comment\n", "name: x \n", "name:\n",
    "metadata:\nname: x\n", "metadata:\n  a:\n", "metadata:\n  a: 1\n   b: 2\n",
    "name: x\n  continued\n", "name: \"esc\\\"aped\"\n", "name: 'it''s'\n", "name: \"a\" # c\n",
    "name:\tx\n", "name: x\t\n", "name: &anchor x\n", "name: *alias\n", "name: !tag x\n",
    "name: -x\n", "name: ?x\n", "name: :x\n", "name: %x\n", "name: @x\n", "name: `x`\n",
    "name: x:\n", "name: x\u00a0\n", "name: x\u2028y\n", "  name: x\n", "key.dotted: x\n",
    "\"quoted key\": x\n", "# only a comment\n", "", "name: x\n...\n", "name:x\n", "<<: merge\n",
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
    taken = 0
    for _ in range(3000):
        lines = []
        for _ in range(rng.randint(1, 6)):
            indent = rng.choice(["", "", "", "  ", "   ", "#", "\n"])
            value = rng.choice(["", " " + rng.choice(_VALUES), "  " + rng.choice(_VALUES)])
            lines.append(f"{indent}{rng.choice(_PIECES)}:{value}")
        text = "\n".join(lines) + "\n"
        if yamlfast.parse(text) is None:
            continue
        taken += 1
        fast, slow = _both(text, monkeypatch)
        assert fast == slow, text
    assert taken > 300


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
