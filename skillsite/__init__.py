"""skillsite: lint, catalog and serve a corpus of agent skills.

The public Python API::

    import skillsite
    result = skillsite.check(["corpus"])
    print(result.summary(), result.success)
    built = skillsite.build("corpus", "dist")

Names are imported on first use, so ``import skillsite`` (and ``skillsite --help``) stays
fast.
"""
from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from skillsite.version import __version__

__all__ = ["__version__", "check", "build", "Config", "load_config", "CheckResult",
           "Problem", "BuildResult", "Library", "ReaderError"]

_HOMES = {"check": "skillsite.linter.checker", "build": "skillsite.builder.pipeline",
          "Config": "skillsite.config",
          "load_config": "skillsite.linter.rules", "CheckResult": "skillsite.models",
          "Problem": "skillsite.models", "BuildResult": "skillsite.builder.pipeline",
          "Library": "skillsite.reader", "ReaderError": "skillsite.reader"}

if TYPE_CHECKING:
    from skillsite.builder.pipeline import BuildResult, build
    from skillsite.config import Config
    from skillsite.linter.checker import check
    from skillsite.linter.rules import load_config
    from skillsite.models import CheckResult, Problem


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'skillsite' has no attribute {name!r}")
    value = getattr(import_module(_HOMES[name]), name)
    globals()[name] = value
    return value
