"""Where skillsite keeps its caches on this machine (a module of its own: the command
line asks for it before it knows whether a cache will be needed)."""
from __future__ import annotations

import os
from pathlib import Path


def default_dir() -> Path:
    """``$SKILLSITE_CACHE_DIR``, else ``$XDG_CACHE_HOME/skillsite``, else
    ``~/.cache/skillsite``."""
    if os.environ.get("SKILLSITE_CACHE_DIR"):
        return Path(os.environ["SKILLSITE_CACHE_DIR"])
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(home) / "skillsite"
