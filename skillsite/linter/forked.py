"""Worker processes forked for a shared check, spoken to over two pipes each.

A shared check (``check_files(..., share=True)``: ``skillsite check``) runs a few files
per task in one or two forked workers while its own process checks files too. A
``ProcessPoolExecutor`` costs it some 10 ms before the fork (importing
``concurrent.futures`` and ``multiprocessing``) and two threads in this process, which
take the interpreter lock from the checking to hand tasks and results over. Here each
worker reads tasks from one pipe and writes results to another, as length-prefixed
pickles, and this process moves the bytes between two files it checks, without a thread:
both its pipe ends are non-blocking and it waits (``select``) only when it has nothing
else to do. A worker runs ``run(task)`` for each task, in order, and sends back its
value, or the exception it raised (raised again here).

Only where ``os.fork`` is (the caller falls back to the pool elsewhere). A worker ignores
SIGINT and SIGTERM and dies with this process (:func:`children.die_with_parent`); this
process stops its workers by closing their task pipes (:meth:`Workers.shutdown`) or, when
interrupted, by killing them (:meth:`Workers.stop`): nothing here can wait on a result
cut in half.
"""
from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
from collections import deque
from collections.abc import Callable
from typing import Any

#: Bytes of the length that comes before each pickle (8: no result is too long for it).
_HEAD = 8
#: Pipe capacity asked for (Linux): a worker's results for a few tasks fit in it, so it
#: seldom waits for this process to read them.
_PIPE_SIZE = 1 << 20
_F_SETPIPE_SZ = 1031
#: Bytes asked of a pipe per read: os.read allocates them first.
_READ = 1 << 16


class WorkerDied(RuntimeError):
    """A worker ended before sending back the results of all its tasks."""


class Task:
    """A task sent to a worker: :meth:`done` and :meth:`result` as a ``Future``'s."""

    __slots__ = ("_workers", "_worker", "_value", "_failed", "_done")

    def __init__(self, workers: Workers, worker: _Worker) -> None:
        self._workers, self._worker = workers, worker
        self._value: Any = None
        self._failed = False
        self._done = False

    def done(self) -> bool:
        # A worker's results come back in order: a task behind one not done is not done
        # either, and asking the pipes again would only cost a poll().
        if not self._done and self._worker.waiting[0] is self:
            self._workers.pump(wait=False)
        return self._done

    def result(self) -> Any:
        while not self._done:
            self._workers.pump(wait=True)
        if self._failed:
            raise self._value
        return self._value

    def _set(self, ok: bool, value: Any) -> None:
        self._value, self._failed, self._done = value, not ok, True


class _Worker:
    __slots__ = ("pid", "tasks", "results", "out", "into", "waiting")

    def __init__(self, pid: int, tasks: int, results: int) -> None:
        self.pid, self.tasks, self.results = pid, tasks, results
        self.out = bytearray()  # task bytes not written yet
        self.into = bytearray()  # result bytes read, not a whole message yet
        self.waiting: deque[Task] = deque()  # sent, in the order the results come back


