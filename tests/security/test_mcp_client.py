"""A hostile MCP client, over streamable HTTP: the server listens on loopback when no host
is given, refuses other Host and Origin values (DNS rebinding), and no tool argument or
resource URI reaches a file outside ``dist/``.

The transport details have their own tests in tests/mcp (test_mcp_processes.py,
test_mcp_transport.py); this file checks the threat-model points end to end.
"""
from __future__ import annotations

import asyncio
import http.client
import json
import sys
from pathlib import Path

import pytest
from mcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from load import free_port, start_server  # noqa: E402

import skillsite  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SECRET = "MCP-OUTSIDE-SECRET-4b1d"
INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "hostile", "version": "1"}}})


def _post(port: int, **headers: str) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("POST", "/mcp", body=INITIALIZE, headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        **headers})
    status = connection.getresponse().status
    connection.close()
    return status


def _listening_addresses(port: int) -> set[str]:
    """Local addresses with a socket listening on ``port`` (from /proc/net/tcp)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            address, _, hex_port = local.rpartition(":")
            if state == "0A" and int(hex_port, 16) == port:
                found.add(address)
    return found


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("mcp-security")
    (base / "secret.md").write_text(SECRET)
    return skillsite.build(REPO / "corpus", base / "dist", jobs=1).dist


def test_no_host_means_loopback_only(dist: Path) -> None:
    import subprocess

    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "skillsite", "mcp", "--dist", str(dist),
                                "--http", f":{port}"], env={"PYTHONPATH": str(REPO),
                                                            "PATH": "/usr/bin:/bin"},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            if _listening_addresses(port):
                break
            asyncio.run(asyncio.sleep(0.1))
        assert _listening_addresses(port) == {"0100007F"}  # 127.0.0.1, and nothing else
    finally:
        process.terminate()
        process.wait(10)


def test_other_hosts_and_origins_are_refused(dist: Path) -> None:
    process, url = start_server(dist)
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    try:
        assert _post(port) == 200
        assert _post(port, Host=f"attacker.example:{port}") == 421  # DNS rebinding
        assert _post(port, Origin="https://attacker.example") == 403  # another web page
        assert _post(port, Origin=f"http://127.0.0.1:{port}") == 200
    finally:
        process.terminate()
        process.wait(10)


HOSTILE_REFS = ["../secret.md", "../../secret.md", f"{Path('/').resolve()}etc/passwd",
                "skill:../../secret", "pdf-forms/../../secret.md", "%2e%2e/secret.md"]
HOSTILE_URIS = ["skill://pdf-forms/../../secret.md", "skill://pdf-forms/%2e%2e/%2e%2e/secret.md",
                "skill://..%2f..%2fsecret.md/SKILL.md", "file:///etc/passwd",
                "skill://pdf-forms/../../../../../../etc/passwd"]


async def _hostile_session(url: str) -> list[str]:
    answers = []
    async with Client(url) as client:
        for ref in HOSTILE_REFS:
            for tool, arguments in (("open", {"ref": ref}), ("read", {"ref": ref}),
                                    ("related", {"ref": ref}), ("prompt", {"refs": [ref]})):
                result = await client.call_tool(tool, arguments)
                answers.append(result.content[0].text)  # type: ignore[union-attr]
        for uri in HOSTILE_URIS:
            try:
                result = await client.read_resource(uri)
                answers.append(repr(result))
            except Exception as error:  # refused: the SDK raises the server's error
                answers.append(str(error))
        big = await client.call_tool("read", {"ref": "pdf-forms", "max_chars": 20000})
        answers.append(big.content[0].text)  # type: ignore[union-attr]
    return answers


def test_no_argument_reaches_outside_dist(dist: Path) -> None:
    process, url = start_server(dist, "--max-skills", "0", "--max-chars", "0")
    try:
        answers = asyncio.run(_hostile_session(url))
    finally:
        process.terminate()
        process.wait(10)
    assert answers and all(SECRET not in answer and "root:" not in answer for answer in answers)
    assert len(answers[-1]) < 20_000 + 2_000  # bounded output, with its JSON around it
