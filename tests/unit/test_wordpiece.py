"""The static model's tokenizer splits text as BERT's uncased WordPiece does (these
splits are those of the ``tokenizers`` library with all-MiniLM-L6-v2's tokenizer.json,
which the model was distilled with)."""
from __future__ import annotations

from pathlib import Path

import pytest

from skillsite.semantic.wordpiece import WordPiece, words_of

VOCAB = Path(__file__).parents[2] / "skillsite" / "semantic" / "model" / "vocab.txt"


@pytest.fixture(scope="module")
def pieces() -> WordPiece:
    return WordPiece(VOCAB.read_text(encoding="utf-8").split("\n")[:-1])


@pytest.mark.parametrize("text, expected", [
    ("unaffable", ["una", "##ffa", "##ble"]),
    ("Créer une présentation!", ["cree", "##r", "une", "presentation", "!"]),
    ("snake_case a\x01b", ["snake", "_", "case", "ab"]),
    ("CrashLoopBackOff 中文", ["crash", "##lo", "##op", "##back", "##off", "中", "文"]),
    ("zero\u200bwidth", ["zero", "##wi", "##dt", "##h"]),
])
def test_texts_split_as_bert_splits_them(pieces: WordPiece, text: str,
                                         expected: list[str]) -> None:
    vocab = VOCAB.read_text(encoding="utf-8").split("\n")
    assert [vocab[i] for i in pieces.encode(text)] == expected


def test_unknown_and_overlong_words_are_left_out(pieces: WordPiece) -> None:
    assert pieces.encode("\u2603") == [] and pieces.encode("a" * 101) == []
    assert words_of("a-b  c\n") == ["a", "-", "b", "c"]
