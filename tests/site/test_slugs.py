"""Page and tag slugs are unique by construction (issue #20, item 4): a skill named
exactly another's slug must not take over its page, and no two names share a slug."""
from __future__ import annotations

import random
import re

from skillsite.site.data import MAX_SLUG, slug_of

_ESCAPE = re.compile(r"-_([0-9a-f]*)_")


def _decode(slug: str) -> str:
    """The inverse of slug_of for slugs that are not cut (proves it is injective)."""
    return _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)) if m.group(1) else "", slug)


def test_a_name_that_spells_another_names_slug_gets_its_own() -> None:
    victim = slug_of("Deploy Production")
    assert slug_of(victim) != victim
    assert slug_of("deploy-production-b92556ecd9") != slug_of("Deploy Production")
    assert slug_of(slug_of("telegram:access")) != slug_of("telegram:access")


def test_readable_names_keep_their_slug() -> None:
    assert [slug_of(n) for n in ("pdf-forms", "disk_usage", "a1")] == \
        ["pdf-forms", "disk_usage", "a1"]


def test_hostile_names_round_trip_and_never_collide() -> None:
    alphabet = "aZ-_:/. 0~%\u00e9\U0001f680<>\"'-_"
    rng = random.Random(20)
    names = {"".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
             for _ in range(20000)}
    names |= {slug_of(n) for n in list(names)[:2000]}  # names spelling other slugs
    slugs = {}
    for name in names:
        slug = slug_of(name)
        assert re.fullmatch(r"[a-z0-9_-]+", slug), slug
        assert _decode(slug) == name
        assert slugs.setdefault(slug, name) == name, (name, slugs[slug])


def test_long_names_are_cut_but_stay_apart() -> None:
    a, b = "x" * 400 + "A", "x" * 400 + "B"
    assert len(slug_of(a)) <= MAX_SLUG and slug_of(a) != slug_of(b)
    assert slug_of(slug_of(a)) != slug_of(a)
