"""Run one skillsite command in this process and print its peak memory as JSON.

``python bench/_measure.py build CORPUS -o DIST ...`` prints, on its last line,
``{"seconds": ..., "cpu_s": ..., "own_cpu_s": ..., "rss_mb": ..., "children_rss_mb": ...}``:
wall time, CPU time (user + system, of the command and every child it waited for; then of
the command's own process alone), the command's own peak resident memory and the largest
of its worker processes'. With
``SKILLSITE_SOURCE=DIR`` it runs the skillsite of that source tree instead of the
installed one.
"""
from __future__ import annotations

import json
import os
import resource
import sys
import time

if os.environ.get("SKILLSITE_SOURCE"):  # another checkout's skillsite (bench_build --compare)
    sys.meta_path = [f for f in sys.meta_path if not (
        isinstance(f, type) and f.__module__.startswith("__editable__"))]
    sys.path.insert(0, os.environ["SKILLSITE_SOURCE"])

from skillsite.cli import main  # noqa: E402

if __name__ == "__main__":
    started = time.perf_counter()
    try:
        main(sys.argv[1:], standalone_mode=False)
        code = 0
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    seconds = time.perf_counter() - started
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    own_usage = resource.getrusage(resource.RUSAGE_SELF)
    kids_usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    own_cpu = own_usage.ru_utime + own_usage.ru_stime
    cpu = own_cpu + kids_usage.ru_utime + kids_usage.ru_stime
    print(json.dumps({"code": code, "seconds": seconds, "cpu_s": cpu, "own_cpu_s": own_cpu,
                      "rss_mb": own, "children_rss_mb": children}))
