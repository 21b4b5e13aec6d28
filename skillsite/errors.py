"""One exception family for every error skillsite reports to the user.

Each error carries its exit code; the command line maps the family to a clean
``Error: ...`` message and that code in one place (``skillsite.cli``), so the library, the
reader and the MCP server never depend on the CLI framework.

Exit codes: 0 clean, 1 problems found (errors, or warnings under ``--strict``),
2 usage or configuration error.
"""
from __future__ import annotations

EXIT_CLEAN = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2


class SkillsiteError(Exception):
    """Base of every error skillsite reports to the user: ``message`` says what went
    wrong, where and what to do; ``exit_code`` is what the command exits with."""

    exit_code: int = EXIT_USAGE

    def __init__(self, message: str, *, exit_code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if exit_code is not None:
            self.exit_code = exit_code

    def __str__(self) -> str:
        return self.message


class ConfigError(SkillsiteError):
    """The configuration file or a command-line option is wrong."""
