"""The manifest and the discovery index are encoded a line at a time with the C string
encoder (the indenting encoder is Python: seconds at 100k skills); the text must be
exactly ``json.dumps``'s."""
from __future__ import annotations

import json
import random

from skillsite.site.discovery import index_text
from skillsite.store.manifest import manifest_text

ALPHABET = 'ab/é"\\\n\x01z\u2028\U0001f680'


def _word(rng: random.Random, most: int = 9) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, most)))


def test_manifest_text_is_json_dumps_indent_2() -> None:
    rng = random.Random(2)
    for case in range(400):
        files = {_word(rng) or "x": _word(rng) for _ in range(rng.randint(0, 20))}
        manifest = {"artifact_version": "1.2", "counts": {"a": [1, {"b": 2.5}], "c": {}},
                    "repositories": [] if case % 2 else [{"x": "é", "n": None}],
                    "files": files, "sizes": {k: rng.randint(0, 10**12) for k in files}}
        if case % 7 == 0:
            manifest = {"files": files, "sizes": {k: 1 for k in files}}
        if case % 13 == 0:
            manifest["sizes"] = {k: True for k in files}  # not an int: json.dumps's way
        assert manifest_text(manifest) == json.dumps(manifest, indent=2)


def test_index_text_is_json_dumps_indent_1() -> None:
    rng = random.Random(3)
    for case in range(400):
        skills: list[dict[str, object]] = [
            {key: _word(rng) for key in ("name", "type", "description", "url", "digest")}
            for _ in range(rng.randint(0, 5))]
        if case % 9 == 0 and skills:
            skills[0]["size"] = 12
        document = {"$schema": "https://example.org/é", "skills": skills}
        assert index_text(document) == json.dumps(document, ensure_ascii=False, indent=1)
