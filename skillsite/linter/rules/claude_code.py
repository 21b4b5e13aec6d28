"""Rules about the values of Claude Code's front-matter fields.

The shapes come from Claude Code's skill documentation: ``model`` is an alias or a full
model ID, ``context`` is ``fork``, ``agent`` needs ``context: fork``, ``hooks`` maps hook
events to lists, ``allowed-tools`` names Claude Code's tools.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from skillsite.linter.fences import fences, in_fence
from skillsite.linter.links import position
from skillsite.linter.rules.context import Context, dialect, is_claude_code
from skillsite.linter.rules.registry import Finding, rule
from skillsite.models import Document

CLAUDE_CODE = "claude-code"
MODELS = frozenset({"sonnet", "opus", "haiku", "inherit", "default", "opusplan", "sonnet[1m]",
                    "opus[1m]"})
_MODEL_ID = re.compile(r"^(?:claude-|anthropic\.|us\.anthropic\.|eu\.anthropic\.)[\w.:@-]+$")
HOOK_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "Notification",
                         "UserPromptSubmit", "Stop", "SubagentStart", "SubagentStop",
                         "PreCompact", "PostCompact", "SessionStart", "SessionEnd",
                         "PermissionRequest"})
#: Claude Code's tools (its tools reference, current and recently renamed ones).
TOOLS = frozenset({
    "Agent", "Artifact", "AskUserQuestion", "Bash", "BashOutput", "CronCreate", "CronDelete",
    "CronList", "Edit", "EndConversation", "EnterPlanMode", "EnterWorktree", "ExitPlanMode",
    "ExitWorktree", "Glob", "Grep", "KillBash", "KillShell", "LS", "LSP", "ListAgents",
    "ListMcpResourcesTool", "Monitor", "MultiEdit", "MultiTool", "NotebookEdit",
    "NotebookRead", "PowerShell", "PushNotification", "Read", "ReadMcpResourceTool",
    "RemoteTrigger", "ReportFindings", "ScheduleWakeup", "SendMessage", "SendMessageTool",
    "SendUserFile", "Skill", "SlashCommand", "SubagentHandback", "Task", "TaskCreate",
    "TaskGet", "TaskList", "TaskOutput", "TaskStop", "TaskUpdate", "TeamCreate",
    "TeamDelete", "TodoRead", "TodoWrite", "ToolSearch", "WaitForMcpServers", "WebFetch",
    "WebSearch", "Workflow", "Write"})
# "$ARGUMENTS", "$ARGUMENTS[1]" or "$1" standing alone: not "$5.00" nor "$10".
_ARGUMENTS = re.compile(r"\$ARGUMENTS\b|(?<![\w$])\$\d(?![\d.,A-Za-z])")
# An amount of money: "$10", "$5.00", "$1,000", "$1M", "$5k", "~$5", "$5-8", "$5/year", or
# a stand-in amount: "$X/month", "$[X]".
_AMOUNT = re.compile(r"(?<![\w$])\$\d(?:[\d.,]*\d|[KkMmBb]\b|[-\u2013]\$?\d|/[a-z])|~\$\d"
                     r"|\$\[[A-Z]\w*\]|(?<![\w$])\$[A-Z]/[a-z]")
_SIDE_EFFECT = re.compile(r"(?:^|-)(deploy|release|publish|push|send|delete|drop|destroy|"
                          r"migrate|rollback|merge)(?:-|$)")


def _tools(doc: Document) -> list[tuple[str, str]]:
    """``(tool, pointer)`` per entry of ``allowed-tools``, a string or a list."""
    value: Any = (doc.data or {}).get("allowed-tools")
    if isinstance(value, str):
        return [(t, "/allowed-tools") for t in re.findall(r"[^\s,(]+(?:\([^)]*\))?", value)]
    if isinstance(value, list):
        return [(t, f"/allowed-tools/{i}") for i, t in enumerate(value) if isinstance(t, str)]
    return []


@rule("claude-code-field-value", "warning", formats=("skill-md",), family=CLAUDE_CODE,
      peers={"agnix": "CC-SK-001, CC-SK-002, CC-SK-004, CC-SK-010"})
def claude_code_field_value(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    A Claude Code field holds a value Claude Code does not take: a ``model`` that is
    neither an alias (``sonnet``, ``opus``, ``haiku``, ``inherit``) nor a full model ID
    (``claude-...``), a ``context`` other than ``fork``, an ``agent`` without
    ``context: fork`` (it is ignored then), or ``hooks`` that are not a mapping from hook
    events (``PreToolUse``, ``Stop``...) to lists.

    Only a skill established as Claude Code's is checked (see ``allowed-tools-unknown``):
    another client's ``model`` names that client's models.
    """
    if not is_claude_code(doc, ctx):
        return
    data = doc.data or {}
    model, context, hooks = data.get("model"), data.get("context"), data.get("hooks")
    if isinstance(model, str) and model not in MODELS and not _MODEL_ID.match(model):
        yield "/model", (f"model {model!r} is not a Claude Code alias ({', '.join(sorted(MODELS))})"
                         " or a full model ID such as 'claude-sonnet-4-5'")
    if isinstance(context, str) and context != "fork":
        yield "/context", f"context {context!r} is not 'fork', the only value Claude Code takes"
    if "agent" in data and context != "fork":
        yield "/agent", "agent applies only with 'context: fork'; add it or remove agent"
    if isinstance(hooks, dict):
        for event, handlers in hooks.items():
            if event not in HOOK_EVENTS:
                yield f"/hooks/{event}", f"{event!r} is not a Claude Code hook event"
            elif not isinstance(handlers, list):
                yield f"/hooks/{event}", f"hooks.{event} should be a list of matchers"


