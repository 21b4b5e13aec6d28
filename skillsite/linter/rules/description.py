"""Rules about how well a skill's name and description let an agent pick it."""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from skillsite.linter.lazy import lazy
from skillsite.linter.rules.context import Context, dialect, text_field
from skillsite.linter.rules.registry import Finding, rule
from skillsite.models import Document

DESCRIPTION = "description"
_TRIGGER_PATTERN = (r"\b(?:use (?:this |it )?(?:skill )?(?:when|whenever|for|if|to|with|after|"
                      r"before|during|on)|when (?:the )?(?:user|you|asked|working|a |an )|"
                      r"triggers?|triggered (?:by|when|on)|invoke when|"
                      r"for (?:tasks|requests|questions) (?:that|about|involving|like)|"
                      r"whenever|if the user|applies when|"
                      r"(?:should|must|can) be used (?:when|whenever|for|if|to|after|before)|"
                      r"use (?:proactively|immediately|automatically|only)|"
                      r"activates? (?:when|on|for)|"
                      r"(?:the )?user (?:wants|asks|needs|requests|mentions|says)|"
                      r"when [a-z]+ing)\b")
_TRIGGER = lazy(_TRIGGER_PATTERN, re.IGNORECASE)  # for the rare text lowering does not keep
# The same pattern for lowered ASCII text, where it gives the same answer several times
# faster than IGNORECASE does.
_TRIGGER_LOWER = re.compile(_TRIGGER_PATTERN)
_TAG = re.compile(r"<[A-Za-z/!][^>]*>")
_RESERVED = re.compile(r"(?:^|-)(claude|anthropic)(?:-|$)")
_WORD = re.compile(r"[a-z0-9]+")
_LONG_WORD = re.compile(r"[a-z]{4,}")
_FRAGMENT_END = re.compile(r"[,;|]")
_PIECE_END = re.compile(r"[,;|.!?:()\[\]]")
_FILLER = frozenset({"a", "an", "the", "skill", "for", "tool", "tools", "and"})


def _description(doc: Document) -> str | None:
    return text_field(doc, "description") if dialect(doc) != "mini-a" else None


@rule("description-trigger", "warning", formats=("skill-md",), family=DESCRIPTION,
      peers={"agnix": "AS-020", "skillsaw": "agentskill-description"})
