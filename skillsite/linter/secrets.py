"""Secrets in free text (a body, a script): a known token shape, or a value assigned to a
secret-named key, kept only when it is random enough and is not a documented placeholder.

The gates exist because real skills are full of examples: AWS's own
``AKIAIOSFODNN7EXAMPLE``, ``sk-...``, ``<your-token>``, ``${API_KEY}``, ``xxxx``. A
candidate is reported only when its Shannon entropy reaches :data:`MIN_ENTROPY` bits per
character (placeholders and words stay well below) and it holds none of the placeholder
markers.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator

from skillsite.linter.lazy import lazy
from skillsite.linter.markers import any_in, any_lowered, contains, lower
from skillsite.linter.markers import found as found_markers

MIN_ENTROPY = 3.0
#: (marker, pattern, what): a pattern runs only on a text that holds its marker, so most
#: texts cost one substring search per shape.
_KNOWN = [
    ("AKIA", r"AKIA[0-9A-Z]{16}(?![0-9A-Z])", "an AWS access key"),
    ("gh", r"gh[pousr]_[A-Za-z0-9]{36,}", "a GitHub token"),
    ("github_pat_", r"github_pat_[A-Za-z0-9_]{40,}", "a GitHub token"),
    ("glpat-", r"glpat-[A-Za-z0-9_-]{20,}", "a GitLab token"),
    ("xox", r"xox[abprs]-[A-Za-z0-9-]{20,}", "a Slack token"),
    ("sk-", r"sk-(?:ant-|proj-|live-)?[A-Za-z0-9_-]{32,}", "an API secret key"),
    ("k_live_", r"[rs]k_live_[A-Za-z0-9]{20,}", "a Stripe key"),
    ("AIza", r"AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])", "a Google API key"),
    ("PRIVATE KEY", r"-----BEGIN (?:RSA |EC |OPENSSH |DSA |PGP )?PRIVATE KEY-----",
     "a private key"),
]
_KNOWN_RES = [(marker, re.compile(pattern), what) for marker, pattern, what in _KNOWN]
_GITHUB_PREFIXES = ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")
#: A text with none of these holds no token shape (one check instead of one per shape).
_SHAPE_MARKERS = (*(m for m, _, _ in _KNOWN if m != "gh"), *_GITHUB_PREFIXES)
# key = "value" / key: value / KEY=value. The regex starts at the separator, which is
# rare, and the key name before it is then checked against _SECRET_NAME.
_ASSIGNED = re.compile(r"[:=][ \t]*[\"']?([A-Za-z0-9+/_.~-]{16,})")
_NAME_MARKERS = ("key", "secret", "token", "passw")  # looked for in the lowered text
#: A text that holds none of these (lowered) holds no candidate secret.
SECRET_MARKERS = (*(m.lower() for m in _SHAPE_MARKERS), *_NAME_MARKERS)
#: Where a key that ends as every name of _SECRET_NAME ends meets its separator: one
#: pattern per ending, each led by a literal that the regex engine skips to quickly.
#: (``$`` in _KEY_END also matches before a newline that ends the searched stretch.)
_NAMED = [rf"{end}[\"']?[ \t]*\n?[:=]" for end in ("key", "secret", "token", "passw(?:or)?d")]
_NAMED_SEPARATORS = [re.compile(named) for named in _NAMED]  # on the lowered text
_NAMED_SEPARATORS_ANY_CASE = [re.compile(named, re.IGNORECASE) for named in _NAMED]
_KEY_END = lazy(r"([A-Za-z0-9_.-]+)[\"']?[ \t]*$")
_SECRET_NAME = lazy(r"(?i)^(?:[\w.-]*[_.-])?(?:api[_-]?key|secret(?:[_-]?key)?|"
                          r"access[_-]?token|auth[_-]?token|token|password|passwd|"
                          r"client[_-]?secret|private[_-]?key)$")
#: Documented placeholders and the words examples use.
_PLACEHOLDER = lazy(
    r"(?i)example|sample|dummy|placeholder|your|changeme|redacted|xxxx|\*\*\*|\.\.\.|"
    r"<[^>]*>|\$\{?[A-Z_]|test|fake|secret_here|replace|0{6}|1234|abcd|abc123|password|passwd|token|"
    r"secret|apikey|api_key")


def entropy(value: str) -> float:
    """Shannon entropy of ``value``, in bits per character."""
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def is_placeholder(value: str) -> bool:
    return (_PLACEHOLDER().search(value) is not None or entropy(value) < MIN_ENTROPY
            or _written_by_hand(value))


_HAND_PART = re.compile(r"[a-z]{1,10}\d?|v?\d{1,2}")


def _written_by_hand(value: str) -> bool:
    """Short lowercase words joined by ``-`` or ``_`` (``sk-or-v1-project1-key``): a
    made-up example. A generated key has long random parts."""
    parts = re.split(r"[-_]", value)
    return len(parts) >= 3 and all(_HAND_PART.fullmatch(part) for part in parts if part)


def find_secrets(text: str) -> Iterator[tuple[int, str]]:
    """``(offset, what)`` for each likely secret in ``text``; a line that says "example"
    shows one, it does not leak one."""
    for offset, what in _candidates(text):
        line_start = text.rfind("\n", 0, offset) + 1
        line_end = text.find("\n", offset)
        if "example" not in text[line_start:line_end if line_end >= 0 else None].lower():
            yield offset, what


def _candidates(text: str) -> Iterator[tuple[int, str]]:
    for marker, pattern, what in _KNOWN_RES if any_in(text, _SHAPE_MARKERS) else ():
        if not _holds(text, marker):
            continue
        for found in pattern.finditer(text):
            if found.start() and (text[found.start() - 1].isalnum()):
                continue  # inside a longer word
            value = found.group()
            if what == "a private key":
                value = text[found.end():found.end() + 200].strip().split("\n", 1)[0]
            if len(value) >= 20 and not is_placeholder(value):
                yield found.start(), what
    if not any_lowered(text, _NAME_MARKERS):
        return
    for found in _named_assignments(text):
        value = found.group(1)
        if _code(value, text[found.end():found.end() + 1]):
            continue  # an expression (Curve25519.KeyAgreement.PrivateKey()), not a literal
        if _mixed(value) and _secret_name(text, found) and not is_placeholder(value):
            yield found.start(1), "a secret assigned to a secret-named key"


def _assignments(text: str) -> Iterator[re.Match[str]]:
    """``_ASSIGNED.finditer(text)``, tried only where a ``:`` or ``=`` stands: the regex
    engine has no fast way to skip to a character class, ``str.find`` has (a body holds
    a few separators in some thousands of characters)."""
    at, colon, equals = 0, text.find(":"), text.find("=")
    while colon >= 0 or equals >= 0:
        here = colon if equals < 0 or 0 <= colon < equals else equals
        found = _ASSIGNED.match(text, here)
        at = found.end() if found else here + 1
        if found:
            yield found
        if colon < at:
            colon = text.find(":", at)
        if equals < at:
            equals = text.find("=", at)


def _named_assignments(text: str) -> Iterator[re.Match[str]]:
    """The matches of :func:`_assignments` whose separator follows a key name that
    :func:`_secret_name` could accept, in the same order. A match never holds a ``:`` or
    ``=`` after its own, so the regex matches at a separator whatever matched before it,
    and most separators (in URLs, code, tables) are never looked at."""
    subject = lower(text)
    if len(subject) == len(text):  # no character lowered into two: every offset kept
        # Only the endings the lowered text holds (the marker pass knows which).
        present = found_markers(text)
        patterns = [p for marker, p in zip(_NAME_MARKERS, _NAMED_SEPARATORS, strict=True)
                    if marker in present]
    else:
        subject, patterns = text, _NAMED_SEPARATORS_ANY_CASE
    # The four endings differ in their last letter: no separator is found twice.
    for end in sorted(found.end() for pattern in patterns
                      for found in pattern.finditer(subject)):
        found = _ASSIGNED.match(text, end - 1)
        if found:
            yield found


def _holds(text: str, marker: str) -> bool:
    if marker == "gh":  # most English text holds "gh"; a GitHub token holds a prefix
        return any_in(text, _GITHUB_PREFIXES)
    return contains(text, marker)


def _secret_name(text: str, found: re.Match[str]) -> bool:
    start = found.start()
    key = _KEY_END().search(text, max(start - 60, 0), start)
    return key is not None and _SECRET_NAME().match(key.group(1)) is not None


_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")


def _code(value: str, after: str) -> bool:
    return after == "(" or _DOTTED.fullmatch(value) is not None


def _mixed(value: str) -> bool:
    """Letters and digits both: generated secrets mix them, words and paths rarely do."""
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
