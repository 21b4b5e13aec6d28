"""The JSON report writes each problem with one format string: its text must be exactly
``json.dumps(to_data(result), indent=2)``, as the report's contract says."""
from __future__ import annotations

import json
import random

from skillsite.models import CheckResult, Problem
from skillsite.report.json import JsonReporter, to_data

ALPHABET = 'ab/é"\\\n\x01\x7fz\u2028\U0001f680 '


def _word(rng: random.Random, most: int = 9) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, most)))


def test_render_is_json_dumps_indent_2() -> None:
    rng = random.Random(5)
    reporter = JsonReporter(rules={})
    for case in range(300):
        problems = [Problem(_word(rng) or "p", rng.choice([1, 7, 10**12, True]),
                            rng.choice([1, 3, False]), _word(rng), rng.choice(["error", "warning"]),
                            _word(rng, 30))
                    for _ in range(rng.randint(0, 12) if case % 5 else 0)]
        trust = {_word(rng) or "t": {"level": "none", "reasons": [], "n": rng.choice([None, 2.5]),
                                     "capabilities": {"network": [_word(rng)], "w": False}}
                 for _ in range(rng.randint(0, 3))}
        result = CheckResult(problems, rng.randint(0, 9), rng.randint(0, 9), trust)
        assert reporter.render(result) == json.dumps(to_data(result), indent=2)
