"""No code from a skill is ever executed, by ``check`` or ``build``.

The corpus below tries every way a skill carries code: scripts, a ``skill.json`` entry, a
``.skill.toml`` entry, Claude Code's ``!`command``` injection, a YAML tag that PyYAML's
unsafe loader would call, Python files where an importer might look (``conftest.py``,
``setup.py``, ``__init__.py``, a ``click.py`` at the root), and a git hook. Each would
create its own marker file; none may exist afterwards.
"""
from __future__ import annotations

import stat
from pathlib import Path

from secutil import skillsite, write


def _touch(marker: Path) -> str:
    return f"open({str(marker)!r}, 'w').close()\n"


def _corpus(root: Path, markers: Path) -> Path:
    def m(name: str) -> Path:
        return markers / name

    write(root, {
        "skills/runner/SKILL.md": (
            "---\nname: runner\ndescription: Runs things. Use when testing.\n"
            f"allowed-tools: Bash(touch:*)\nx-tag: !!python/object/apply:os.system "
            f"['touch {m('yaml-tag')}']\n---\n"
            f"Run this first: !`touch {m('bang-command')}`\n\n"
            f"```!\ntouch {m('bang-fence')}\n```\n\n[script](scripts/run.sh)\n"),
        "skills/runner/scripts/run.sh": f"#!/bin/sh\ntouch {m('script')}\n",
        "skills/runner/scripts/conftest.py": _touch(m("conftest")),
        "skills/runner/setup.py": _touch(m("setup-py")),
        "skills/runner/__init__.py": _touch(m("init-py")),
        "click.py": _touch(m("click-py")),
        "yaml.py": _touch(m("yaml-py")),
        "ongrid/entry/skill.json": ('{"name": "entry", "description": "Runs its entry.", '
                                    '"entry": "run.sh"}'),
        "ongrid/entry/run.sh": f"#!/bin/sh\ntouch {m('json-entry')}\n",
        "oxo/tool.skill.toml": ('name = "tool"\nversion = "1.0.0"\ndescription = "d."\n'
                                'skill_type = "knowledge"\ndomains = ["x"]\n'
                                'entry = "tool.sh"\n'),
        "oxo/tool.sh": f"#!/bin/sh\ntouch {m('toml-entry')}\n",
        ".git/hooks/post-checkout": f"#!/bin/sh\ntouch {m('git-hook')}\n",
    })
    for script in root.rglob("*.sh"):
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return root


def test_check_and_build_execute_nothing(tmp_path: Path) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    corpus = _corpus(tmp_path / "corpus", markers)
    checked = skillsite("check", ".", "--format", "json", cwd=corpus)
    built = skillsite("build", ".", "-o", str(tmp_path / "dist"), "--jobs", "2", cwd=corpus)
    assert checked.returncode in (0, 1) and "Traceback" not in checked.stderr, checked.stderr
    assert built.returncode == 0, built.stderr
    assert sorted(p.name for p in markers.iterdir()) == []
    # The skills were really read: the build included them, the YAML tag was seen.
    catalog = (tmp_path / "dist" / "catalog.json").read_text("utf-8")
    assert '"name":"entry"' in catalog and '"name":"tool"' in catalog
    assert "unknown field 'x-tag'" in checked.stdout  # the tag was read as plain data
