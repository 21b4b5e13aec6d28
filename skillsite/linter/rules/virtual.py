"""Rules for Mini-A virtual skill pages."""
from __future__ import annotations

from collections.abc import Iterator

from skillsite.linter.rules.context import Context, text_field
from skillsite.linter.rules.registry import Finding, rule
from skillsite.models import Document


@rule("virtual-id-format", "error", formats=("virtual",), family="mini-a")
def virtual_id_format(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    A Mini-A page's ``id``, when present, must be ``skill:<name>``, with the page's own
    ``name`` after the prefix, so references such as ``depends_on: [skill:<name>]``
    resolve to it.

    Failing example::

        name: incident-triage
        id: triage

    Passing example::

        name: incident-triage
        id: skill:incident-triage
    """
    data = doc.data or {}
    if "id" not in data:
        return
    page_id, name = data["id"], text_field(doc, "name")
    expected = f"skill:{name}" if name else "skill:<name>"
    if not isinstance(page_id, str):
        return  # field-type reports it
    if page_id != expected if name else not page_id.startswith("skill:"):
        yield "/id", f"id {page_id!r} must be {expected!r}"