@rule("allowed-tools-unknown", "warning", formats=("skill-md",), family=CLAUDE_CODE,
      peers={"agnix": "CC-SK-008"})
def allowed_tools_unknown(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    ``allowed-tools`` names a tool Claude Code does not have (``List``, ``Shell``), so
    the permission grants nothing. MCP tools (``mcp__server__tool``) are always accepted.

    Only a skill established as Claude Code's is checked: one under a ``.claude`` folder,
    in a Claude Code plugin or marketplace (``.claude-plugin/``), or using a field or
    variable only Claude Code defines (``context``, ``agent``, ``hooks``,
    ``when_to_use``, ``${CLAUDE_SKILL_DIR}``). Other clients name their own tools
    (GitHub Copilot's ``ask_user``, VS Code's ``Azure MCP/documentation``), which Claude
    Code's list cannot judge. Reported at the tool's own name.
    """
    if dialect(doc) != "agent-skills" or not is_claude_code(doc, ctx):
        return
    for tool, pointer, column in _tools_at(doc):
        name = tool.split("(", 1)[0]
        if name not in TOOLS and not name.startswith("mcp__"):
            yield column or pointer, (f"allowed-tools names {name!r}, which is not a Claude "
                                      "Code tool")


def _tools_at(doc: Document) -> Iterator[tuple[str, str, tuple[int, int] | None]]:
    """Each tool with its pointer and, when the string is written on one line as it reads
    (plain or quoted), the tool's own line and column."""
    value: Any = (doc.data or {}).get("allowed-tools")
    start = _written_at(doc, value) if isinstance(value, str) else None
    at = 0
    for tool, pointer in _tools(doc):
        at = value.find(tool, at) if start else -1
        yield tool, pointer, (start[0], start[1] + at) if start and at >= 0 else None
        at += len(tool)


def _written_at(doc: Document, value: str) -> tuple[int, int] | None:
    """Where the string ``allowed-tools`` starts in the file, when it is written as is."""
    line, column = doc.where("/allowed-tools")
    lines = doc.raw.decode("utf-8", "replace").split("\n", line)
    if len(lines) < line:
        return None
    written = lines[line - 1]
    for skip in (0, 1):  # a plain scalar, or a quoted one
        if written[column - 1 + skip:].startswith(value):
            return line, column + skip
    return None


@rule("unrestricted-bash", "warning", formats=("skill-md",), family=CLAUDE_CODE, opt_in=True,
      peers={"agnix": "CC-SK-007"})
def unrestricted_bash(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    ``allowed-tools`` pre-approves ``Bash`` with no command pattern, so every shell
    command runs without asking. Scope it: ``Bash(git:*) Bash(pytest:*)``.

    Opt-in (``extend-select = ["unrestricted-bash"]``): many skills grant Bash on purpose.
    """
    for tool, pointer in _tools(doc):
        if tool == "Bash":
            yield pointer, "Bash is allowed without a command pattern; scope it, as Bash(git:*)"


@rule("arguments-without-hint", "warning", formats=("skill-md",), family=CLAUDE_CODE,
      peers={"agnix": "CC-SK-016"})
def arguments_without_hint(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    The body uses ``$ARGUMENTS``, ``$ARGUMENTS[N]`` or ``$N`` outside code, but there is no
    ``argument-hint``, so the ``/`` menu does not tell the user to pass anything.

    ``$5.00``, ``$10``, ``$1M``, ``~$5``, ``$5-8`` and ``$5/year`` are amounts, not
    arguments, and in a body that writes amounts (stand-ins such as ``$X/month`` and
    ``$[X]`` included) so is a lone ``$0`` or ``$5`` ("$5 recommended"). ``$1`` inside
    single quotes or braces on its line is a field of ``awk '{print $1}'`` or a shell
    variable, not an argument.
    """
    data = doc.data or {}
    if "argument-hint" in data or not _maybe_arguments(doc.body):
        return
    blocks = None
    money = _AMOUNT.search(doc.body) is not None
    for found in _ARGUMENTS.finditer(doc.body):
        blocks = fences(doc.body) if blocks is None else blocks
        positional = found.group() != "$ARGUMENTS"
        if positional and (money or _in_script_text(doc.body, found.start())):
            continue
        if not in_fence(blocks, found.start()):
            yield position(doc.body, doc.body_line, found.start()), (
                f"the body uses {found.group()} but there is no argument-hint; add one, "
                "such as argument-hint: [file]")
            return


def _in_script_text(body: str, offset: int) -> bool:
    """Inside single quotes or braces on its line: ``awk '{print $1}'``, ``${1}``."""
    before = body[body.rfind("\n", 0, offset) + 1:offset]
    return before.count("'") % 2 == 1 or before.count("{") > before.count("}")


def _maybe_arguments(body: str) -> bool:
    """A cheap look for "$ARGUMENTS" or "$" and a digit, before any regex runs."""
    if "$" not in body:
        return False  # one character, found much faster than "$ARGUMENTS"
    if "$ARGUMENTS" in body:
        return True
    at = body.find("$")
    while at >= 0:
        if body[at + 1:at + 2].isdigit():
            return True
        at = body.find("$", at + 1)
    return False


@rule("side-effect-invocation", "warning", formats=("skill-md",), family=CLAUDE_CODE,
      peers={"agnix": "CC-SK-006"})
def side_effect_invocation(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    A skill whose name says it acts on the world (``deploy``, ``release``, ``publish``,
    ``push``, ``send``, ``delete``, ``migrate``...) and may run shell commands, without
    ``disable-model-invocation: true``: the model may start it on its own.
    """
    data = doc.data or {}
    name = data.get("name")
    if (isinstance(name, str) and _SIDE_EFFECT.search(name)
            and data.get("disable-model-invocation") is not True
            and any(t.split("(")[0] == "Bash" for t, _ in _tools(doc))):
        yield "/name", (f"{name!r} has side effects; add disable-model-invocation: true so "
                        "that only the user starts it")
