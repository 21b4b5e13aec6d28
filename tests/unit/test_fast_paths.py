"""Searches rewritten for speed find exactly what the plain regex finds."""
from __future__ import annotations

import random

from skillsite.linter import secrets


def test_assignments_are_the_matches_of_the_assignment_regex() -> None:
    rng = random.Random(3)
    pieces = [":", "=", " ", "\t", "'", '"', "abcdefghij", "ABCDEF0123", "+/", "_.~-", "\n",
              "api_key", "x", "=:", "::"]
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        expected = [(m.span(), m.group(1)) for m in secrets._ASSIGNED.finditer(text)]
        assert [(m.span(), m.group(1)) for m in secrets._assignments(text)] == expected, text


def test_a_secret_after_several_separators_is_still_found() -> None:
    text = "a: b\nx = 1\nurl: https://example.com\napi_key = 'Zq8vR2mT5nW1xY7kP3sL'\n"
    assert [what for _, what in secrets.find_secrets(text)] == [
        "a secret assigned to a secret-named key"]