class Workers:
    """``count`` workers forked now; each calls ``start()`` once, then ``run(task)`` for
    each task sent to it."""

    def __init__(self, count: int, start: Callable[[], None],
                 run: Callable[[Any], Any]) -> None:
        self._workers: list[_Worker] = []
        try:
            for _ in range(count):
                # A worker must not hold the pipes of those forked before it: they would
                # never see their task pipe close.
                inherited = [fd for w in self._workers for fd in (w.tasks, w.results)]
                self._workers.append(_fork(start, run, inherited))
        except BaseException:
            self.stop()
            raise

    def submit(self, task: Any) -> Task:
        """Send ``task`` to the worker with the fewest tasks in hand."""
        worker = min(self._workers, key=lambda w: len(w.waiting))
        data = pickle.dumps(task, protocol=pickle.HIGHEST_PROTOCOL)
        worker.out += len(data).to_bytes(_HEAD, "little") + data
        sent = Task(self, worker)
        worker.waiting.append(sent)
        self._write(worker)
        return sent

    def pump(self, wait: bool) -> None:
        """Write what the pipes take and read what the workers sent; with ``wait``, first
        wait until one of them can move. One ``poll`` says which pipes hold results: a
        read is tried only on those (each try costs a buffer and a system call)."""
        poll = select.poll()
        for worker in self._workers:
            if worker.out:
                self._write(worker)
            if worker.waiting:
                poll.register(worker.results, select.POLLIN)
            if worker.out and wait:
                poll.register(worker.tasks, select.POLLOUT)
        ready = {fd for fd, _ in poll.poll(None if wait else 0)}
        for worker in self._workers:
            if worker.out and worker.tasks in ready:
                self._write(worker)
            if worker.waiting and worker.results in ready:
                self._read(worker)

    def shutdown(self) -> None:
        """Let the workers end once they have sent every result (each sees its task pipe
        closed), and reap them."""
        for worker in self._workers:
            while worker.waiting or worker.out:
                self.pump(wait=True)
            os.close(worker.tasks)
            os.close(worker.results)
        for worker in self._workers:
            os.waitpid(worker.pid, 0)
        self._workers = []

    def stop(self) -> None:
        """End the workers now (an interrupted check) and reap them."""
        for worker in self._workers:
            with contextlib.suppress(OSError):
                os.kill(worker.pid, signal.SIGKILL)
            for fd in (worker.tasks, worker.results):
                with contextlib.suppress(OSError):
                    os.close(fd)
        for worker in self._workers:
            with contextlib.suppress(OSError):
                os.waitpid(worker.pid, 0)
        self._workers = []

    @staticmethod
    def _write(worker: _Worker) -> None:
        try:
            written = os.write(worker.tasks, worker.out)
        except BlockingIOError:
            return
        except BrokenPipeError:
            raise WorkerDied(f"check worker {worker.pid} ended unexpectedly") from None
        del worker.out[:written]

    @staticmethod
    def _read(worker: _Worker) -> None:
        while True:
            try:
                data = os.read(worker.results, _READ)
            except BlockingIOError:
                break
            if not data:
                raise WorkerDied(f"check worker {worker.pid} ended unexpectedly")
            worker.into += data
            if len(data) < _READ:
                break  # the pipe is empty for now
        into = worker.into
        while len(into) >= _HEAD:
            size = int.from_bytes(into[:_HEAD], "little")
            if len(into) < _HEAD + size:
                break
            ok, value = pickle.loads(into[_HEAD:_HEAD + size])
            del into[:_HEAD + size]
            worker.waiting.popleft()._set(ok, value)


def _fork(start: Callable[[], None], run: Callable[[Any], Any],
          inherited: list[int]) -> _Worker:
    tasks_read, tasks_write = os.pipe()
    results_read, results_write = os.pipe()
    for fd in (tasks_write, results_write):
        with contextlib.suppress(OSError, AttributeError):
            import fcntl

            fcntl.fcntl(fd, _F_SETPIPE_SZ, _PIPE_SIZE)
    pid = os.fork()
    if pid == 0:  # the worker: it never returns from here
        code = 1
        try:
            for fd in (tasks_write, results_read, *inherited):
                os.close(fd)
            start()
            _serve(tasks_read, results_write, run)
            code = 0
        finally:
            os._exit(code)
    os.close(tasks_read)
    os.close(results_write)
    os.set_blocking(tasks_write, False)
    os.set_blocking(results_read, False)
    return _Worker(pid, tasks_write, results_read)


def _serve(tasks: int, results: int, run: Callable[[Any], Any]) -> None:
    """Read tasks until the pipe closes; send back each one's value or exception."""
    with open(tasks, "rb") as reader:
        while len(head := reader.read(_HEAD)) == _HEAD:
            task = pickle.loads(reader.read(int.from_bytes(head, "little")))
            try:
                reply = pickle.dumps((True, run(task)), protocol=pickle.HIGHEST_PROTOCOL)
            except Exception as exc:  # sent back, to be raised by the caller
                reply = _failure(exc)
            view = memoryview(len(reply).to_bytes(_HEAD, "little") + reply)
            while view:
                view = view[os.write(results, view):]


def _failure(exc: Exception) -> bytes:
    try:
        return pickle.dumps((False, exc), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # an exception that does not pickle: its text
        return pickle.dumps((False, RuntimeError(f"{type(exc).__name__}: {exc}")))
