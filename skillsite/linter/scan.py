"""Scanners for what a skill's text may hide or do: invisible characters, instructions in
comments and link titles, encoded blobs, remote code piped into a shell, dynamic context,
unpinned package runners and prompt-override phrases.

Each scanner takes a text and yields ``(offset, message)``; none of them runs anything.
They are cheap when there is nothing to find: each first looks for a literal marker.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from skillsite.linter.fences import Fence, fences, in_fence
from skillsite.linter.lazy import lazy
from skillsite.linter.markers import (
    any_in,
    any_lowered,
    contains,
    contains_lowered,
    lower,
    matches_from,
)
from skillsite.linter.markers import found as markers_of
from skillsite.linter.secrets import entropy
from skillsite.linter.textcache import per_document

Found = Iterator[tuple[int, str]]


_BIDI = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F,
                          0x061C)}
_INVISIBLE = {chr(c) for c in (0x200B, 0x200C, 0x200D, 0x2060, 0x2061, 0x2062, 0x2063,
                               0x2064, 0xFEFF, 0x180E, 0x00AD)}


_SUSPECT = re.compile("[" + "".join(sorted(_BIDI | _INVISIBLE))
                      + "\U000e0000-\U000e007f\ufe00-\ufe0f\U000e0100-\U000e01ef]")

#: The UTF-8 of every character _SUSPECT matches (and of a few unassigned ones beside
#: the tag and variation-selector ranges): a text whose bytes hold none has none.
_SUSPECT_UTF8 = re.compile(b"|".join(
    [re.escape(char.encode()) for char in sorted(_BIDI | _INVISIBLE)]
    + [b"\xef\xb8[\x80-\x8f]",  # U+FE00-FE0F
       b"\xf3\xa0[\x80\x81\x84-\x87][\x80-\xbf]"]))  # U+E0000-E007F, U+E0100-E01FF


def invisible_unicode(text: str) -> Found:
    """Bidirectional controls (Trojan Source), tag characters and zero-width characters;
    a zero-width joiner between two non-ASCII characters is part of an emoji, and a
    byte-order mark at the very start is an encoding signature, not hidden text."""
    if text.isascii() or _SUSPECT_UTF8.search(_utf8(text)) is None:
        return  # most texts: one pass over bytes, quicker than over a wide string
    for found in _SUSPECT.finditer(text):  # the characters the branches below look at
        offset, char = found.start(), found.group()
        code = ord(char)
        if char in _BIDI:
            yield offset, f"bidirectional control U+{code:04X} can reorder what is shown"
        elif 0xE0000 <= code <= 0xE007F:
            yield offset, f"invisible tag character U+{code:04X} can carry hidden text"
        elif _variation_selector(code):
            if _smuggled(text, offset):
                yield offset, (f"variation selector U+{code:04X} in a run or on plain text "
                               "can carry hidden bytes")
        elif char in _INVISIBLE and offset and not _emoji_joiner(text, offset):
            name = unicodedata.name(char, "format character").lower()
            yield offset, f"invisible character U+{code:04X} ({name})"


def _variation_selector(code: int) -> bool:
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF


def _smuggled(text: str, offset: int) -> bool:
    """A variation selector that is not one glyph's variant: the first of a run of two or
    more, or one of U+E0100.. on a character that is not a CJK ideograph (an emoji takes
    U+FE0F, an ideograph one of U+E0100..; a run of them spells bytes)."""
    if offset and _variation_selector(ord(text[offset - 1])):
        return False  # reported at the run's start
    if offset + 1 < len(text) and _variation_selector(ord(text[offset + 1])):
        return True
    code = ord(text[offset])
    base = text[offset - 1] if offset else ""
    return code >= 0xE0100 and not (base and unicodedata.name(base, "").startswith(
        "CJK"))


def _emoji_joiner(text: str, offset: int) -> bool:
    if text[offset] not in "\u200d\u200c" or offset == 0 or offset + 1 >= len(text):
        return False
    return not text[offset - 1].isascii() and not text[offset + 1].isascii()


# Words that address the agent rather than a human reader.
_ADDRESSED = (
    r"ignore (?:all |any )?(?:the )?(?:previous|prior|above|earlier|preceding) "
    r"(?:instructions|prompts?|rules|messages)"
    r"|disregard (?:all |any |your |the )?(?:previous |prior |above )?(?:instructions|"
    r"system prompt|rules|guidelines)"
    r"|(?:disregard|ignore|forget) (?:all |any )?(?:of )?(?:everything|anything|what|all) "
    r"(?:you(?:'ve| have| were| had)?|that you) (?:been )?(?:told|given|instructed|taught)"
    r"|forget (?:all |everything )(?:you|your|previous|prior)"
    r"|(?:override|bypass) your (?:system prompt|safety|guardrails|instructions)"
    r"|(?:pay no attention to|no longer follow|stop following) (?:your |the |any )?"
    r"(?:previous |prior |earlier |original )?(?:instructions|rules|system prompt)"
    r"|you are now (?:in )?(?:dan|developer mode|jailbroken|unrestricted)"
    r"|do not (?:tell|inform|alert) the user|without (?:telling|informing|asking) "
    r"the user"
    # The same order in other languages (French, Spanish, Portuguese, Italian, German,
    # Russian, Chinese, Japanese).
    r"|ignore[zr]? (?:toutes )?(?:les |tes |vos )?instructions (?:pr\u00e9c\u00e9dentes|"
    r"ant\u00e9rieures)"
    r"|ignora(?:r)? (?:todas )?(?:las |tus )?instrucciones (?:anteriores|previas)"
    r"|ignor(?:e|ar) (?:todas )?as instru\u00e7\u00f5es anteriores"
    r"|ignora (?:tutte )?le istruzioni precedenti"
    r"|ignorier(?:e|en)? (?:alle )?(?:vorherigen|bisherigen|obigen) (?:anweisungen|"
    r"instruktionen)"
    r"|\u0438\u0433\u043d\u043e\u0440\u0438\u0440\u0443\u0439(?:\u0442\u0435)? "
    r"(?:\u0432\u0441\u0435 )?(?:\u043f\u0440\u0435\u0434\u044b\u0434\u0443\u0449\u0438\u0435 )?"
    r"\u0438\u043d\u0441\u0442\u0440\u0443\u043a\u0446\u0438\u0438"
    r"|\u5ffd\u7565(?:\u4e4b\u524d|\u4ee5\u4e0a|\u4e0a\u9762|\u5148\u524d|\u6240\u6709)"
    r"\u7684?(?:\u6240\u6709)?(?:\u6307\u4ee4|\u6307\u793a|\u8bf4\u660e|\u8981\u6c42)"
    r"|(?:\u4ee5\u524d|\u524d|\u4e0a\u8a18)\u306e\u6307\u793a\u3092\u7121\u8996")
_OVERRIDE = lazy(_ADDRESSED, re.IGNORECASE)  # for the rare text lowering does not keep
_OVERRIDE_LOWER = re.compile(_ADDRESSED)  # on lowered text: IGNORECASE is 10x slower
# A piece of every phrase above, looked for in the lowered text.
_OVERRIDE_MARKERS = ("gnor", "isregard", "orget ", "verride y", "ypass y", "are now",
                     "pay no attention", "no longer follow", "stop following",
                     "\u0438\u0433\u043d\u043e\u0440", "\u5ffd\u7565", "\u7121\u8996")
#: The characters that IGNORECASE matches to another beyond what str.lower gives (the
#: non-ASCII ones of the regex engine's extra cases, ``re._casefix``, Python 3.11).
_FOLDED_APART = re.compile(
    "[\u00b5\u0131\u017f\u0345\u0390\u03b0\u03b2\u03b5\u03b8\u03b9\u03ba\u03bc\u03c0"
    "\u03c1\u03c2\u03c3\u03c6\u03d0\u03d1\u03d5\u03d6\u03f0\u03f1\u03f5\u0432\u0434"
    "\u043e\u0441\u0442\u044a\u0463\u1c80-\u1c88\u1e61\u1e9b\u1fbe\u1fd3\u1fe3\ua64b"
    "\ufb05\ufb06]")
#: An ASCII text that holds none of these (lowered) tells the agent nothing to drop.
OVERRIDE_MARKERS = (*(m for m in _OVERRIDE_MARKERS if m.isascii()), "the user")
_HIDDEN = re.compile(_ADDRESSED + r"|\byou (?:must|should|will) (?:now |always |also )?"
                     r"(?:run|execute|send|upload|download|delete|read|fetch|curl|post)"
                     r"|\b(?:secretly|silently|quietly) (?:run|execute|send|upload|delete)"
                     # Words to the agent: "AI agents: ...", "Note to the assistant".
                     r"|\b(?:ai|llm) (?:agents?|assistants?|models?)\b\s*[:,]"
                     r"|\b(?:to|for|dear) (?:the |any )?(?:ai|llm|assistant|agent|model)s?\b"
                     # A verb on a secret the reader never sees: "read ~/.ssh/id_rsa".
                     r"|\b(?:read|cat|send|upload|post|copy|print|include|attach|exfiltrate)"
                     r"\b[^\n]{0,60}?(?:~/\.ssh|id_rsa|id_ed25519|\.aws/credentials|"
                     r"/etc/(?:passwd|shadow)|\.env\b|\.netrc|private key|api[_ ]?keys?)",
                     re.IGNORECASE)
_COMMENT = re.compile(r"<!--(.*?)-->", re.DOTALL)
# One literal start ("](") for both quotes, which the regex engine skips to quickly.
_LINK_TITLE = re.compile(r"\]\([^)\s]+\s+(?:\"([^\"]{8,})\"|'([^']{8,})')\)")


def hidden_instructions(text: str) -> Found:
    """Instructions to the agent inside HTML comments or link titles, which a reader of
    the rendered page never sees."""
    if contains(text, "<!--"):
        for comment in _COMMENT.finditer(text):
            found = _HIDDEN.search(comment.group(1))
            if found and "skillsite-" not in comment.group(1):
                yield comment.start(), (f"HTML comment hides an instruction: "
                                        f"{_quote(found.group())}")
    if ('"' in text or "'" in text) and contains(text, "]("):
        for title in matches_from(_LINK_TITLE, text, "]"):
            group = 1 if title.group(1) else 2
            found = _HIDDEN.search(title.group(group))
            if found:
                yield title.start(group), (f"link title hides an instruction: "
                                           f"{_quote(found.group())}")


def prompt_override(text: str) -> Found:
    """Visible phrases that tell the agent to drop its instructions, outside code."""
    if not (any_lowered(text, _OVERRIDE_MARKERS) or contains_lowered(text, "the user")
            and (contains_lowered(text, "do not") or contains_lowered(text, "without"))):
        return
    lowered = lower(text)
    blocks = None
    # The lowered text is searched when lowering keeps every offset (no character lowered
    # into two) and IGNORECASE would match nothing that lowering does not (no character
    # that it folds apart from str.lower, such as the long s): the same matches, quoted
    # as before, from the lowered text when it is ASCII and from the text when it is not.
    if text.isascii():
        found_in, quoted = _OVERRIDE_LOWER.finditer(lowered), lowered
    elif len(lowered) == len(text) and _FOLDED_APART.search(text) is None:
        found_in, quoted = _OVERRIDE_LOWER.finditer(lowered), text
    else:
        found_in, quoted = _OVERRIDE().finditer(text), text
    for found in found_in:
        blocks = fences(text) if blocks is None else blocks
        at = found.start()
        if not (_in_code(text, at, blocks) or _quoted(text, at) or _in_comment(text, at)
                or _prohibited(text, at)):
            yield at, f"text tells the agent to {_quote(quoted[at:found.end()])}"


_BLOB = re.compile(r"[A-Za-z0-9+/]{120,}={0,2}|(?<![0-9a-fA-F])[0-9a-fA-F]{48,}(?![0-9a-fA-F])")
_HASH_LENGTHS = {32, 40, 56, 64, 96, 128}
# Bytes that may stand in a base64 or hex run become "a", every other byte a space.
_BLOB_CHARS = bytes(0x61 if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "+/")
                    else 0x20 for b in range(256))
_RUN_OF_48 = b"a" * 48
_SRI = re.compile(r"sha(?:256|384|512)-$")


@per_document
def _utf8(text: str) -> bytes:
    """The text as UTF-8 (a lone surrogate as ``?``), once for the blob scanners."""
    return text.encode("utf-8", "replace")


@per_document
def _blob_map(text: str) -> bytes:
    """:func:`_utf8` with each byte of a base64 or hex run as ``a``, any other a space."""
    return _utf8(text).translate(_BLOB_CHARS)


@per_document
def _run_of_16(text: str) -> int:
    """Where the text's first run of 16 blob characters starts (-1: it holds none), asked
    by both blob scanners: a text without one (most) holds no run of 48 either, and is
    settled by one search; in the others, a run of 48 starts there or after."""
    return _blob_map(text).find(_RUN_OF_16)


_RUN_OF_16 = _RUN_OF_48[:16]


def may_hold_blob(text: str) -> bool:
    """Whether :func:`encoded_blobs` or :func:`split_blobs` could find anything in ``text``
    (each finds nothing in a text without a run of 16 blob characters)."""
    return _run_of_16(text) >= 0


def encoded_blobs(text: str) -> Found:
    """Long base64 or hex runs that could hide a payload; hashes and checksums (hex of
    a digest's length), data URIs of images and integrity attributes are not payloads."""
    first = _run_of_16(text)
    if first < 0 or _blob_map(text).find(_RUN_OF_48, first) < 0:
        return  # no run of 48 blob characters: one C-speed pass settles most texts
    position = 0
    for token in text.split():
        if len(token) < 48:
            continue
        position = text.find(token, position)
        for found in _BLOB.finditer(token):
            message = _blob_message(found.group(), text[max(position - 24, 0):position]
                                    + token[:found.start()])
            if message:
                yield position + found.start(), message
        position += len(token)


# Pieces of one blob: base64 wrapped at a fixed width (76 in MIME) or split by spaces. A
# chain is runs of 8 or more base64 characters, each after a separator; it holds a blob
# when it splits into 4 or more such pieces. The chains are found on the text mapped to
# bytes (a base64 character becomes "a"; "=", space, tab and newline stay; any other byte
# becomes "."), where the pattern starts with a literal and never backtracks: the same
# matches as the plain pattern ``(?:[A-Za-z0-9+/]{8,}={0,2}[ \t]*\n?[ \t]*){4,}``, which
# tries every position of the text and backtracks through every split of a long run.
_CHAIN_CHARS = bytes(0x61 if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "+/")
                     else b if chr(b) in "= \t\n" else 0x2E for b in range(256))
