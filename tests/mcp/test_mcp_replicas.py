"""Two replicas and one Redis: two real ``skillsite mcp --http --safe --shared redis://...``
processes, one real ``redis-server``, driven by the real MCP SDK client. A ref issued by one
replica is taken once on either; a client alternating between replicas (a load balancer
without sticky sessions) gets exactly one budget; the windows and cursor keys are shared;
Redis stopped mid-session fails closed with retry_after_seconds, and serving recovers by
itself when it is back."""
from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from redis_server import RedisServer, free_port, redis_server_path  # noqa: E402
from replicas import pinned_client, replicas, round_robin_client  # noqa: E402

from skillsite.reader.safe import SafePolicy  # noqa: E402

pytest.importorskip("redis")
from skillsite.reader.shared_redis import RETRY_SECONDS  # noqa: E402

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(redis_server_path() is None,
                                 reason="redis-server is not installed")]
POLICY = SafePolicy()
FREE = f"127.0.0.1:{free_port()}"


@pytest.fixture(scope="module")
def urls(dist: Path) -> Iterator[list[str]]:
    with RedisServer() as redis, replicas(dist, redis.url, 2, "--safe") as running:
        yield [url for _, url in running]


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def _answer(client: Client, tool: str, **arguments: Any) -> tuple[bool, dict[str, Any]]:
    """(served, the JSON answer or the reader's error JSON)."""
    result = await client.call_tool(tool, arguments)
    text = result.content[0].text  # type: ignore[union-attr]
    return not result.is_error, json.loads(text[text.index("{"):])


