"""Where each skill comes from, read from git: each repository's commit and web URL, and
each skill file's link at that commit and last-changed time.

git runs as a program with a timeout, no terminal, no pager and settings that keep it from
running anything the repository configures (``core.fsmonitor``, hooks, signature
verification programs); it is only asked
to read (``rev-parse``, ``config``, ``ls-tree``, ``log``), never to look at the work tree,
which could run a repository's filters: whether a file is modified is decided here, by
comparing its git blob id with the commit's. Nothing here reaches the network. Each repository's
history is read in one ``git log`` pass, bounded
to :data:`MAX_COMMITS` commits and :data:`LOG_BYTES` of output: a file older than that
has no last-changed time from git. A broken repository is a warning and the build goes
on without its links.
"""
from __future__ import annotations

import hashlib
import os
import re
import subprocess
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TIMEOUT = 20.0            # seconds, per git call
MAX_COMMITS = 20000
LOG_BYTES = 64 * 1024 * 1024
_SAFE = ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
         "-c", "core.quotePath=false", "-c", "protocol.allow=never",
         # A repository's config can ask `log` to verify signatures with a program it names.
         "-c", "log.showSignature=false", "-c", "gpg.program=false",
         "-c", "gpg.ssh.program=false", "-c", "gpg.x509.program=false", "--no-pager"]
_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true", "SSH_ASKPASS": "true",
        "GIT_OPTIONAL_LOCKS": "0", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
        "LC_ALL": "C"}
#: Web URL templates of the forges skillsite knows, by host.
FORGES = {
    "github.com": "https://github.com/{repo}/blob/{commit}/{path}",
    "gitlab.com": "https://gitlab.com/{repo}/-/blob/{commit}/{path}",
    "bitbucket.org": "https://bitbucket.org/{repo}/src/{commit}/{path}",
    "codeberg.org": "https://codeberg.org/{repo}/src/commit/{commit}/{path}",
}
_REMOTE = re.compile(
    r"^(?:(?:https?|ssh|git)://(?:[^@/]+@)?(?P<host1>[^/:]+)(?::\d+)?/"
    r"|(?:[^@/]+@)?(?P<host2>[^/:]+):)(?P<repo>[^?#]+?)(?:\.git)?/?$")


class GitError(Exception):
    """git failed, timed out or is missing."""


@dataclass
class Repository:
    """One git work tree under (or above) the corpus root."""

    folder: str                  # relative to the corpus root ("" for the root or above)
    top: str                     # the work tree's top-level folder, absolute
    commit: str
    modified: bool
    remote: str                  # the origin's URL without credentials, or ""
    web_url: str                 # https://host/owner/repo, or ""
    template: str                # a link template with {path} and {commit}, or ""
    changed: dict[str, int] = field(default_factory=dict)  # path in the repo -> time

    def manifest_entry(self) -> dict[str, object]:
        return {"folder": self.folder, "commit": self.commit, "modified": self.modified,
                "remote": self.remote, "web_url": self.web_url}


@dataclass
class Provenance:
    repositories: list[Repository] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)  # (folder, message)

    def of(self, root: Path, path: str) -> tuple[str | None, str | None]:
        """(source URL, last-changed ISO time) of the corpus file ``path``."""
        absolute = os.path.join(root, path)
        for repo in sorted(self.repositories, key=lambda r: -len(r.top)):
            if absolute.startswith(os.path.join(repo.top, "")):
                inside = os.path.relpath(absolute, repo.top).replace(os.sep, "/")
                url = repo.template.format(path=_quote(inside), commit=repo.commit) \
                    if repo.template else None
                when = repo.changed.get(inside)
                return url, _iso(when) if when is not None else None
        return None, None


def read_provenance(root: Path, collections: Iterable[str], wanted: Iterable[str],
                    source_url: str = "") -> Provenance:
    """The repositories of the corpus ``root`` (itself or a repository above it, and each
    top-level folder or configured collection that is a work tree), with the last-changed
    times of the ``wanted`` files (relative to ``root``)."""
    found = Provenance()
    folders = [""] + sorted({*collections, *_top_level_trees(root)})
    wanted = list(wanted)
    for folder in folders:
        where = root / folder if folder else root
        if folder == "" and not _inside_work_tree(where):
            continue
        try:
            repo = _repository(where, folder, source_url)
        except GitError as error:
            found.warnings.append((folder, str(error)))
            continue
        if repo is None or any(r.top == repo.top for r in found.repositories):
            continue
        inside = [os.path.relpath(os.path.join(root, p), repo.top).replace(os.sep, "/")
                  for p in wanted if os.path.join(root, p).startswith(os.path.join(repo.top, ""))]
        try:
            repo.changed = _last_changed(repo.top, set(inside))
            repo.modified = _modified(repo.top, inside)
        except GitError as error:
            found.warnings.append((folder, f"{error}; no last-changed times"))
        found.repositories.append(repo)
    return found


def _top_level_trees(root: Path) -> list[str]:
    try:
        return [entry.name for entry in os.scandir(root)
                if entry.is_dir(follow_symlinks=False) and not entry.name.startswith(".")
                and os.path.lexists(os.path.join(entry.path, ".git"))]
    except OSError:
        return []


def _inside_work_tree(folder: Path) -> bool:
    return any(os.path.lexists(candidate / ".git") for candidate in (folder, *folder.parents))