_SEPARATOR = rb"={0,2}[ \t]*\n?[ \t]*"
# A chain of fewer than 32 characters is dropped (below), and most are one word: the
# pattern skips a run that does not start a chain (``(?<!a{9})`` after the first eight)
# and a run of fewer than 32 with no piece after it, so that few reach Python; it still
# starts with a literal, which the engine skips to quickly.
_CHAIN = re.compile(rb"aaaaaaaa(?<!aaaaaaaaa)(?=a{24}|a*+(?>" + _SEPARATOR + rb")aaaaaaaa)"
                    rb"(?:a*+)(?:(?>" + _SEPARATOR + rb")aaaaaaaa(?:a*+))*+")
_TRAILING = re.compile(_SEPARATOR)
_RUN = re.compile(rb"a+")


# A chain's bytes (base64 characters and its separators) become "a", any other a dot.
_SPAN_CHARS = bytes(0x61 if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "+/= \t\n")
                    else 0x2E for b in range(256))
_SPAN_OF_120 = b"a" * 120


def _pieces(text: str) -> Iterator[tuple[int, str]]:
    """(offset, text) of each chain of 4 or more pieces, with its trailing separator."""
    raw = _utf8(text)
    mapped = raw.translate(_CHAIN_CHARS)
    for chain in _CHAIN.finditer(mapped):
        start, end = chain.span()
        if end - start < 32 or sum(len(run) // 8 for run in _RUN.findall(
                mapped, start, end)) < 4:
            continue
        end = _TRAILING.match(mapped, end).end()  # type: ignore[union-attr]
        if len(raw) != len(text):  # byte offsets to character offsets
            start, end = (len(raw[:start].decode("utf-8", "replace")),
                          len(raw[:end].decode("utf-8", "replace")))
        yield start, text[start:end]


