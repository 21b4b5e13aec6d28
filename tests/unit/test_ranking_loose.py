"""Ranking reads candidates as ranking records, with substring tests on padded lines and a
per-query typo vocabulary. Both shortcuts must give exactly what the plain definitions in
the ranking module's docstring give: tested here against a reference written with token
sets and counters, on random text."""
from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from skillsite.entries import IndexDoc
from skillsite.index.fields import WEIGHTS, field_texts
from skillsite.index.fuzzy import FUZZY_MIN_CHARS, near_typed, near_word
from skillsite.index.ranking import (
    EXACT_NAME_BONUS,
    FUZZY_HIT,
    PHRASE_BONUS,
    PREFIX_MIN_CHARS,
    _near,
    matched_fields,
    rank,
)
from skillsite.index.ranking_record import lines_for, parse, record_of
from skillsite.index.tokens import partial_term, tokenize

# A small alphabet makes near misses (one edit away) and shared prefixes common.
words = st.text(alphabet="abcde", min_size=1, max_size=8)


@settings(max_examples=300, deadline=None)
@given(term=words, tokens=st.lists(words, min_size=1, max_size=30))
# A word being typed also finds the stems it runs past (fuzzy.typed_stems).
@example(term="aaaaaa", tokens=["aaaa"])
def test_near_equals_trying_every_token(term: str, tokens: list[str]) -> None:
    near = {token for token in tokens if near_typed(term, token)}
    text = f" {' '.join(tokens)} "
    assert _near(term, text) == (near if len(term) >= FUZZY_MIN_CHARS else set())


def test_a_typo_in_the_first_letters_is_still_found() -> None:
    tokens = ["kubernetes", "ubernetes", "ukbernetes", "xkubernetes", "qubernetes"]
    assert _near("kubernetes", f" {' '.join(tokens)} ") == set(tokens)


def _typos(term: str, typed: str | None, loose: set[str]) -> set[str]:
    """The name, title and tag words a typo of ``term`` may have meant (ranking's
    docstring): for a word being typed, the words that begin within one edit of it but
    not with it; else the words one edit away."""
    if len(term) < FUZZY_MIN_CHARS:
        return set()
    if term == typed:
        return {t for t in loose if near_typed(term, t) and not t.startswith(term)}
    return {t for t in loose if near_word(term, t)}


def _reference_score(query: str, doc: IndexDoc) -> float | None:
    """The ranking module's docstring, written plainly, for a corpus that weighs every
    term alike (``rank`` with no corpus statistics)."""
    sequence = tokenize(query)
    terms = list(dict.fromkeys(sequence))
    if not terms:
        return None
    typed = partial_term(query)
    fields = {field: text.split() for field, text in field_texts(doc).items()}
    get = fields.get
    lexical_counts = Counter(get("description", []) + get("headings", []) + get("body", []))
    norm = 1.2 * (1 - 0.75 + 0.75 * sum(lexical_counts.values()) / 200)
    loose = set(get("name", []) + get("title", []) + get("tags", []))
    share = 1 / len(terms)
    base = matched = 0.0
    for term in terms:
        typos = _typos(term, typed, loose)
        begins = term == typed and len(term) >= PREFIX_MIN_CHARS

        def hit(field: str, by_prefix: float, typo: bool = True, begins: bool = begins,
                typos: set[str] = typos, term: str = term) -> float:
            tokens = set(get(field, []))
            if term in tokens:
                return 1.0
            if by_prefix and begins and any(t.startswith(term) for t in tokens):
                return by_prefix
            return FUZZY_HIT if typo and typos & tokens else 0.0

        count = lexical_counts[term]
        loose_prefix = FUZZY_HIT if term == typed and len(term) >= FUZZY_MIN_CHARS else 0.0
        signals = {"name": hit("name", 0.5), "title": hit("title", loose_prefix),
                   "tag": hit("tags", loose_prefix),
                   "intent": float(term in get("intents", [])),
                   "applies_to": float(term in get("applies_to", [])),
                   "compatibility": float(term in get("compatibility", []))}
        if not (count or any(signals.values())):
            continue
        matched += share
        base += share * WEIGHTS["lexical"] * (count / (count + norm) if count else 0.0)
        base += share * sum(WEIGHTS[key] * value for key, value in signals.items())
    if not matched:
        return None
    score = base * (0.5 + 0.5 * matched)
    width = len(sequence)
    if width > 1 and any(get(field, [])[i:i + width] == sequence
                         for field in ("name", "title", "description")
                         for i in range(len(get(field, [])))):
        score += PHRASE_BONUS
    if sequence == get("name", []):
        score += EXACT_NAME_BONUS
    return round(score, 6)