def description_trigger(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    The description says what the skill does but not when to use it.

    The Agent Skills specification asks for both: agents choose a skill from its
    description alone. Say when, with a trigger such as "Use when ...", "Use for ...",
    "when the user asks ...", "user wants to ...", "when building ...". Claude Code's
    ``when_to_use`` field counts as the trigger. Descriptions of fewer than eight words are
    too short to judge and are left alone, and so is a skill with
    ``disable-model-invocation: true``: only the user starts it, so the agent never chooses
    it by its description.

    Passing example::

        description: Fills PDF forms. Use when a form must be filled.
    """
    text = _description(doc)
    # split(None, 7) has an eighth item when the text has eight words or more (no more
    # strings made than that).
    if (text and len(text.split(None, 7)) >= 8 and not _has_trigger(text)
            and not text_field(doc, "when_to_use")
            and (doc.data or {}).get("disable-model-invocation") is not True):
        yield "/description", ("description does not say when to use the skill; add a "
                               "trigger such as 'Use when ...'")


@rule("description-markup", "warning", formats=("skill-md",), family=DESCRIPTION,
      peers={"agnix": "AS-009, CC-SK-031"})
def description_markup(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    The name or description holds an XML or HTML tag (``<tool>``, ``</b>``).

    Anthropic's skill API rejects XML tags in both fields, and the description is pasted
    into the agent's system prompt, where a tag can open a block that was never meant.
    """
    for field in ("name", "description"):
        value = text_field(doc, field)
        found = _TAG.search(value) if value and "<" in value else None
        if found:
            yield f"/{field}", (f"{field} contains the tag {found.group()!r}; describe it "
                                "in words instead")


@rule("name-reserved-word", "warning", formats=("skill-md",), family=DESCRIPTION,
      peers={"agnix": "CC-SK-030", "skillsaw": "agentskill-name"})
def name_reserved_word(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    The name uses a reserved word, ``claude`` or ``anthropic``, as one of its parts.

    Anthropic's skill API rejects such names. The description is not checked: "Use with
    the Claude API" is a legitimate description, and Anthropic's rule is on the name.
    """
    name = text_field(doc, "name")
    found = _RESERVED.search(name) if name else None
    if found:
        yield "/name", (f"name {name!r} uses the reserved word {found.group(1)!r}; "
                        "pick another name")


@rule("description-restates-name", "warning", formats=("skill-md",), family=DESCRIPTION,
      peers={"skillsaw": "agentskill-description"})
def description_restates_name(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    The description only repeats the name ("pdf-tools: PDF tools"), so it tells the agent
    nothing the name did not.
    """
    name, text = text_field(doc, "name"), _description(doc)
    if not name or not text:
        return
    name_words = set(_WORD.findall(name.lower()))
    restated = False
    for found in _WORD.finditer(text.lower()):
        if found.group() in _FILLER:
            continue
        if found.group() not in name_words:
            return  # the description says something the name does not (the usual case)
        restated = True
    if restated:
        yield "/description", ("description only restates the name; say what the skill "
                               "does and when to use it")


@rule("description-keyword-stuffing", "warning", formats=("skill-md",), family=DESCRIPTION)
def description_keyword_stuffing(doc: Document, ctx: Context) -> Iterator[Finding]:
    """
    The description is a list of keywords rather than sentences: it holds no sentence
    (six words in a row that no comma, semicolon, bar, bracket or full stop breaks), and
    it is ten or more comma-separated fragments of one or two words (at least 80 % of its
    fragments) or one word makes a quarter of its words (six times at least).

    Stuffed descriptions win the agent's attention for requests the skill cannot serve.
    Sentences are fine whatever they repeat: "Best practices for Helidon 4. Use when
    working with Helidon SE or Helidon MP, Helidon DB Client, Helidon Security..." names
    its product as often as it needs, and a sentence may end in a list of languages.

    Failing example: ``description: pdf, forms, fill, acroform, fields, checkbox, radio,
    merge, split, ocr, extract``.
    """
    text = _description(doc)
    if not text or _has_sentence(text):
        return
    words = _LONG_WORD.findall(text.lower())
    # Six of one word need five repeats: without them, no word can reach six.
    repeats = len(words) - len(set(words))
    top = max(Counter(words).values()) if repeats >= 5 else 0
    if _listed(text) or (top >= 6 and top >= 0.25 * len(words)):
        yield "/description", ("description reads as a keyword list; write one or two "
                               "sentences instead")


def _has_sentence(text: str) -> bool:
    """Six words in a row that no separator breaks: a keyword list has no such run."""
    # The first piece settles most descriptions (a sentence) without splitting the rest.
    first = _PIECE_END.search(text)
    if len((text[:first.start()] if first else text).split(None, 5)) >= 6:
        return True
    return any(len(piece.split(None, 5)) >= 6 for piece in _PIECE_END.split(text))


def _listed(text: str) -> bool:
    """Ten or more fragments of one or two words, 80 % of all."""
    if sum(text.count(separator) for separator in ",;|") < 9:
        return False  # fewer than ten fragments (the common case, settled cheaply)
    parts = [p.strip() for p in _FRAGMENT_END.split(text) if p.strip()]
    short = sum(1 for p in parts if len(p.split()) <= 2)
    return short >= 10 and short >= 0.8 * len(parts)


def _has_trigger(text: str) -> bool:
    if text.isascii():
        return _TRIGGER_LOWER.search(text.lower()) is not None
    return _TRIGGER().search(text) is not None