def split_blobs(text: str) -> Found:
    """Base64 wrapped over lines or split by spaces: the pieces joined are a blob that no
    single piece is. Prose never qualifies: its words have no digits and mixed case."""
    if _run_of_16(text) < 0 or _SPAN_OF_120 not in _utf8(
            text).translate(_SPAN_CHARS):
        return  # the 120 characters a split blob joins stand in a row, with its separators
    for start, found in _pieces(text):
        pieces = found.split()
        if len(pieces) < 2 or not all(_mixed_piece(p) for p in pieces[:-1]):
            continue
        joined = "".join(pieces)
        if len(joined) >= 120 and all(len(p) < 120 for p in pieces) and entropy(
                joined) >= 4.5 and not all(c in "0123456789abcdefABCDEF" for c in joined):
            yield start, (f"{len(joined)}-character base64 blob split into "
                          f"{len(pieces)} pieces; say what it is or remove it")


def _mixed_piece(piece: str) -> bool:
    return (any(c.isdigit() for c in piece) or "+" in piece or "/" in piece) and any(
        c.isupper() for c in piece) and any(c.islower() for c in piece)


def _blob_message(blob: str, before: str) -> str | None:
    if all(c in "0123456789abcdefABCDEF" for c in blob):
        if len(blob) in _HASH_LENGTHS or len(blob) % 2:
            return None
        kind = "hex"
    else:
        before = before.lower()
        if ("base64," in before or _SRI.search(before) or entropy(blob) < 4.5
                or "///" in blob):
            return None
        kind = "base64"
    return f"{len(blob)}-character {kind} blob; say what it is or remove it"