async def _served(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    ok, shape = await _answer(client, tool, **arguments)
    assert ok, shape
    return shape


async def _refused(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    ok, shape = await _answer(client, tool, **arguments)
    assert not ok, shape
    return shape


async def test_a_ref_issued_by_one_replica_works_once_and_only_once(urls: list[str]) -> None:
    headers = _bearer("ref-once")
    async with pinned_client(urls[0], headers) as one, pinned_client(urls[1], headers) as two:
        ref = (await _served(one, "search", query="fill pdf form"))["results"][0]["ref"]
        assert (await _served(two, "open", ref=ref))["name"] == "pdf-forms"
        for replica in (two, one):
            assert (await _refused(replica, "open", ref=ref))["error"] == \
                "invalid-or-expired-reference"
    async with pinned_client(urls[1], _bearer("someone-else")) as other:
        async with pinned_client(urls[0], headers) as one:
            ref = (await _served(one, "search", query="fill pdf form"))["results"][0]["ref"]
        # a ref belongs to the client it was issued to, on every replica
        assert (await _refused(other, "open", ref=ref))["error"] == "invalid-or-expired-reference"


async def test_a_client_alternating_between_replicas_gets_exactly_one_budget(
        urls: list[str]) -> None:
    async with round_robin_client(urls, _bearer("alternating")) as (client, transport):
        served = refused = 0
        for _ in range(POLICY.max_searches + 10):
            ok, shape = await _answer(client, "search", query="incident triage")
            if ok:
                served += 1
            else:
                assert shape["error"] == "restricted-budget-exhausted", shape
                assert 0 < shape["retry_after_seconds"] <= POLICY.window
                refused += 1
        assert (served, refused) == (POLICY.max_searches, 10)
        assert min(transport.sent) >= POLICY.max_searches // 2  # both replicas served it
    for url in urls:  # each replica counts the one budget
        async with pinned_client(url, _bearer("alternating")) as client:
            budgets = (await _served(client, "context"))["budgets"]["safe"]
            assert budgets["searches"] == [POLICY.max_searches, POLICY.max_searches]


async def test_the_windows_are_shared(urls: list[str]) -> None:
    headers = _bearer("windows")
    async with pinned_client(urls[0], headers) as one, pinned_client(urls[1], headers) as two:
        found = await _served(one, "search", query="bisect a regression")
        opened = await _served(two, "open", ref=found["results"][0]["ref"])
        passage = await _served(one, "read", ref=opened["ref"])
        counts = [(await _served(c, "context"))["budgets"]["safe"] for c in (one, two)]
        assert counts[0] == counts[1]
        assert counts[0]["searches"][0] == 1 and counts[0]["reads"][0] == 2
        assert counts[0]["chars"][0] >= passage["chars"] > 0


async def test_a_cursor_signed_by_one_replica_verifies_on_the_other(urls: list[str]) -> None:
    headers = _bearer("cursor")
    async with pinned_client(urls[0], headers) as one, pinned_client(urls[1], headers) as two:
        found = await _served(one, "search", query="fill pdf form")
        first = await _served(two, "read", ref=found["results"][0]["ref"], start_line=1,
                              end_line=40, max_chars=200)
        assert first["truncated"] and first["cursor"]
        more = await _served(one, "read", ref=first["ref"], cursor=first["cursor"],
                             max_chars=200)
        assert more["text"] != first["text"]
    async with pinned_client(urls[0], _bearer("not-cursor")) as stranger:
        found = await _served(stranger, "search", query="fill pdf form")
        shape = await _refused(stranger, "read", ref=found["results"][0]["ref"],
                               cursor=first["cursor"], max_chars=200)
        assert shape["error"] == "invalid-argument"  # signed for another client


async def test_a_request_without_an_identity_spends_nothing(urls: list[str]) -> None:
    async with pinned_client(urls[0], {}) as anonymous:
        assert {tool.name for tool in (await anonymous.list_tools()).tools} >= {"search"}
        with pytest.raises(Exception, match="Authorization: Bearer"):
            await anonymous.call_tool("search", {"query": "fill pdf form"})


async def test_sessionless_protocol_is_served_on_both(urls: list[str]) -> None:
    """The 2026-07-28 protocol (no sessions) is served too: a client negotiating
    automatically gets it, and its budget is its identity's."""
    async with round_robin_client(urls, _bearer("modern"), mode="auto") as (client, _):
        assert client.protocol_version not in ("2025-11-25", "2025-06-18")
        ref = (await _served(client, "search", query="fill pdf form"))["results"][0]["ref"]
        assert (await _served(client, "open", ref=ref))["name"] == "pdf-forms"
        assert (await _served(client, "context"))["budgets"]["safe"]["searches"][0] == 1


async def test_redis_stopped_and_started_mid_session_fails_closed_then_recovers(
        dist: Path) -> None:
    with RedisServer() as redis, replicas(dist, redis.url, 2, "--safe") as running:
        urls = [url for _, url in running]
        async with round_robin_client(urls, _bearer("outage")) as (client, _):
            ref = (await _served(client, "search", query="fill pdf form"))["results"][0]["ref"]
            redis.stop()
            for tool, arguments in (("open", {"ref": ref}), ("search", {"query": "git bisect"})):
                shape = await _refused(client, tool, **arguments)
                assert shape["error"] == "shared-store-unavailable", shape
                assert 1 <= shape["retry_after_seconds"] <= RETRY_SECONDS
                assert "Redis at 127.0.0.1" in shape["message"]
            for _ in urls:  # context spends nothing: both replicas still answer it
                budgets = (await _served(client, "context"))["budgets"]["safe"]
                assert budgets["shared_store"] == "unavailable"
            redis.start()
            time.sleep(RETRY_SECONDS)
            for _ in urls:  # no restart of the replicas: each recovers by itself
                found = await _served(client, "search", query="fill pdf form")
                assert found["results"]
            # Redis came back empty (no persistence here): the old ref went with it
            assert (await _refused(client, "open", ref=ref))["error"] == \
                "invalid-or-expired-reference"


@pytest.mark.parametrize(("text", "headers", "named"), [
    ("bearer", {"authorization": "Bearer tok-1"}, True),
    ("bearer", {"authorization": "bearer tok-1"}, True),
    ("bearer", {"authorization": "Basic dXNlcg=="}, False),
    ("bearer", {"authorization": "Bearer   "}, False),
    ("bearer", {}, False),
    ("header:X-Client-Id", {"x-client-id": "team-a"}, True),
    ("header:X-Client-Id", {"authorization": "Bearer tok-1"}, False),
])
def test_a_client_identity_is_a_hash_of_what_names_it(text: str, headers: dict[str, str],
                                                       named: bool) -> None:
    from skillsite.mcp.identity import ClientIdentity

    key = ClientIdentity.parse(text).key(headers)
    assert (key is not None) == named
    if key is not None:
        value = next(iter(headers.values())).split()[-1]
        assert value not in key and len(key) < 50  # only a hash reaches the store
        assert key != ClientIdentity.parse(text).key({k: v + "x" for k, v in headers.items()})


@pytest.mark.parametrize("args", [
    ["--shared", "redis://127.0.0.1:1/0"],  # no --http
    ["--http", FREE, "--shared", "http://127.0.0.1:1/0"],
    ["--http", FREE, "--shared", "redis://127.0.0.1:1/0", "--client-identity", "ip"],
    ["--http", FREE, "--shared", "redis://127.0.0.1:1/0",
     "--client-identity", "header:"],
])
def test_shared_options_are_checked_before_serving(dist: Path, args: list[str]) -> None:
    from click.testing import CliRunner

    from skillsite.cli import main

    result = CliRunner().invoke(main, ["mcp", "--dist", str(dist), *args])
    assert result.exit_code == 2, result.output
    assert "--shared" in result.output or "--client-identity" in result.output