sentence = st.lists(words, max_size=8).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(query=st.lists(words, min_size=1, max_size=4).map(" ".join),
       name=st.lists(words, min_size=1, max_size=3).map("-".join), title=sentence,
       description=sentence, body=st.lists(words, max_size=40).map(" ".join),
       tags=st.lists(words, max_size=3), headings=st.lists(sentence, max_size=3),
       compatibility=sentence)
def test_records_score_as_the_plain_definition(query: str, name: str, title: str,
                                               description: str, body: str, tags: list[str],
                                               headings: list[str], compatibility: str) -> None:
    doc = IndexDoc(name=name, title=title, description=description, tags=tuple(tags),
                   intents=tuple(tags[:1]), applies_to=tuple(tags[1:]),
                   compatibility=compatibility, headings=tuple(headings), body=body)
    expected = _reference_score(query, doc)
    found = dict(rank(query, [doc]))
    assert found.get(name) == _approx(expected)
    assert matched_fields(query, [lines_for(doc)]) == [_reference_matched(query, doc)]


def _approx(value: float | None) -> object:
    return None if value is None else pytest.approx(value, abs=2e-6)


text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=80)


@settings(max_examples=200, deadline=None)
@given(name=text, title=text, description=text, body=st.text(max_size=400),
       tags=st.lists(text, max_size=3), headings=st.lists(text, max_size=3),
       compatibility=text, query=text)
def test_a_stored_record_ranks_as_the_text_itself(name: str, title: str, description: str,
                                                  body: str, tags: list[str],
                                                  headings: list[str], compatibility: str,
                                                  query: str) -> None:
    """What the build stores reads back as the tokenizer's own terms, whatever the text:
    Unicode, punctuation, stop words, long tokens."""
    import dataclasses

    doc = IndexDoc(name=name or "x", title=title, description=description, tags=tuple(tags),
                   intents=tuple(tags[:1]), applies_to=tuple(tags[1:]),
                   compatibility=compatibility, headings=tuple(headings), body=body)
    record = record_of(field_texts(doc))
    assert parse(record) is not None
    stored = dataclasses.replace(doc, terms=record)
    query = query or "x"
    assert rank(query, [stored]) == rank(query, [doc])
    assert rank(query, [stored]) == ([] if _reference_score(query, doc) is None
                                     else [(doc.name, _reference_score(query, doc))])
    assert matched_fields(query, [lines_for(stored)]) == [_reference_matched(query, doc)]


def _reference_matched(query: str, doc: IndexDoc) -> tuple[str, ...]:
    terms = list(dict.fromkeys(tokenize(query)))
    typed = partial_term(query)
    fields = {field: set(text.split()) for field, text in field_texts(doc).items()}
    loose = fields.get("name", set()) | fields.get("title", set()) | fields.get("tags", set())
    near: set[str] = set()
    for term in terms:
        if len(term) >= FUZZY_MIN_CHARS:
            near |= {t for t in loose
                     if (near_typed(term, t) if term == typed else near_word(term, t))}
    order = ("name", "title", "description", "tags", "intents", "applies_to",
             "compatibility", "headings", "body")
    return tuple(field for field in order if set(terms) & fields.get(field, set()) or (
        field in ("name", "title", "tags") and near & fields.get(field, set())))
