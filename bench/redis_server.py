"""A real ``redis-server`` for the tests and benchmarks of ``skillsite mcp --shared``: on
127.0.0.1 and a free port, in a temporary folder, with no persistence; stopped (and
startable again on the same port, to play an outage) by its owner.

    with RedisServer() as server:
        url = server.url        # redis://127.0.0.1:PORT/0
        server.stop(); server.start()
"""
from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

REDIS_SERVER = "/usr/bin/redis-server"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def redis_server_path() -> str | None:
    """The Debian ``redis-server`` (``.ci/run`` installs it), or one on the PATH."""
    return REDIS_SERVER if Path(REDIS_SERVER).exists() else shutil.which("redis-server")


class RedisServer:
    """One ``redis-server`` process that this object starts and stops."""

    def __init__(self) -> None:
        executable = redis_server_path()
        if executable is None:
            raise RuntimeError("redis-server is not installed: apt-get install redis-server")
        self.executable = executable
        self.port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="skillsite-redis-"))
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        self.process = subprocess.Popen(
            [self.executable, "--port", str(self.port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no", "--dir", str(self.folder),
             "--daemonize", "no", "--loglevel", "warning"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("redis-server exited: "
                                   + self.process.stderr.read().decode())  # type: ignore[union-attr]
            if self._answers():
                return self
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("redis-server did not answer within 20 s")

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as conn:
                conn.sendall(b"PING\r\n")
                return conn.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.process = None

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)
