"""skillsite: lint, catalog and serve a corpus of agent skills.

The public Python API::

    import skillsite
    result = skillsite.check(["corpus"])
    print(result.summary(), result.success)
"""
from __future__ import annotations

__version__ = "0.1.0"

from skillsite.check import check
from skillsite.config import Config, load_config
from skillsite.models import CheckResult, Problem

__all__ = ["__version__", "check", "Config", "load_config", "CheckResult", "Problem"]
