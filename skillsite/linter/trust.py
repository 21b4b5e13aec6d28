"""A skill's trust assessment: what it can do (capabilities, information only) kept apart
from what a reviewer must look at (risks, each with its evidence), summed up in a level.

- ``none``: no risk found. A skill that runs scripts, calls an API or declares
  ``allowed-tools`` is ``none``: those are capabilities, listed, never flags.
- ``review``: a finding a reviewer should look at (an unpinned package runner, an
  encoded blob, invisible characters, dynamic context, an internal endpoint, an ongrid
  ``dangerous`` class).
- ``high``: a finding that alone can hurt whoever follows the skill: a download piped
  into an interpreter, a secret, a prompt override, instructions hidden in a comment,
  an entry point that escapes the corpus.

The level comes from the skill's own lint problems (rule, file, line) and its parsed
data; nothing is executed and no file outside the skill is read.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from skillsite.linter.markers import MARKERS
from skillsite.linter.markers import found as markers_of
from skillsite.linter.rules import RULES
from skillsite.linter.rules.context import Context
from skillsite.linter.rules.texts import texts
from skillsite.models import Document, Problem

NONE, REVIEW, HIGH = "none", "review", "high"
LEVELS = (NONE, REVIEW, HIGH)
#: Risk rules and the level each finding gives, with the words of the summary sentence.
RISKS: dict[str, tuple[str, str]] = {
    "pipe-to-shell": (HIGH, "pipes a download into an interpreter"),
    "secret-in-content": (HIGH, "ships what looks like a secret"),
    "embedded-credential": (HIGH, "ships a credential in its fields"),
    "prompt-override": (HIGH, "tells the agent to drop its instructions"),
    "hidden-instructions": (HIGH, "hides instructions in a comment or link title"),
    "entry-escapes-root": (HIGH, "has an entry point outside the corpus"),
    "invisible-unicode": (REVIEW, "holds invisible or smuggled Unicode"),
    "encoded-payload": (REVIEW, "holds an encoded blob"),
    "dynamic-context": (REVIEW, "runs a command when it loads"),
    "unpinned-runner": (REVIEW, "runs an unpinned package"),
    "endpoint-internal": (REVIEW, "names an internal (SSRF-prone) endpoint"),
    "dangerous-class": (REVIEW, "declares ongrid's dangerous class"),
}
MAX_REASONS = 20
_LANGUAGES = {".py": "python", ".sh": "shell", ".bash": "shell", ".zsh": "shell",
              ".fish": "shell", ".js": "javascript", ".mjs": "javascript",
              ".cjs": "javascript", ".ts": "typescript", ".rb": "ruby", ".pl": "perl",
              ".php": "php", ".ps1": "powershell", ".psm1": "powershell", ".bat": "batch",
              ".cmd": "batch", ".lua": "lua"}
#: ``\b(?:https?|wss?)://([A-Za-z0-9.-]+)``, written to start with a letter (the ``\b``
#: as a lookbehind after it), which the regex engine skips to instead of trying the word
#: boundary at every character of a script (five times faster on public corpora's scripts).
_URL = re.compile(r"(?:h(?<!\wh)ttps?|w(?<!\ww)ss?)://([A-Za-z0-9.-]+)")
#: Hosts that name a schema or an example, not a server the skill calls.
_NOT_CALLED = re.compile(r"(?:^|\.)(?:example\.(?:com|org|net)|w3\.org|openxmlformats\.org|"
                         r"schemas\.microsoft\.com|purl\.org|localhost|xmlsoft\.org|"
                         r"json-schema\.org|apache\.org|opensource\.org)$|^(?:owner|your|x)$")
_COMMAND = re.compile(r"^\s*(?:\$ )?(?:curl|wget|http|https|fetch|gh api|xh)\b")
_WRITES = re.compile(r"open\([^)\n]*[\"'][wax]b?\+?[\"']|\.write_(?:text|bytes)\(|"
                     r"writeFileSync?\(|(?:^|[^<>=!\d])>>?\s*[\w\"$./~-]|\btee\b|"
                     r"\bmkdir\b|\bshutil\.(?:copy|move)|\bos\.(?:remove|rename|makedirs)")
#: What every match of _WRITES holds: a script without any is not searched (the pattern
#: has no literal start, so the regex engine tries it at every character).
_WRITES_MARKERS = ("open(", ".write_", "writeFile", ">", "tee", "mkdir", "shutil.", "os.")
_CREDENTIAL = re.compile(r"\b([A-Z][A-Z0-9_]*(?:API_KEY|TOKEN|SECRET|PASSWORD|_KEY))\b")
#: What every match of _CREDENTIAL holds (a text without them is not searched).
_CREDENTIAL_WORDS = ("_KEY", "TOKEN", "SECRET", "PASSWORD")
#: Each of _CREDENTIAL_WORDS with its lowered form, a marker of the marker pass.
_CREDENTIAL_LOWERED = tuple((word, word.lower()) for word in _CREDENTIAL_WORDS)
assert {lowered for _, lowered in _CREDENTIAL_LOWERED} <= set(MARKERS)
_CREDENTIAL_MARKERS = frozenset(lowered for _, lowered in _CREDENTIAL_LOWERED)


def assess(doc: Document, problems: Iterable[Problem], ctx: Context,
           path: str) -> dict[str, Any]:
    """``{"level", "summary", "reasons", "capabilities"}`` for one skill document, shown
    at ``path``."""
    reasons = [_reason(p) for p in problems if _risk(p.rule)[0]]
    reasons += _dangerous_class(doc, path)
    if not reasons:  # most skills: no level to rank, nothing to sort
        return {"level": NONE, "summary": _NO_RISK, "reasons": reasons,
                "capabilities": capabilities(doc, ctx)}
    level = max((_risk(r["rule"])[0] for r in reasons), key=LEVELS.index, default=NONE)
    reasons.sort(key=lambda r: (-LEVELS.index(_risk(r["rule"])[0]), r["path"], r["line"]))
    return {"level": level, "summary": _summary(level, reasons),
            "reasons": reasons[:MAX_REASONS], "capabilities": capabilities(doc, ctx)}


def _risk(rule_id: str) -> tuple[str, str]:
    """The level and words of a risk rule; any other rule of the ``security`` family is
    one to review. ``("", "")`` for a rule that is no risk."""
    if rule_id in RISKS:
        return RISKS[rule_id]
    rule = RULES.get(rule_id)
    if rule is not None and rule.family == "security":
        return REVIEW, f"has a {rule_id} finding"
    return "", ""


def _reason(problem: Problem) -> dict[str, Any]:
    return {"rule": problem.rule, "path": problem.path, "line": problem.line,
            "column": problem.column, "message": problem.message}


def _dangerous_class(doc: Document, path: str) -> list[dict[str, Any]]:
    if doc.source.kind != "skill-json" or (doc.data or {}).get("class") != "dangerous":
        return []
    line, column = doc.where("/class")
    return [{"rule": "dangerous-class", "path": path, "line": line, "column": column,
             "message": "class is 'dangerous': the tool may destroy data"}]


#: The summary of a skill without risk.
_NO_RISK = "No risk found; what the skill can do is listed under capabilities."


def _summary(level: str, reasons: list[dict[str, Any]]) -> str:
    if level == NONE:
        return _NO_RISK
    first = reasons[0]
    what = _risk(first["rule"])[1]
    more = len(reasons) - 1
    tail = f", and {more} more finding{'s' if more > 1 else ''}" if more else ""
    return (f"{'High risk' if level == HIGH else 'Review'}: it {what} "
            f"({first['rule']}, {first['path']}:{first['line']}){tail}.")


def capabilities(doc: Document, ctx: Context) -> dict[str, Any]:
    """What the skill can do when an agent follows it: information, never a flag."""
    languages: dict[str, int] = {}
    hosts: set[str] = set()
    credentials: set[str] = set()
    writes = False
    for text in texts(doc, ctx):
        suffix = "." + text.rel.rsplit(".", 1)[-1].lower() if text.rel and "." in text.rel else ""
        language = _LANGUAGES.get(suffix)
        if language:
            languages[language] = languages.get(language, 0) + 1
        elif "://" not in markers_of(text.text) and not _credential_words(text.text):
            continue  # its command lines could hold no host and no credential: skip them
        code = text.text if language else _command_lines(text.text)
        if "://" in (markers_of(code) if code is text.text else code):  # in every URL
            hosts.update(h.lower() for h in _URL.findall(code)
                         if not _NOT_CALLED.search(h.lower()))
        if _credential_words(text.text) if language else any(
                word in code for word in _CREDENTIAL_WORDS):
            credentials.update(_CREDENTIAL.findall(code))
        writes = writes or bool(language and _writes(text.text))
    if not (languages or hosts or credentials or writes or doc.source.kind == "skill-json"):
        # Most skills: no script, host or credential, without sorting empty collections.
        return {"scripts": {"count": 0, "languages": []}, "network": [],
                "writes_files": False, "credentials": [], "allowed_tools": _allowed_tools(doc)}
    entry = (doc.data or {}).get("entry")
    if doc.source.kind == "skill-json" and isinstance(entry, str) and not languages:
        languages["entry"] = 1
    return {"scripts": {"count": sum(languages.values()), "languages": sorted(languages)},
            "network": sorted(hosts)[:20], "writes_files": writes,
            "credentials": sorted(credentials)[:20], "allowed_tools": _allowed_tools(doc)}


def _writes(text: str) -> bool:
    """``_WRITES.search(text) is not None``."""
    return any(marker in text for marker in _WRITES_MARKERS) and _WRITES.search(
        text) is not None


def _credential_words(text: str) -> bool:
    """``any(word in text for word in _CREDENTIAL_WORDS)``, settled by the marker pass
    for most texts: each word, lowered, is a marker, and only a word whose lowered form
    the text holds is searched for."""
    present = markers_of(text)
    return not present.isdisjoint(_CREDENTIAL_MARKERS) and any(
        word in text for word, lowered in _CREDENTIAL_LOWERED if lowered in present)


def _command_lines(text: str) -> str:
    """The lines of Markdown that run a network command (``curl https://...``), not
    links in prose: ``"\\n".join(line for line in text.splitlines() if
    _COMMAND.match(line))``, with only the lines that hold a command word looked at."""
    lines: dict[int, str | None] = {}
    present = markers_of(text)
    for found in (found for literal, marked, word in _COMMAND_WORDS
                  if (literal in present if marked else literal in text)
                  for found in word.finditer(text)):
        start = _line_start(text, found.start())
        if start >= 0 and start not in lines:
            end = _LINE_BREAK.search(text, found.end())
            line = text[start:end.start() if end else len(text)]
            lines[start] = line if _COMMAND.match(line) else None
    return "\n".join(line for _, line in sorted(lines.items()) if line is not None)


#: The words of _COMMAND where a space or the start of the text stands before them (as
#: :func:`_line_start` needs; not a link's URL or an XML namespace, which are most of
#: them and are passed over inside the regex engine): one pattern each, led by a literal
#: that the engine skips to quickly (an alternation is tried at every character), and run
#: only on a text that holds the word: as the marker pass found it (lowered) for all but
#: "http", which nearly every text holds (a search of each word costs about as much as
#: the pattern's own scan, and a bundled schema can hold megabytes).
_COMMAND_WORDS = [(word, word in MARKERS, re.compile(rf"{word}(?<![^\s]{word}){tail}\b"))
                  for word, tail in (("curl", ""), ("wget", ""), ("http", "s?"), ("fetch", ""),
                                     ("gh api", ""), ("xh", ""))]
#: What ``str.splitlines`` ends a line at.
_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_LINE_BREAK = re.compile(f"[{_LINE_BREAKS}]")


def _line_start(text: str, at: int) -> int:
    """The start of ``at``'s line when only spaces, and maybe a ``$ `` prompt, stand
    before ``at`` on it (as _COMMAND allows); -1 otherwise."""
    for start in ((at, at - 2) if at >= 2 and text[at - 2:at] == "$ " else (at,)):
        while start and text[start - 1] not in _LINE_BREAKS and text[start - 1].isspace():
            start -= 1
        if not start or text[start - 1] in _LINE_BREAKS:
            return start
    return -1


def _allowed_tools(doc: Document) -> list[str]:
    tools = (doc.data or {}).get("allowed-tools")
    if isinstance(tools, str):
        return tools.replace(",", " ").split()
    if isinstance(tools, list):
        return [str(t) for t in tools]
    return []