# Written in lower case: it runs on the lowered text (IGNORECASE is several times slower).
# An interpreter that runs what it reads: a shell (also as /bin/bash or env bash), Python,
# Perl, Ruby, Node or PHP, maybe behind sudo. Given its code another way, it reads the
# download as data: a script file (``| python3 parse.py``), ``-c``/``-m`` (``| python3 -m
# json.tool``), Perl's or Ruby's ``-e``, Node's ``-e``/``-p``, PHP's ``-r``.
_SCRIPT_ARGUMENT = r"(?!\d*[<>])[\w./~$\"']"
_INTERPRETER = (r"(?:sudo\s+(?:-\S+\s+)*)?(?:(?:/usr)?(?:/local)?/bin/)?(?:env\s+)?"
                r"(?:(?:ba|z|k|da)?sh\b(?![ \t]+(?:-c\b|" + _SCRIPT_ARGUMENT + r"))"
                r"|python[23]?(?:\.\d+)?\b(?![ \t]+(?:-[cm]|" + _SCRIPT_ARGUMENT + r"))"
                r"|(?:perl|ruby|node|php)\b(?![ \t]+(?:-[a-z]*[epr]\b|" + _SCRIPT_ARGUMENT
                + r")))")
# One command line: a backslash continues it on the next line.
_SAME_COMMAND = r"(?:[^\n;&\\]|\\\n|\\(?!\n))*?"
_PIPE_PATTERN = (
    r"\b(?:curl|wget)\b" + _SAME_COMMAND + r"\|\s*" + _INTERPRETER +
    r"|\b(?:iwr|irm|invoke-webrequest|invoke-restmethod)\b[^\n|;]*\|\s*"
    r"(?:iex|invoke-expression)\b"
    r"|\b(?:(?:ba|z)?sh|python[23]?)\s+(?:-c\s+)?[\"']?(?:<\(|\$\()\s*(?:curl|wget)\b"
    r"|\beval\s+[\"']?\$\(\s*(?:curl|wget)\b"
    r"|(?:\bsource|(?<![\w.])\.)\s+<\(\s*(?:curl|wget)\b"
    r"|\b(?:iex|invoke-expression)\b[^\n]*\b(?:iwr|irm|invoke-webrequest|downloadstring)\b")
