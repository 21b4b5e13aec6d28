"""Child processes that never outlive the process that started them.

The worker processes of ``check`` and ``build`` and the build's stat-scan helpers are
forked. If their parent is killed (SIGKILL, or SIGTERM before it could stop them), they
must not live on: they would block forever writing results nobody reads, and hold
whatever the parent held. :func:`die_with_parent` is the first thing a child calls.
"""
from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable

_PR_SET_PDEATHSIG = 1
_WATCH_SECONDS = 0.5


def die_with_parent(parent: int) -> None:
    """End this process as soon as ``parent`` (the pid that forked it) ends.

    On Linux the kernel sends SIGKILL when the parent dies (``PR_SET_PDEATHSIG``); elsewhere
    a daemon thread watches for the parent to go. Ctrl-C (and a CI runner's cancellation)
    signals the whole process group, so SIGINT and SIGTERM are ignored here: the parent
    stops its children itself, between two results, so that none is cut in half.
    """
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)
    if not (sys.platform.startswith("linux") and _kill_me_with_parent()):
        threading.Thread(target=_watch, args=(parent,), name="skillsite-parent-watch",
                         daemon=True).start()
    if os.getppid() != parent:  # the parent died before we could ask
        os._exit(1)


def _kill_me_with_parent() -> bool:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def dies_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` for a program the build runs (Pagefind): on Linux the kernel kills
    it when the thread that started it ends, as when the build is killed. None elsewhere,
    where the program runs to its end (its time limit bounds it)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl  # loaded now: not in the child
    except (OSError, AttributeError):
        return None

    def ask() -> None:
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    return ask


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_WATCH_SECONDS)
    os._exit(1)
