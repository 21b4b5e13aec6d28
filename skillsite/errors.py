"""One exception family, rooted at click's, so a usage mistake is a clean exit.

Exit codes: 0 clean, 1 problems found (errors, or warnings under ``--strict``),
2 usage or configuration error.
"""
from __future__ import annotations

import click

EXIT_CLEAN = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2


class SkillsiteError(click.ClickException):
    """Base of every error skillsite reports to the user."""

    exit_code = EXIT_USAGE


class ConfigError(SkillsiteError):
    """The configuration file or a command-line option is wrong."""