_PIPE_LOWER = lazy(_PIPE_PATTERN)
#: A text that holds none of these (lowered) holds no pipe to a shell.
PIPE_MARKERS = ("curl", "wget", "iwr", "irm", "invoke-")
_PIPE = lazy(_PIPE_PATTERN, re.IGNORECASE)  # for text that lowering may lengthen
#: Every match of the pattern holds one of these as a whole word.
_PIPE_WORDS = ("curl", "wget", "iwr", "irm", "invoke-webrequest", "invoke-restmethod",
               "downloadstring")
#: Each of _PIPE_WORDS with the marker (of the marker pass) that it holds, if any: a word
#: whose marker the lowered text lacks is not searched for.
_PIPE_WORD_MARKERS = tuple((word, next((m for m in PIPE_MARKERS if m in word), None))
                           for word in _PIPE_WORDS)
#: Letters that IGNORECASE matches to an ASCII letter but lowering keeps apart (dotted and
#: dotless i, long s): a text holding one is searched without the word check.
_FOLDS_TO_ASCII = ("\u0130", "\u0131", "\u017f")


def _has_word(lowered: str, words: tuple[str, ...]) -> bool:
    """Whether one of ``words`` stands in ``lowered`` between two non-word characters
    (as ``\\b`` sees them)."""
    for word in words:
        at = lowered.find(word)
        while at >= 0:
            end = at + len(word)
            if not (at and _word_char(lowered[at - 1])) and not (
                    end < len(lowered) and _word_char(lowered[end])):
                return True
            at = lowered.find(word, at + 1)
    return False


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def pipe_to_shell(text: str) -> Found:
    """Remote code piped straight into an interpreter: ``curl ... | sh``, ``wget ... |
    bash``, ``| python3 -``, ``| /bin/bash``, ``| env bash``, ``| tee f | sh``, a pipe
    continued with ``\\``, ``iwr ... | iex``, ``bash <(curl ...)``, ``eval "$(curl ...)"``,
    ``source <(curl ...)``."""
    if not any_lowered(text, PIPE_MARKERS):
        return
    lowered = lower(text)
    present = markers_of(text)
    words = tuple(word for word, marker in _PIPE_WORD_MARKERS
                  if marker is None or marker in present)
    if not _has_word(lowered, words) and not any_in(text, _FOLDS_TO_ASCII):
        return  # "irm" in "confirm" passes the marker gate, and the pattern is slow
    found_in = _PIPE_LOWER().finditer(lowered) if text.isascii() else _PIPE().finditer(text)
    for found in found_in:
        command = text[found.start():found.end()]
        yield found.start(), (f"{_quote(command)} runs code fetched from the network "
                              "unseen; download it, check it, then run it")


