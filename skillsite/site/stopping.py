"""Stopping the site's side work when the build stops.

The site runs Pagefind and the discovery artifacts on side threads. When the build stops
(an error, SIGTERM or Ctrl-C), the exception reaches the main thread only, and the side
threads would run to their end before the build could unwind: Pagefind over every bundle
left, the artifacts of every skill left, 100 s at 10k skills. A :class:`Stop`, set by the
main thread, makes them give up at their next step and kills the Pagefind run in flight.
"""
from __future__ import annotations

import subprocess
import threading
from typing import Any


class Stopped(Exception):
    """The build is stopping: a side thread gave up."""


class Stop:
    """Set once by the thread that stops the build; read by the side threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._set = False
        self._running: subprocess.Popen[str] | None = None

    def set(self) -> None:
        """Stop: the side threads give up at their next :meth:`check`, and the child
        process that :meth:`run` is waiting for is killed."""
        with self._lock:
            self._set = True
            if self._running is not None:
                self._running.kill()

    def is_set(self) -> bool:
        return self._set

    def check(self) -> None:
        """Raise :class:`Stopped` once the build is stopping."""
        if self._set:
            raise Stopped

    def run(self, command: list[str], *, timeout: float,
            **options: Any) -> subprocess.CompletedProcess[str]:
        """``subprocess.run(command, capture_output=True, text=True, timeout=timeout,
        **options)``, except that :meth:`set` kills the process (and :class:`Stopped` is
        raised) instead of waiting for it."""
        with self._lock:
            self.check()
            process = subprocess.Popen(command, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True, **options)
            self._running = process
        try:
            out, err = process.communicate(timeout=timeout)
        except BaseException:
            process.kill()
            process.wait()
            raise
        finally:
            with self._lock:
                self._running = None
        self.check()
        return subprocess.CompletedProcess(command, process.returncode, out, err)
