"""Configuration: ``[tool.skillsite]`` in ``pyproject.toml``, or a ``skillsite.toml``.

The nearest file, searching from the current directory upwards, wins; ``skillsite.toml``
beats ``pyproject.toml`` in the same folder. Example::

    [tool.skillsite]
    select = ["name-format", "broken-link"]   # only these rules (default: all)
    extend-select = ["unrestricted-bash"]     # opt-in rules to run as well
    profile = "strict"                        # recommended (default), strict or all
    ignore = ["body-too-long"]                # never these
    severity = { unknown-field = "error" }    # override a default severity
    allow-fields = ["x-internal-owner"]       # extra front-matter keys to accept
    max-file-size = 2097152                   # bytes; default 1 MiB
    exclude = ["drafts/*"]                    # glob patterns, relative to each root
    allow-internal-endpoints = ["mcp.corp.internal"]  # hosts exempt from endpoint-internal
    inline-suppressions = false               # ignore skillsite-disable comments (CI audits)
    exclude-invalid = true                    # leave skills with lint errors out of dist/
    collections = ["vendor/tools"]            # folders whose skills are namespaced apart
    source-url = "https://git.example.com/{path}?at={commit}"  # link template (non-forge hosts)
"""
from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from skillsite.errors import ConfigError
from skillsite.models import ERROR, WARNING

DEFAULT_MAX_SIZE = 1024 * 1024  # bytes: a larger skill file is reported, not read

_KEYS = {"select", "ignore", "severity", "allow-fields", "max-file-size", "exclude",
         "allow-internal-endpoints", "inline-suppressions", "extend-select",
         "exclude-invalid", "collections", "source-url", "profile"}
#: Rule profiles, each holding the one before it: ``recommended`` (the default, rules
#: measured low-noise on public corpora), ``strict`` (also matters of taste and noisier
#: rules) and ``all`` (also the opt-in rules).
PROFILES = ("recommended", "strict", "all")


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] = ()
    #: Opt-in rules to run besides the default ones.
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: dict[str, str] = field(default_factory=dict)
    allow_fields: tuple[str, ...] = ()
    max_file_size: int = DEFAULT_MAX_SIZE
    exclude: tuple[str, ...] = ()
    allow_internal_endpoints: tuple[str, ...] = ()
    #: Whether ``<!-- skillsite-disable ... -->`` and ``# skillsite: disable=`` comments count.
    inline_suppressions: bool = True
    #: Leave skills with lint errors out of ``dist/`` (by default they are published with
    #: their problems).
    exclude_invalid: bool = False
    #: Folders, relative to the corpus root, that each hold one collection of skills (as a
    #: top-level git work tree does); their skills' ids are qualified by the folder's name.
    collections: tuple[str, ...] = ()
    #: A link template for hosts whose web URL skillsite cannot derive from the remote:
    #: ``{path}`` (relative to the repository) and ``{commit}`` are filled in.
    source_url: str = ""
    profile: str = "recommended"
    source: str = "defaults"

    def enabled(self, rule: str) -> bool:
        return (not self.select or rule in self.select) and rule not in self.ignore

    def in_profile(self, profile: str) -> bool:
        """Whether a rule of ``profile`` runs under this configuration's profile."""
        return PROFILES.index(profile) <= PROFILES.index(self.profile)

    def chosen(self, rule: str) -> bool:
        """Named explicitly, as an opt-in rule must be to run."""
        return rule in self.select or rule in self.extend_select

    def merged(self, **changes: Any) -> Config:
        """A copy with command-line options laid over the file's values."""
        return replace(self, **{k: v for k, v in changes.items() if v not in (None, ())})


def find_config_file(start: Path) -> Path | None:
    for folder in [start, *start.parents]:
        for name in ("skillsite.toml", "pyproject.toml"):
            candidate = folder / name
            if candidate.is_file() and (name == "skillsite.toml" or _has_section(candidate)):
                return candidate
    return None


def _has_section(pyproject: Path) -> bool:
    try:
        return "skillsite" in _read_toml(pyproject).get("tool", {})
    except ConfigError:
        return False


def _read_toml(path: Path) -> dict[str, Any]:
    import tomllib  # only where a configuration file is found

    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read configuration {path}: {exc}") from None


def load_config(path: Path | None = None, *, rules: Collection[str],
                start: Path | None = None) -> Config:
    """Load ``path``, or the nearest configuration file above ``start`` (default: cwd).

    ``rules`` are the rule IDs the configuration may name (the registry's keys); it is a
    parameter so that this module stays below the rules, which read :class:`Config`."""
    if path is None:
        path = find_config_file((start or Path.cwd()).resolve())
        if path is None:
            return Config()
    elif not path.is_file():
        raise ConfigError(f"configuration file {path} does not exist")
    table = _read_toml(path)
    if path.name == "pyproject.toml" or "tool" in table:
        table = table.get("tool", {}).get("skillsite", {})
    return parse_table(table, str(path), rules)


def parse_table(table: dict[str, Any], origin: str, rules: Collection[str]) -> Config:
    unknown = set(table) - _KEYS
    if unknown:
        raise ConfigError(f"{origin}: unknown setting(s) {', '.join(sorted(unknown))}; "
                          f"known: {', '.join(sorted(_KEYS))}")
    config = Config(
        select=_strings(table, "select", origin),
        extend_select=_strings(table, "extend-select", origin),
        ignore=_strings(table, "ignore", origin),
        severity=dict(table.get("severity", {})),
        allow_fields=_strings(table, "allow-fields", origin),
        max_file_size=table.get("max-file-size", DEFAULT_MAX_SIZE),
        exclude=_strings(table, "exclude", origin),
        allow_internal_endpoints=_strings(table, "allow-internal-endpoints", origin),
        inline_suppressions=table.get("inline-suppressions", True),
        exclude_invalid=table.get("exclude-invalid", False),
        collections=tuple(c.strip("/") for c in _strings(table, "collections", origin)),
        source_url=table.get("source-url", ""),
        profile=table.get("profile", "recommended"),
        source=origin,
    )
    if config.profile not in PROFILES:
        raise ConfigError(f"{origin}: profile must be one of {', '.join(PROFILES)}, not "
                          f"{config.profile!r}")
    for key, value in (("inline-suppressions", config.inline_suppressions),
                       ("exclude-invalid", config.exclude_invalid)):
        if not isinstance(value, bool):
            raise ConfigError(f"{origin}: {key} must be true or false")
    if not isinstance(config.source_url, str):
        raise ConfigError(f"{origin}: source-url must be a string such as "
                          "'https://git.example.com/{path}?at={commit}'")
    check_rule_ids([*config.select, *config.extend_select, *config.ignore, *config.severity],
                   origin, rules)
    for rule, level in config.severity.items():
        if level not in (ERROR, WARNING):
            raise ConfigError(f"{origin}: severity of {rule} must be 'error' or 'warning', "
                              f"not {level!r}")
    if not isinstance(config.max_file_size, int) or config.max_file_size <= 0:
        raise ConfigError(f"{origin}: max-file-size must be a positive number of bytes")
    return config


def check_rule_ids(ids: list[str], origin: str, rules: Collection[str]) -> None:
    if not ids:
        return
    unknown = sorted(set(ids) - set(rules))
    if unknown:
        raise ConfigError(f"{origin}: unknown rule ID(s) {', '.join(unknown)}; "
                          "run 'skillsite rules' to list them")


def _strings(table: dict[str, Any], key: str, origin: str) -> tuple[str, ...]:
    value = table.get(key, ())
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{origin}: {key} must be a list of strings")
    return tuple(value)
