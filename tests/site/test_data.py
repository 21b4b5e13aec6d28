"""What the site reads of each skill from the dist/ being built."""
from __future__ import annotations

from typing import Any

from skillsite.store.content import ContentStore


def test_metas_and_files_reads_what_meta_and_files_read(built: Any) -> None:
    """The site's bulk read (900 names a query) equals the per-skill reads, for a list
    of names longer than one query, with names that are not stored left out."""
    with ContentStore(built.dist / "content") as store:
        names = store.names()
        asked = [f"missing-{i}" for i in range(950)] + names + ["missing-last"]
        found = store.metas_and_files(asked)
        assert sorted(found) == names and len(names) == 6
        for name in names:
            assert found[name] == (store.meta(name), store.files(name))
