"""How to install one skill, per client, chosen by what the skill is.

- A skill of a plugin that a marketplace lists: Claude Code's ``/plugin marketplace add``
  and ``/plugin install PLUGIN@MARKETPLACE`` (when the repository is known).
- Any skill the discovery index serves: download it into Claude Code's folders
  (``~/.claude/skills/``, a project's ``.claude/skills/``) or Codex's (``~/.agents/skills/``,
  ``.agents/skills/``), and the discovery artifact itself.
- ``npx skills add OWNER/REPO --skill NAME`` (the repository when known, else this site).
- skillsite's own ``read`` and the MCP call, for every skill.

Every value in a shell command is shell-quoted, then HTML-escaped; install commands are
offered only for a name a client can invoke. Plugin and marketplace names go into a
Claude Code command only when they are plain words.
"""
from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass

from skillsite.site.discovery import publishable
from skillsite.site.sanitize import text

#: A plugin or marketplace name that a slash command can take as it is.
_PLAIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
#: Where the site is served, filled in by skillsite.js from the page's own URL.
BASE = '<span class="skillsite-base">https://your-site.example/</span>'
#: (client, personal folder, project folder)
FOLDERS = (("Claude Code", "~/.claude/skills", ".claude/skills"),
           ("Codex", "~/.agents/skills", ".agents/skills"))


@dataclass(frozen=True)
class Command:
    label: str
    html: str            # the command, escaped (it may hold the BASE span)


@dataclass(frozen=True)
class Where:
    """What the install commands of one skill need besides the skill."""

    id: str              # the skill's id (what skillsite read takes)
    name: str            # the folder name a client installs it under
    artifact: str        # its discovery artifact, relative to the site root ("": none)
    plugin: str = ""
    marketplace: str = ""
    repo: str = ""       # OWNER/REPO on GitHub, or a git URL; "" when unknown


def install_html(where: Where) -> str:
    """The install box: the first choice open, the others under a fold."""
    first, more = _commands(where)
    html = "\n".join(_shown(c) for c in first)
    if more:
        html += ("\n<details class=\"skillsite-more\"><summary>More ways to install "
                 "and read it</summary>\n" + "\n".join(_shown(c) for c in more)
                 + "\n</details>")
    if not where.artifact:
        html += f"\n<p>{text(_no_download(where))}</p>"
    return html


def _no_download(where: Where) -> str:
    if not publishable(where.name):
        return ("No install command: a client can only invoke a skill whose name is "
                "lowercase letters, digits and single hyphens (at most 64).")
    instead = " Install its plugin instead (above)." if _plugin(where) else ""
    return (f"No download command: other skills of this catalog are also named "
            f"{where.name}, and the discovery index serves one skill per name.{instead}")


def _commands(where: Where) -> tuple[list[Command], list[Command]]:
    first: list[Command] = []
    more: list[Command] = []
    plugin = _plugin(where)
    first += plugin
    name = text(shlex.quote(where.name))
    if where.artifact:
        copies = [_copy(client, folder, name, where.artifact, scope)
                  for client, personal, project in FOLDERS
                  for folder, scope in ((personal, "for you"), (project, "for this project"))]
        (more if plugin else first).append(copies[0])
        more += copies[1:]
        npx = _npx(where, name)
        (more if plugin else first).append(npx)
        url = f"{BASE}{text(where.artifact)}"
        more.append(Command("The discovery artifact (what the commands above download)",
                            f"curl -fsSLO {url}"))
    call = {"method": "tools/call",
            "params": {"name": "read", "arguments": {"ref": where.id}}}
    more += [Command("Read it with skillsite", f"skillsite read {text(shlex.quote(where.id))}"),
             Command("Read it over MCP (skillsite mcp)",
                     text(json.dumps(call, ensure_ascii=False)))]
    if not first:
        first, more = more[:1], more[1:]
    return first, more


def plugin_commands(plugin: str, marketplace: str, repo: str) -> str:
    """The Claude Code commands that install ``plugin`` ("" when one is unknown)."""
    return "\n".join(_shown(c) for c in _plugin_install(plugin, marketplace, repo, ""))


def _plugin(where: Where) -> list[Command]:
    return _plugin_install(where.plugin, where.marketplace, where.repo, where.name)


def _plugin_install(plugin: str, marketplace: str, repo: str, name: str) -> list[Command]:
    if not (plugin and marketplace and repo and _PLAIN.match(plugin)
            and _PLAIN.match(marketplace)):
        return []
    invoked = f"/{plugin}:{name}" if name and publishable(name) else ""
    after = f", then invoke it as {invoked}" if invoked else ""
    return [Command("Claude Code: add the marketplace once",
                    f"/plugin marketplace add {text(repo)}"),
            Command(f"Claude Code: install the plugin {plugin}{after}",
                    f"/plugin install {text(plugin)}@{text(marketplace)}")]


def _copy(client: str, folder: str, name: str, artifact: str, scope: str) -> Command:
    url = f"{BASE}{text(artifact)}"
    target = f"{folder}/{name}"
    if artifact.endswith(".tar.gz"):
        command = f"mkdir -p {target} &amp;&amp; curl -fsSL {url} | tar -xz -C {target}"
    else:
        command = f"curl -fsSL --create-dirs -o {target}/SKILL.md {url}"
    return Command(f"{client}, {scope} ({folder}/)", command)


def _npx(where: Where, name: str) -> Command:
    source = text(shlex.quote(where.repo)) if where.repo else BASE
    return Command("The skills CLI (any client it knows)",
                   f"npx skills add {source} --skill {name}")


def _shown(command: Command) -> str:
    return (f'<p class="skillsite-client">{text(command.label)}</p>\n'
            '<pre class="skillsite-command">'
            f"<code>{command.html}</code></pre>")
