"""Bounds that keep hostile input from exhausting time, memory or the C stack."""
from __future__ import annotations

#: Deepest nesting of mappings and sequences accepted in front matter or a manifest.
MAX_DEPTH = 64
#: Most values the YAML walker will construct; alias bombs expand past this.
MAX_NODES = 100_000
#: Largest front matter block parsed as YAML, in characters.
MAX_FRONT_MATTER = 256 * 1024