_DYNAMIC = re.compile(r"(?<![\w`])!`([^`\n]+)`")


def dynamic_context(text: str) -> Found:
    """Claude Code's ``!`command``` runs the command when the skill loads, before the
    model or the user sees its output. Examples inside code blocks are not run."""
    if not contains(text, "!`"):
        return
    blocks = fences(text)
    for found in _DYNAMIC.finditer(text):
        if not in_fence(blocks, found.start()):
            yield found.start(), (f"!`{found.group(1)}` runs a command when the skill "
                                  "loads; make sure it is read-only and expected")


# In command position: at the start of a line (after a prompt) or of a code span, or after
# a shell operator; so "echo 'uvx not found'" and prose are not commands.
_RUNNER = lazy(r"(?:^|(?<=[`;|&\n])|(?<=\$\()|(?<=\$ )|(?<=> ))[ \t]*(?:sudo[ \t]+)?"
                     r"(npx|uvx|bunx|pipx run|pnpm dlx)(?=[ \t])")
#: A text that holds none of these (lowered) runs no package runner.
RUNNER_MARKERS = ("npx", "uvx", "pipx run", "bunx", "dlx")
_PINNED = re.compile(r"@(?!latest\b)v?\d|==|@[0-9a-f]{7,}")
_PACKAGE = re.compile(r"^[@a-z0-9][\w@./:=~^-]*$")
_VALUE_OPTIONS = {"--from", "--spec", "--package", "-p", "--with", "--python"}


def unpinned_runners(text: str, *, markdown: bool, shell: bool = True) -> Found:
    """``npx pkg``, ``uvx pkg`` or ``pipx run pkg`` without a version: it runs whatever
    the registry serves that day. In Markdown only code (blocks and spans) is read, so
    prose such as "use npx to run it" is not a command; ``npx jest`` without ``--yes``
    runs the project's own install and is not reported. A script that is not a shell
    script (``shell=False``: Python, JavaScript...) is not read at all: a runner at the
    start of one of its lines is prose in a docstring or a comment."""
    if not (markdown or shell) or not any_in(text, RUNNER_MARKERS):
        return
    blocks = fences(text) if markdown else []
    for found in _RUNNER().finditer(text):
        if markdown and not _in_code(text, found.start(), blocks):
            continue
        line_end = text.find("\n", found.end())
        words = text[found.end():line_end if line_end >= 0 else len(text)].split()
        package, spec = _package(words)
        if _local_tool(found.group(1), package, words):
            continue
        if package and not _PINNED.search(spec or package):
            runner = found.group(1)
            yield found.start(1), (f"{runner} {package} runs an unpinned package; pin a "
                                  f"version, such as {runner} {_pin_example(runner, package)}")


