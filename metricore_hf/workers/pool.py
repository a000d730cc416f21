"""The server's side of :mod:`metricore_hf.workers`: the zygote, spare workers, admission.

:class:`Pool` keeps a zygote (:mod:`.zygote`) and up to ``slots`` spare workers forked from it,
so that a request starts at once in a warm process. :meth:`Pool.run` admits a job (see
:class:`Admission`), hands it to a spare, waits at most its time limit and kills the worker
when the limit passes: the CPU and memory of a stopped request are freed at the deadline. A
replacement spare is forked in the background after every job. Killed, crashed and finished
workers never come back; a zygote that died is started again on the next need.
"""

from __future__ import annotations

import atexit
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from multiprocessing.connection import Connection
from typing import Any

from metricore_hf.workers.zygote import BOOT, Job, Reply

__all__ = [
    "Admission",
    "Busy",
    "Pool",
    "PoolError",
    "TimeLimitExceeded",
    "WorkerDied",
    "WorkersUnavailable",
    "processes_available",
]

#: seconds a zygote may take to import and warm up, and a fork to be answered
START_TIMEOUT = 300.0
FORK_TIMEOUT = 60.0


class PoolError(Exception):
    """A job that did not run to its end (the subclasses say why)."""


class Busy(PoolError):
    """Admission refused: enough large jobs run or wait already."""

    def __init__(self, running: int, waiting: int) -> None:
        super().__init__(f"{running} large job(s) running, {waiting} waiting")
        self.running, self.waiting = running, waiting


class TimeLimitExceeded(PoolError):
    """The job ran past its time limit; its worker was killed."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"stopped after {seconds:g} s")
        self.seconds = seconds


class WorkerDied(PoolError):
    """The worker ended without a reply (killed by the system, or a crash in C code)."""


class WorkersUnavailable(PoolError):
    """No worker could be started (the zygote failed; its message is in the server's log)."""


def processes_available() -> bool:
    """Whether jobs can run in forked workers here (POSIX with ``fork`` and fd passing)."""
    return hasattr(os, "fork") and hasattr(socket, "send_fds") and hasattr(socket, "AF_UNIX")


class Admission:
    """How many jobs run at once: at most ``slots``, of which at most ``large_slots`` large
    ones, and at most ``large_waiting`` large jobs wait for a slot (a further one is refused
    with :class:`Busy`). A small job may take any free slot, and at least one slot is never
    given to a large job, so a small job waits only behind small ones, and a large one behind
    at most ``large_waiting`` others besides those running."""

    def __init__(self, slots: int, large_slots: int, large_waiting: int) -> None:
        if not 1 <= large_slots < slots:
            raise ValueError(f"Admission: need 1 <= large_slots < slots, got {large_slots}, {slots}")
        self.slots, self.large_slots, self.large_waiting = slots, large_slots, large_waiting
        self._cond = threading.Condition()
        self.running = self.large_running = self.waiting_large = 0

    @contextmanager
    def slot(self, large: bool, timeout: float) -> Iterator[None]:
        """Hold a slot while the block runs (:class:`Busy` when refused or not free in time)."""
        with self._cond:
            if large:
                if self.waiting_large >= self.large_waiting and not self._free(True):
                    raise Busy(self.large_running, self.waiting_large)
                self.waiting_large += 1
                try:
                    if not self._cond.wait_for(lambda: self._free(True), timeout):
                        raise Busy(self.large_running, self.waiting_large - 1)
                finally:
                    self.waiting_large -= 1
                self.large_running += 1
            elif not self._cond.wait_for(lambda: self._free(False), timeout):
                raise Busy(self.large_running, self.waiting_large)
            self.running += 1
        try:
            yield
        finally:
            with self._cond:
                self.running -= 1
                self.large_running -= large
                self._cond.notify_all()

    def _free(self, large: bool) -> bool:
        if large:
            return self.running < self.slots and self.large_running < self.large_slots
        return self.running < self.slots


class _Worker:
    """A forked worker waiting for its job: its pid and its end of the socket pair."""

    def __init__(self, pid: int, conn: Connection) -> None:
        self.pid, self.conn = pid, conn
        self._pidfd: int | None = None
        try:  # a pidfd signals this process even after its pid was reused
            self._pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            pass

    def kill(self) -> None:
        try:
            if self._pidfd is not None:
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
            else:
                os.kill(self.pid, signal.SIGKILL)
        except (ProcessLookupError, OSError):
            pass  # it ended meanwhile

    def close(self) -> None:
        self.conn.close()
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None


class _Zygote:
    """The zygote process and the server's end of its control socket."""

    def __init__(self, warm: Sequence[str], env: dict[str, str]) -> None:
        ours, theirs = socket.socketpair()
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", BOOT, str(theirs.fileno()), ",".join(warm)],
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
                env=env,
            )
        finally:
            theirs.close()
        self.ctl = ours
        self.ctl.settimeout(START_TIMEOUT)
        try:
            ready = self.ctl.recv(1)
        except OSError as err:
            self.close()
            raise WorkersUnavailable(f"the worker zygote did not start: {err}") from None
        if ready != b"R":
            self.close()
            raise WorkersUnavailable(f"the worker zygote exited with {self.proc.wait()} (see the log)")

    def fork(self) -> _Worker:
        self.ctl.settimeout(FORK_TIMEOUT)
        self.ctl.sendall(b"F")
        message, fds, _, _ = socket.recv_fds(self.ctl, 8, 1)
        if len(message) != 8 or len(fds) != 1:
            for fd in fds:
                os.close(fd)
            raise OSError("the worker zygote ended")
        return _Worker(int.from_bytes(message, "little"), Connection(fds[0]))

    def close(self) -> None:
        self.ctl.close()  # the zygote reads end-of-file and exits
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _zygote_env(more: dict[str, str] | None = None) -> dict[str, str]:
    """The server's environment (with ``more``), its import path first (a checkout serves its
    own metricore), one BLAS/OpenMP thread per worker (the slots share the cores, and a zygote
    with threads could not fork safely)."""
    env = dict(os.environ, **(more or {}))
    paths = [p or os.getcwd() for p in sys.path]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(p for p in paths if os.path.isdir(p)))
    for key in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[key] = "1"
    return env


