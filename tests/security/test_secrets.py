"""Secrets in a skill never reach a report, a log or an artifact in full.

``embedded-credential`` flags them, and the skill is left out of ``dist/``; any message
that quotes a flagged value (``name 'ghp_...' is invalid``) shows only its first four
characters. Known gap, stated in SECURITY.md: the Markdown body is not scanned.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from secutil import every_byte, skillsite, write

SECRETS = {
    "github": "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    "aws": "AKIA" + "Q2W3E4R5T6Y7U8I9O0P1",
    "openai": "sk-proj-" + "Zx9Yw8Xv7Wu6Vt5Us4Tr3Sq2",
    "slack": "xoxb-" + "123456789012-abcdefghijkl",
    "url-password": "hunter2-" + "url-password",
    "literal": "correct-horse-" + "battery-staple",
}


def _corpus(root: Path, *, secret_name: bool) -> Path:
    """Secrets in every kind of field. With ``secret_name``, one skill is named with a
    token too, which name-format and name-directory-mismatch quote. (A name is stored in
    the build cache like any name, so the artifact test leaves that one out.)"""
    s = SECRETS
    named = s["github"] if secret_name else "token-user"
    return write(root, {
        f"skills/{named.lower()}/SKILL.md": (
            f"---\nname: {named}\ndescription: Uses a token {s['github']}. Use when testing.\n"
            f"compatibility: {s['aws']}\n---\nBody.\n"),
        "skills/meta/SKILL.md": (
            "---\nname: meta\ndescription: Metadata secrets. Use when testing.\nmetadata:\n"
            f"  api_key: {s['literal']}\n"
            f"  endpoint: https://bot:{s['url-password']}@tools.example.com/x\n---\nBody.\n"),
        "oxo/leak.skill.toml": (f'name = "{s["openai"] if secret_name else "leak"}"\n'
                                f'version = "1.0.0"\nauthor = "{s["openai"]}"\n'
                                'description = "d."\nskill_type = "tool"\ndomains = ["x"]\n'
                                f'requires = ["mcp://tools.example.com:8443/x?token={s["slack"]}"]\n'),
        "ongrid/leak/skill.json": json.dumps({
            "name": "leak", "description": "Leaks.", "entry": "run.sh",
            "password": s["literal"], "env": {"SLACK": s["slack"]}}),
        "ongrid/leak/run.sh": "#!/bin/sh\n",
        "skills/clean/SKILL.md": "---\nname: clean\ndescription: Clean. Use always.\n---\nBody.\n",
    })


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
def test_reports_never_hold_a_secret(tmp_path: Path, fmt: str) -> None:
    corpus = _corpus(tmp_path / "corpus", secret_name=True)
    done = skillsite("check", ".", "--format", fmt, cwd=corpus)
    assert done.returncode == 1, done.stderr
    assert "embedded-credential" in done.stdout
    for name, secret in SECRETS.items():
        assert secret not in done.stdout + done.stderr, (name, fmt)
    assert "ghp_…(redacted)" in done.stdout or "ghp_\\u2026(redacted)" in done.stdout


def test_build_output_and_artifacts_never_hold_a_secret(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "corpus", secret_name=False)
    dist = tmp_path / "dist"
    done = skillsite("build", ".", "-o", str(dist), cwd=corpus)
    assert done.returncode == 0, done.stderr
    artifacts = every_byte(dist)
    assert b'"name":"clean"' in artifacts
    for name, secret in SECRETS.items():
        assert secret not in done.stdout + done.stderr, name
        assert secret.encode() not in artifacts, name