def _git(folder: Path | str, *args: str, limit: int = 1 << 20) -> str:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("GIT_")}, **_ENV}
    try:
        done = subprocess.run(["git", *_SAFE, *args], cwd=folder, capture_output=True,
                              timeout=TIMEOUT, env=env, stdin=subprocess.DEVNULL, check=False)
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} took over {TIMEOUT:.0f} s") from None
    except OSError as error:
        raise GitError(f"cannot run git: {error}") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {args[0]} failed: {message[-1] if message else done.returncode}")
    return done.stdout[:limit].decode("utf-8", "surrogateescape")


def _repository(folder: Path, relative: str, source_url: str) -> Repository | None:
    top = _git(folder, "rev-parse", "--show-toplevel").strip()
    commit = _git(folder, "rev-parse", "--verify", "HEAD").strip()
    try:
        remote = _git(folder, "config", "--get", "remote.origin.url").strip()
    except GitError:
        remote = ""
    remote = _without_credentials(remote)
    web_url, template = web_links(remote)
    if source_url:
        template = source_url
    return Repository(relative, os.path.realpath(top), commit, False, remote, web_url,
                      template)


def web_links(remote: str) -> tuple[str, str]:
    """(web URL, link template) for a remote of a known forge, in https or ssh form."""
    match = _REMOTE.match(remote)
    if not match:
        return "", ""
    host = (match.group("host1") or match.group("host2") or "").lower()
    repo = match.group("repo").strip("/")
    if host not in FORGES or repo.count("/") < 1:
        return "", ""
    return f"https://{host}/{repo}", FORGES[host].replace("{repo}", repo)


def _without_credentials(remote: str) -> str:
    return re.sub(r"^(https?://)[^/@]+@", r"\1", remote)


def _modified(top: str, paths: list[str]) -> bool:
    """Whether any of ``paths`` (in the repository) differs from the commit or is not in it."""
    listed = _git(top, "ls-tree", "-r", "-z", "--full-tree", "HEAD", limit=LOG_BYTES)
    blobs = {}
    for line in listed.split("\0"):
        meta, _, path = line.partition("\t")
        if meta.endswith(tuple("0123456789abcdef")) and " blob " in meta:
            blobs[path] = meta.rsplit(" ", 1)[1]
    for path in paths:
        try:
            with open(os.path.join(top, path), "rb") as handle:
                data = handle.read()
        except OSError:
            return True
        header = f"blob {len(data)}\0".encode()
        if blobs.get(path) != hashlib.sha1(header + data).hexdigest():
            return True
    return False


def _last_changed(top: str, wanted: set[str]) -> dict[str, int]:
    """The commit time of the newest commit that touched each of ``wanted``: one pass over
    the log, newest first, stopped once every file is found or the bounds are reached."""
    if not wanted:
        return {}
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("GIT_")}, **_ENV}
    command = ["git", *_SAFE, "log", f"--max-count={MAX_COMMITS}", "--format=%x01%ct",
               "--name-only", "-z", "--no-renames", "HEAD"]
    found: dict[str, int] = {}
    started = time.monotonic()
    try:
        process = subprocess.Popen(command, cwd=top, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env)
    except OSError as error:
        raise GitError(f"cannot run git: {error}") from None
    try:
        assert process.stdout is not None
        pending, read = b"", 0
        while len(found) < len(wanted):
            chunk = process.stdout.read(1 << 16)
            if time.monotonic() - started > TIMEOUT:
                raise GitError(f"git log took over {TIMEOUT:.0f} s")
            read += len(chunk)
            commits = (pending + chunk).split(b"\x01")
            pending = commits.pop() if chunk and read < LOG_BYTES else b""
            for commit in commits:
                _note(commit, wanted, found)
            if not chunk or read >= LOG_BYTES:
                break
    finally:
        process.kill()
        process.wait()
    return found


def _note(commit: bytes, wanted: set[str], found: dict[str, int]) -> None:
    header, _, names = commit.partition(b"\0")
    if not header.strip().isdigit():
        return
    when = int(header)
    for raw in names.split(b"\0"):
        path = raw.strip(b"\n").decode("utf-8", "surrogateescape")
        if path in wanted and path not in found:
            found[path] = when


def _quote(path: str) -> str:
    from urllib.parse import quote

    return quote(path, safe="/")


def _iso(seconds: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def origins(included: dict[str, Any], root: Path, ctx: Any
            ) -> tuple[dict[str, dict[str, str]], list[dict[str, object]], list[Any]]:
    """For the published skills (by path): each one's ``source_url`` and ``changed`` from
    git, the repositories for the manifest, and a ``git-unreadable`` warning per broken
    work tree."""
    from skillsite.linter.lint import make_problem

    config = ctx.config
    found = read_provenance(root, config.collections, included, config.source_url)
    by_path: dict[str, dict[str, str]] = {}
    for path in included if found.repositories else ():
        url, changed = found.of(root, path)
        origin = {k: v for k, v in (("source_url", url), ("changed", changed)) if v}
        if origin:
            by_path[path] = origin
    problems = [make_problem(ctx, "git-unreadable", f"{folder}/.git" if folder else ".git",
                             (1, 1), f"{message}; built without source links for it")
                for folder, message in found.warnings]
    return by_path, [r.manifest_entry() for r in found.repositories], \
        [p for p in problems if p is not None]
