"""What a long-lived reader keeps between queries stays bounded by entries and characters,
however large the skills (a corpus of huge bodies must not grow a server without bound)."""
from __future__ import annotations

from skillsite.reader import kept as kept_module
from skillsite.reader.kept import Kept


def test_kept_entries_are_bounded_by_count() -> None:
    kept: Kept[int] = Kept(3)
    for number in range(10):
        kept.keep({f"skill-{number}": number}, 1)
        assert len(kept) <= 3
    assert "skill-9" in kept


def test_kept_entries_are_bounded_by_characters(monkeypatch) -> None:
    monkeypatch.setattr(kept_module, "CHARS_KEPT", 100)
    kept: Kept[str] = Kept(1000)
    for number in range(10):
        kept.keep({f"skill-{number}": "x" * 40}, 40)
        assert kept.chars <= 100 and len(kept) <= 2
    assert kept == {"skill-8": "x" * 40, "skill-9": "x" * 40}


def test_a_batch_is_kept_whole_after_a_clear() -> None:
    kept: Kept[int] = Kept(4)
    kept.keep({"a": 1, "b": 2, "c": 3}, 3)
    kept.keep({"d": 4, "e": 5}, 2)
    assert kept == {"d": 4, "e": 5} and kept.chars == 2
