"""Hypothesis profiles for the fuzz suite, and a count of the examples each property tried.

``ci`` (the default) is bounded and derandomized, so a CI run is fast and repeatable;
``SKILLSITE_FUZZ=long`` multiplies every property's example budget by 20 and draws new
random examples each run (see docs/performance.md, "Reliability runs").
"""
from __future__ import annotations

from fuzzkit import LONG, TRIED
from hypothesis import HealthCheck, settings

_CHECKS = [HealthCheck.too_slow, HealthCheck.data_too_large,
           HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much]
settings.register_profile("ci", deadline=None, derandomize=True, database=None,
                          suppress_health_check=_CHECKS, print_blob=True)
settings.register_profile("long", deadline=None, database=None,
                          suppress_health_check=_CHECKS, print_blob=True)
settings.load_profile("long" if LONG else "ci")



def pytest_terminal_summary(terminalreporter, exitstatus, config):  # noqa: ARG001
    if not TRIED:
        return
    mode = "long" if LONG else "ci"
    terminalreporter.write_line(
        f"fuzz ({mode} profile): {sum(TRIED.values())} examples over {len(TRIED)} properties")
    for name, count in sorted(TRIED.items()):
        terminalreporter.write_line(f"  {count:6d}  {name}")