class Pool:
    """Warm single-use worker processes with admission and time limits (module docstring).

    ``warm``: metrics whose worked examples the zygote runs before forking; ``slots``,
    ``large_slots``, ``large_waiting``: :class:`Admission`; ``env``: variables the workers'
    environment adds to the server's.
    """

    def __init__(
        self,
        warm: Sequence[str] = (),
        *,
        slots: int = 2,
        large_slots: int = 1,
        large_waiting: int = 1,
        env: dict[str, str] | None = None,
    ):
        self.warm = tuple(warm)
        self.env = dict(env or {})
        self.admission = Admission(slots, large_slots, large_waiting)
        self.spares = slots
        self._spares: queue.Queue[_Worker] = queue.Queue()
        self._wanted = threading.Event()
        self._lock = threading.Lock()
        self._zygote: _Zygote | None = None
        self._error: str | None = None
        self._closed = False
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ the spares

    def start(self) -> None:
        """Start the zygote and the spares in the background (idempotent)."""
        with self._lock:
            if self._thread is None and not self._closed:
                self._thread = threading.Thread(
                    target=self._keep_spares, name="metricore-workers", daemon=True
                )
                self._thread.start()
                atexit.register(self.close)
        self._wanted.set()

    def _keep_spares(self) -> None:
        failures = 0
        while not self._closed:
            self._wanted.wait()
            self._wanted.clear()
            while not self._closed and self._spares.qsize() < self.spares:
                try:
                    if self._zygote is None:
                        self._zygote = _Zygote(self.warm, _zygote_env(self.env))
                    worker = self._zygote.fork()
                except (OSError, PoolError) as err:
                    if self._closed:
                        return
                    failures += 1
                    self._error = str(err)
                    if self._zygote is not None:
                        self._zygote.close()
                        self._zygote = None
                    print(f"metricore workers: {err}; starting again", file=sys.stderr, flush=True)
                    time.sleep(min(30.0, 0.5 * 2**failures))
                    continue
                failures, self._error = 0, None
                if self._closed:
                    worker.close()
                else:
                    self._spares.put(worker)

    def _take(self) -> _Worker:
        self.start()
        try:
            worker = self._spares.get_nowait()
        except queue.Empty:
            worker = None
        self._wanted.set()  # a replacement, forked while this job runs
        if worker is not None:
            return worker
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            try:
                return self._spares.get(timeout=1.0)
            except queue.Empty:
                if self._error is not None and self._zygote is None:
                    raise WorkersUnavailable(self._error) from None
                self._wanted.set()
        raise WorkersUnavailable("no worker started in time")

    # ------------------------------------------------------------------ jobs

    def run(
        self,
        fn: Callable[..., Any],
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
        *,
        large: bool = False,
        time_limit: float | None = None,
        memory: int | None = None,
        wait: float = START_TIMEOUT,
    ) -> Reply:
        """``fn(*args, **kwargs)`` in a worker: admitted as a ``large`` or small job (waiting at
        most ``wait`` seconds for a slot), limited to ``time_limit`` seconds once started and
        ``memory`` bytes of address space it may add. ``fn``, the arguments and the return
        value travel pickled (``fn`` by reference)."""
        job = Job(fn, tuple(args), dict(kwargs or {}), memory)
        with self.admission.slot(large, wait):
            return self._run(job, time_limit)

    def run_unadmitted(self, fn: Callable[..., Any], *args: Any) -> Reply:
        """``fn(*args)`` in a worker of its own, outside the slots and without limits (one-time
        data a Space builds in the background)."""
        return self._run(Job(fn, tuple(args)), None)

    def _run(self, job: Job, time_limit: float | None) -> Reply:
        for attempt in range(2):
            worker = self._take()
            try:
                try:
                    worker.conn.send(job)
                except (BrokenPipeError, ConnectionResetError):  # a spare that ended meanwhile
                    if attempt:
                        raise WorkerDied("the worker ended before its job started") from None
                    continue
                if not worker.conn.poll(time_limit):
                    worker.kill()
                    raise TimeLimitExceeded(time_limit or 0.0)
                try:
                    reply = worker.conn.recv()
                except (EOFError, OSError):
                    raise WorkerDied("the worker ended without a reply") from None
                if not isinstance(reply, Reply):
                    raise WorkerDied(f"the worker replied {type(reply).__name__}")
                return reply
            finally:
                worker.close()
        raise WorkerDied("no worker took the job")  # not reached

    def close(self) -> None:
        """Stop the zygote and the spares (each ends on end-of-file)."""
        self._closed = True
        self._wanted.set()
        while True:
            try:
                self._spares.get_nowait().close()
            except queue.Empty:
                break
        zygote, self._zygote = self._zygote, None
        if zygote is not None:
            zygote.close()
