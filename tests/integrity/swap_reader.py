"""A reader process for test_swap_under_reader.py: query ``dist/`` in a loop while builds
swap it, and report, as JSON on stdout, every answer that mixed two builds and every
answer from an older build than the one before it.

    python swap_reader.py DIST STOP_FILE MAX_SECONDS
"""
from __future__ import annotations

import json
import random
import re
import sys
import time
from pathlib import Path

from skillsite.reader.errors import ReaderError
from skillsite.reader.library import Library

GENERATION = re.compile(r"Generation (\d+)\b")


def generations(text: str) -> set[int]:
    return {int(g) for g in GENERATION.findall(text)}


def main(dist: Path, stop: Path, seconds: float) -> dict[str, object]:
    lib = Library(dist, max_skills=None, max_chars=None)
    rng = random.Random(1)
    report: dict[str, object] = {"ops": 0, "errors": [], "mixed": [], "seen": [],
                                 "backwards": 0}
    errors: list[str] = report["errors"]  # type: ignore[assignment]
    mixed: list[str] = report["mixed"]  # type: ignore[assignment]
    seen: list[int] = []
    deadline = time.monotonic() + seconds
    while not stop.exists() and time.monotonic() < deadline:
        time.sleep(0.002)  # leave the builds some CPU on a 2-core machine
        try:
            found = lib.search("extra generation marker", limit=50)  # extra-N first
            texts = " ".join(c.description for c in found.results)
            extras = [c.name for c in found.results if c.name.startswith("extra-")]
            name = f"skill-{rng.randrange(80):03d}"
            info, passage = lib.open(name), lib.read(name)
        except ReaderError as error:
            errors.append(f"{error.code}: {error.message}")
            continue
        report["ops"] = int(report["ops"]) + 3  # type: ignore[call-overload]
        in_search = generations(texts)
        if len(in_search) != 1 or extras != [f"extra-{min(in_search, default=-1)}"]:
            mixed.append(f"search: generations {sorted(in_search)}, extras {extras}")
        answered = [max(in_search, default=-1)]
        for what, text in (("open", info.description), ("read", passage.text)):
            if len(generations(text)) != 1:
                mixed.append(f"{what}: {text[:80]!r}")
            answered.append(max(generations(text), default=-1))
        for now in answered:  # operation after operation, never back to an older build
            if seen and now < seen[-1]:
                report["backwards"] = int(report["backwards"]) + 1  # type: ignore[call-overload]
            if not seen or now > seen[-1]:
                seen.append(now)
    report["seen"] = seen
    return report


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3]))))
