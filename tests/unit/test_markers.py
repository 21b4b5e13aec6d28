"""The one-pass marker search answers exactly what ``marker in text`` answers."""
from __future__ import annotations

from skillsite.linter import markers

TEXTS = [
    "", "plain prose with nothing to see", "export AKIA=1", "akia in lower case",
    "a private key and a key", "run npx foo", "RUN NPX FOO", "curl | sh", "Curl | SH",
    "the \u212aey with a Kelvin sign", "<!-- hidden -->", "TODO: finish", "todo later",
    "[Insert your name]", "uses !`git status`", "ghp_abc and gho_", "\u0130stanbul token",
]


def test_contains_is_marker_in_text() -> None:
    asked = [*markers.MARKERS, "AKIA", "NPX", "TODO", "[Insert", "PRIVATE KEY", "Key",
             "not-a-marker", "\u212aey"]
    for text in TEXTS:
        assert [markers.contains(text, m) for m in asked] == [m in text for m in asked], text


def test_contains_lowered_is_marker_in_lowered_text() -> None:
    asked = [*markers.MARKERS, "not-a-marker"]
    for text in TEXTS:
        assert ([markers.contains_lowered(text, m) for m in asked]
                == [m in text.lower() for m in asked]), text


def test_markers_inside_other_markers_are_found() -> None:
    assert {"private key", "key"} <= markers.found("-----BEGIN PRIVATE KEY-----")


def test_every_marker_is_lower_case_ascii() -> None:
    assert all(m.isascii() and m == m.lower() for m in markers.MARKERS)


def test_any_forms_are_any_of_the_plain_searches() -> None:
    groups = [("AKIA", "ghp_", "not-a-marker"), ("TODO", "FIXME", "TBD", "XXX"),
              ("npx", "uvx", "pipx run"), ("[Insert", "[Describe"), ("zzz", "\u212aey")]
    for text in TEXTS:
        for group in groups:
            assert markers.any_in(text, group) == any(m in text for m in group), (text, group)
            lowered = tuple(m.lower() for m in group)
            assert (markers.any_lowered(text, lowered)
                    == any(m in text.lower() for m in lowered)), (text, group)
