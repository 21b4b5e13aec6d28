"""BERT's uncased WordPiece tokenizer, in plain Python: the token ids of a text.

The static model (:mod:`skillsite.semantic.model`) has one row per WordPiece token of
all-MiniLM-L6-v2's vocabulary, so a text is split as that model's tokenizer splits it:
cleaned, lowercased, accents stripped, split at whitespace and punctuation, then each
word into the longest vocabulary pieces from its start (``##`` marks a piece that goes
on a word). A word that cannot be split is left out: a static model has nothing to say
of ``[UNK]``.
"""
from __future__ import annotations

import re
import unicodedata

#: Words longer than this are [UNK] in BERT's tokenizer: left out here.
MAX_WORD_CHARS = 100
#: Word -> its piece ids, kept between texts (a corpus repeats its words).
WORDS_KEPT = 200_000


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_cjk(code: int) -> bool:
    return (0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0x20000 <= code <= 0x2A6DF
            or 0x2A700 <= code <= 0x2CEAF or 0xF900 <= code <= 0xFAFF
            or 0x2F800 <= code <= 0x2FA1F)


#: ASCII control characters other than whitespace: BERT drops them.
_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
#: In ASCII text, BERT's words are runs of letters and digits, and every other printable
#: character is a word of its own.
_ASCII_WORDS = re.compile(r"[a-z0-9]+|[^a-z0-9\s]")


def words_of(text: str) -> list[str]:
    """BERT's basic tokenizer: the lowercased, accent-free words and punctuation marks.
    ASCII chunks take a regular expression; the rest goes character by character."""
    if text.isascii():
        return _ASCII_WORDS.findall(_ASCII_CONTROL.sub("", text).lower())
    out: list[str] = []
    for chunk in _ASCII_CONTROL.sub("", text).split():
        if chunk.isascii():
            out += _ASCII_WORDS.findall(chunk.lower())
        else:
            out += _unicode_words(chunk)
    return out


def _unicode_words(text: str) -> list[str]:
    text = unicodedata.normalize("NFD", text.lower())
    out: list[str] = []
    current: list[str] = []
    for char in text:
        category = unicodedata.category(char)
        if category == "Mn" or category in ("Cc", "Cf") or char == "\ufffd":
            continue  # an accent, or a character BERT drops
        if char.isspace():
            if current:
                out.append("".join(current))
                current = []
        elif _is_punctuation(char) or _is_cjk(ord(char)):
            if current:
                out.append("".join(current))
                current = []
            out.append(char)
        else:
            current.append(char)
    if current:
        out.append("".join(current))
    return out


class WordPiece:
    """Token ids of texts, from a vocabulary (one token a line, by id)."""

    def __init__(self, vocab: list[str]) -> None:
        self.ids = {token: number for number, token in enumerate(vocab)}
        self._words: dict[str, tuple[int, ...]] = {}

    def encode(self, text: str) -> list[int]:
        """The ids of ``text``'s pieces, in order, without [CLS], [SEP] or [UNK]."""
        ids: list[int] = []
        for word in words_of(text):
            pieces = self._words.get(word)
            if pieces is None:
                pieces = self._pieces(word)
                if len(self._words) >= WORDS_KEPT:
                    self._words.clear()
                self._words[word] = pieces
            ids.extend(pieces)
        return ids

    def _pieces(self, word: str) -> tuple[int, ...]:
        if len(word) > MAX_WORD_CHARS:
            return ()
        whole = self.ids.get(word)
        if whole is not None:
            return (whole,)
        pieces = []
        start = 0
        while start < len(word):
            end = len(word)
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                found = self.ids.get(piece)
                if found is not None:
                    break
                end -= 1
            if found is None:
                return ()
            pieces.append(found)
            start = end
        return tuple(pieces)
