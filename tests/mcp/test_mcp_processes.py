"""Real processes: one stdio session, streamable HTTP on loopback with its Host and Origin
checks, the refusal of a non-loopback address without an allow-list, and a damaged or
missing dist/ stopping the server at start with exit code 2."""
from __future__ import annotations

import http.client
import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_helpers import call, free_port, skills_list, skillsite_env, start_http

pytestmark = pytest.mark.anyio
INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "test", "version": "1"}}})


def skillsite(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "skillsite", *args], env=skillsite_env(),
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def post(port: int, body: str = INITIALIZE, **headers: str) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("POST", "/mcp", body=body, headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        **headers})
    status = connection.getresponse().status
    connection.close()
    return status


async def test_a_stdio_session(dist: Path) -> None:
    parameters = StdioServerParameters(command=sys.executable, env=skillsite_env(),
                                       args=["-m", "skillsite", "mcp", "--dist", str(dist)])
    async with Client(parameters) as client:
        found = await call(client, "search", query="flaky test")
        assert found["results"][0]["name"] == "flaky-test-hunter"
        assert (await skills_list(client))["skills"]
        read = await client.read_resource("skill://pdf-forms/SKILL.md")
        assert read.contents[0].text.startswith("---")  # type: ignore[union-attr]


def test_garbage_on_stdin_does_not_stop_the_server(dist: Path) -> None:
    process = subprocess.Popen([sys.executable, "-m", "skillsite", "mcp", "--dist", str(dist)],
                               env=skillsite_env(), stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b"not json at all\n" + b'{"jsonrpc": "2.0", "id": 7, "method": "nope"}\n'
                        + b'{"jsonrpc": "2.0", "id": 8, "method": "tools/list", "params": 3}\n'
                        + INITIALIZE.encode() + b"\n")
    process.stdin.flush()
    answers = {}
    while 1 not in answers:
        line = process.stdout.readline()
        assert line, "the server stopped"
        answer = json.loads(line)
        answers[answer.get("id")] = answer
    process.stdin.close()
    assert process.wait(30) == 0
    assert answers[7]["error"]["code"] == -32601
    assert "io.modelcontextprotocol/skills" in answers[1]["result"]["capabilities"]["experimental"]


async def test_streamable_http_on_loopback(dist: Path) -> None:
    process, port = start_http(dist)
    try:
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            found = await call(client, "search", query="terraform plan")
            assert found["results"][0]["name"] == "terraform-plan-review"
            assert (await skills_list(client))["skills"]
        assert post(port) == 200                                   # no Origin: served
        assert post(port, Origin=f"http://127.0.0.1:{port}") == 200
        assert post(port, Host=f"localhost:{port}") == 200
        assert post(port, Host="evil.example") == 421
        assert post(port, Host="localhost") == 421                 # no port
        assert post(port, Origin="http://evil.example") == 403
        assert post(port, body="{not json") == 400
        assert post(port) == 200
        assert process.poll() is None
    finally:
        process.terminate()
        process.wait(10)


def test_a_public_address_needs_an_allow_list(dist: Path) -> None:
    done = skillsite("mcp", "--dist", str(dist), "--http", f"0.0.0.0:{free_port()}")
    assert done.returncode == 2
    assert "refusing to serve on 0.0.0.0" in done.stderr and "--allow-host" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_allow_list_is_enforced_on_a_public_address(dist: Path) -> None:
    port = free_port()
    process, port = start_http(dist, "--allow-host", f"skills.example:{port}",
                               host="0.0.0.0", port=port)
    try:
        assert post(port, Host=f"skills.example:{port}") == 200
        assert post(port, Host=f"127.0.0.1:{port}") == 421          # only the allow-list
        assert post(port, Host="evil.example") == 421
        assert post(port, Host=f"skills.example:{port}", Origin="http://evil.example") == 403
    finally:
        process.terminate()
        process.wait(10)


@pytest.mark.parametrize("address", ["8000", "127.0.0.1:0", "127.0.0.1:99999", "host:"])
def test_a_bad_address_is_a_usage_error(dist: Path, address: str) -> None:
    done = skillsite("mcp", "--dist", str(dist), "--http", address)
    assert done.returncode == 2 and "HOST:PORT" in done.stderr


def test_a_port_in_use_is_a_usage_error(dist: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = skillsite("mcp", "--dist", str(dist), "--http", f"127.0.0.1:{port}")
    assert done.returncode == 2 and f"cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_missing_dist_stops_the_server_at_start(tmp_path: Path) -> None:
    done = skillsite("mcp", "--dist", str(tmp_path / "nowhere"))
    assert done.returncode == 2
    assert "nowhere" in done.stderr and "Traceback" not in done.stderr


def test_a_damaged_dist_stops_the_server_at_start(dist: Path, tmp_path: Path) -> None:
    damaged = tmp_path / "dist"
    shutil.copytree(dist, damaged)
    catalog = damaged / "catalog.json"
    catalog.write_bytes(catalog.read_bytes()[:-10] + b"0123456789")
    done = skillsite("mcp", "--dist", str(damaged))
    assert done.returncode == 2
    assert "catalog.json" in done.stderr and "rebuild" in done.stderr.lower()
    assert "Traceback" not in done.stderr


def test_the_sdk_is_imported_only_when_the_server_runs() -> None:
    script = ("import sys; from click.testing import CliRunner; from skillsite.cli import main; "
              "runner = CliRunner(); codes = [runner.invoke(main, args).exit_code for args in "
              "(['--help'], ['mcp', '--help'], ['search', 'pdf', '--dist', 'nowhere'])]; "
              "print(codes, sorted(m for m in sys.modules if m.split('.')[0] in "
              "('mcp', 'mcp_types', 'uvicorn', 'starlette')))")
    done = subprocess.run([sys.executable, "-c", script], env=skillsite_env(),
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[0, 0, 2] []", done.stdout + done.stderr
