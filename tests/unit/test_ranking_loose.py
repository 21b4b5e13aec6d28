"""The ranking's per-query loose matching (prefix and one typo) only tries the tokens that
share a first or second letter with the term; it must find exactly what trying every
token with :func:`near_prefix` finds."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from skillsite.index.fuzzy import FUZZY_MIN_CHARS, near_prefix
from skillsite.index.ranking import PREFIX_MIN_CHARS, _loose_matches

# A small alphabet makes near misses (one edit away) common.
words = st.text(alphabet="abcde", min_size=1, max_size=8)


@settings(max_examples=300, deadline=None)
@given(terms=st.lists(words, min_size=1, max_size=4, unique=True),
       tokens=st.lists(words, min_size=1, max_size=30))
def test_loose_matches_equal_trying_every_token(terms: list[str], tokens: list[str]) -> None:
    found = _loose_matches(terms, [{"loose": frozenset(tokens)}])
    for term in terms:
        near = {token for token in tokens if near_prefix(term, token)}
        prefixed = {token for token in tokens if token.startswith(term)}
        assert found[term].near == (near if len(term) >= FUZZY_MIN_CHARS else set())
        assert found[term].prefixed == (prefixed if len(term) >= PREFIX_MIN_CHARS else set())


def test_a_typo_in_the_first_letters_is_still_found() -> None:
    tokens = ["kubernetes", "ubernetes", "ukbernetes", "xkubernetes", "qubernetes"]
    found = _loose_matches(["kubernetes"], [{"loose": frozenset(tokens)}])
    assert found["kubernetes"].near == set(tokens)
    assert found["kubernetes"].prefixed == {"kubernetes"}


text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=80)


@settings(max_examples=200, deadline=None)
@given(name=text, title=text, description=text, body=st.text(max_size=400),
       tags=st.lists(text, max_size=3), headings=st.lists(text, max_size=3),
       compatibility=text)
def test_stored_terms_analyse_as_the_text_itself(name: str, title: str, description: str,
                                                 body: str, tags: list[str],
                                                 headings: list[str], compatibility: str
                                                 ) -> None:
    """What the build stores (joined terms, body counts) reads back as the tokenizer's
    own terms, whatever the text: Unicode, punctuation, stop words, long tokens."""
    import dataclasses
    import json

    from skillsite.index.fields import field_texts, stored_terms
    from skillsite.index.ranking import _analysis
    from skillsite.models import IndexDoc

    doc = IndexDoc(name=name, title=title, description=description, tags=tuple(tags),
                   intents=tuple(tags[:1]), applies_to=tuple(tags[1:]),
                   compatibility=compatibility, headings=tuple(headings), body=body)
    stored = dataclasses.replace(doc, terms=json.dumps(stored_terms(field_texts(doc))))
    assert _analysis(stored) == _analysis(doc)
