"""The reader's errors: one family, each with a stable ``code`` and an exit code.

The codes are a public contract (the MCP server returns them as they are):

=================================  ====  ==============================================
code                               exit  meaning
=================================  ====  ==============================================
``not-found``                      1     no skill, file or section by that reference
``section-not-found``              1     the skill has no such heading (lists them)
``budget-exceeded``                1     this client's skill or character budget is spent
``invalid-or-expired-reference``   1     safe mode: the opaque ref is unknown, used or old
``restricted-budget-exhausted``    1     safe mode: a per-window budget is spent;
                                         ``retry_after_seconds`` says when it refills
``too-many-clients``               1     the Library keeps budgets for ``max_clients``
                                         clients already; ``retry_after_seconds``
``shared-store-unavailable``       1     the store the replicas share (Redis) cannot be
                                         reached, so a call that spends a budget is
                                         refused; ``retry_after_seconds``
``ambiguous-section``              2     several headings match (lists them)
``ambiguous-name``                 2     a bare name that several skills' ids end in
                                         (``candidates`` lists their ids)
``invalid-argument``               2     a malformed ref, cursor, line range or option
``restricted-query-rejected``      2     safe mode: wildcard, too short or empty query
``restricted-operation``           2     safe mode: the operation is not offered
``not-a-dist``                     2     no ``manifest.json``: not a built ``dist/``
``unsupported-artifact-version``   2     ``dist/`` was built by an incompatible skillsite
``damaged-dist``                   2     a file is missing, the wrong size or its sha256
=================================  ====  ==============================================
"""
from __future__ import annotations

from typing import Any

from skillsite.errors import EXIT_PROBLEMS, EXIT_USAGE, SkillsiteError

EXIT_CODES: dict[str, int] = {
    "not-found": EXIT_PROBLEMS,
    "section-not-found": EXIT_PROBLEMS,
    "budget-exceeded": EXIT_PROBLEMS,
    "invalid-or-expired-reference": EXIT_PROBLEMS,
    "restricted-budget-exhausted": EXIT_PROBLEMS,
    "too-many-clients": EXIT_PROBLEMS,
    "shared-store-unavailable": EXIT_PROBLEMS,
    "ambiguous-section": EXIT_USAGE,
    "ambiguous-name": EXIT_USAGE,
    "invalid-argument": EXIT_USAGE,
    "restricted-query-rejected": EXIT_USAGE,
    "restricted-operation": EXIT_USAGE,
    "not-a-dist": EXIT_USAGE,
    "unsupported-artifact-version": EXIT_USAGE,
    "damaged-dist": EXIT_USAGE,
}


#: How a not-found error tells a person to list the skills; the MCP server words it for
#: an agent, which has the search tool instead (:func:`skillsite.mcp.tools.answer`).
LIST_NAMES = "`skillsite search ''`"


class ReaderError(SkillsiteError):
    """A query that cannot be answered. ``code`` is stable (see the module docstring),
    ``details`` holds machine-readable extras (``headings``, ``retry_after_seconds``...)."""

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message, exit_code=EXIT_CODES[code])
        self.code = code
        self.details = details

    @property
    def retry_after_seconds(self) -> int | None:
        value = self.details.get("retry_after_seconds")
        return int(value) if value is not None else None

    def to_dict(self) -> dict[str, Any]:
        """The error as the JSON faces return it: ``{"error": code, "message": ...}``."""
        return {"error": self.code, "message": self.message, **self.details}