#: A project's own dev tools: ``npx jest`` runs the local install (npx fetches nothing
#: unless the tool is missing, and then asks first unless given ``--yes``).
_LOCAL_TOOLS = frozenset({
    "jest", "tsc", "eslint", "prettier", "vitest", "mocha", "playwright", "ts-node", "tsx",
    "webpack", "vite", "next", "hardhat", "nx", "turbo", "lerna", "tailwindcss", "cypress",
    "husky", "lint-staged", "stylelint", "babel", "rollup", "esbuild", "c8", "nyc", "astro",
    "nuxt", "expo", "svelte-kit", "ava", "tap", "karma", "truffle", "solhint",
    # CLIs of a project's own dependencies, run against its code and schema:
    "prisma", "drizzle-kit", "remotion", "@remotion/cli", "storybook", "knex",
    "sequelize", "sequelize-cli", "typeorm", "wrangler", "react-native", "ng", "vue-cli-service",
    "biome", "@biomejs/biome", "svelte-check", "jsdoc", "typedoc", "changeset", "@changesets/cli"})

#: Script suffixes whose lines are shell commands (a runner at a line's start runs).
SHELL_SUFFIXES = (".sh", ".bash", ".zsh", ".ksh", ".fish", ".ps1", ".bat", ".cmd",
                  "Makefile", "Dockerfile", ".mk", ".yml", ".yaml", ".toml", ".json")


def _local_tool(runner: str, package: str | None, words: list[str]) -> bool:
    return (runner in ("npx", "bunx") and package in _LOCAL_TOOLS
            and not {"-y", "--yes"} & set(words))


def _package(words: list[str]) -> tuple[str | None, str | None]:
    """The package a runner's arguments name, and the spec given by ``--from`` and kin."""
    spec, index = None, 0
    while index < len(words):
        word = words[index].strip("'\"`").rstrip(")")
        if word.startswith("-"):
            name, _, value = word.partition("=")
            if name in _VALUE_OPTIONS:
                if not value and index + 1 < len(words):
                    index += 1
                    value = words[index].strip("'\"`")
                spec = spec or value
            index += 1
            continue
        return (word if _PACKAGE.match(word) and word[-1] not in ".:," else None), spec
    return None, spec


def _pin_example(runner: str, package: str) -> str:
    if "@" in package[1:]:
        return package
    return f"{package}==1.2.3" if runner == "pipx run" else f"{package}@1.2.3"


def _in_code(text: str, offset: int, blocks: list[Fence]) -> bool:
    if in_fence(blocks, offset):
        return True
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("`", line_start, offset) % 2 == 1


_SENTENCE_START = re.compile(r"[.!?;:\n]")
_NEGATION = re.compile(r"\b(?:never|not|don't|dont|mustn't|no|nor|avoid)\b")


def _prohibited(text: str, offset: int) -> bool:
    """Forbidden, not asked for: "Never ignore previous instructions", "Do not delete
    files without asking the user" (a negation earlier in the same sentence)."""
    start = offset
    while start > 0 and not _SENTENCE_START.match(text, start - 1):
        start -= 1
        if offset - start > 200:
            break
    return _NEGATION.search(lower(text[start:offset])) is not None


def _in_comment(text: str, offset: int) -> bool:
    """Inside an HTML comment (which :func:`hidden_instructions` reports)."""
    return text.rfind("<!--", 0, offset) > text.rfind("-->", 0, offset)


def _quoted(text: str, offset: int) -> bool:
    """Inside double quotes on its line: a phrase cited as an example, not said."""
    line_start = text.rfind("\n", 0, offset) + 1
    before = text[line_start:offset]
    return before.count('"') % 2 == 1 or before.count("\u201c") > before.count("\u201d")


def _quote(fragment: str) -> str:
    fragment = " ".join(fragment.split())
    return f"'{fragment[:60]}{'...' if len(fragment) > 60 else ''}'"
