"""The processes' side of :mod:`metricore_hf.workers`: the zygote and the workers it forks.

The zygote is a fresh interpreter started by the server (``python -c`` of :data:`BOOT`),
so it holds no thread and no lock of the server's. It imports metricore, runs the worked
examples of the Space's metrics (:func:`.jobs.warm`) and freezes what it holds out of the
garbage collector's sight (so that the workers' collections do not copy its pages); then, on
each byte ``F`` from the server, it forks a worker and hands the server one end of a new
socket pair, with the worker's pid. A worker runs exactly one job and exits: every request
starts from the same warm state, and whatever it allocated is given back when it ends. The
server kills a worker that runs past its time limit; a worker limits its own address space
(``RLIMIT_AS``) to what it had plus the job's memory limit, so that a request that needs more
fails with a ``MemoryError`` inside the worker instead of taking the machine's memory.
"""

from __future__ import annotations

import gc
import os
import signal
import socket
import sys
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

__all__ = ["BOOT", "Job", "Reply", "main", "run_job"]

#: what the server runs as ``python -c`` (argv: the control socket's fd, the metrics to warm)
BOOT = "from metricore_hf.workers.zygote import main; main()"


@dataclass(frozen=True)
class Job:
    """``fn(*args, **kwargs)`` in a worker; ``memory``: bytes the job may add to the worker's
    address space (``None``: no limit)."""

    fn: Callable[..., Any]
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    memory: int | None = None


@dataclass(frozen=True)
class Reply:
    """What a worker sends back: ``kind`` is ``"ok"`` (``value`` holds the job's return value)
    or the kind of error (``"input"``: a TypeError, ValueError, LookupError or ImportError whose
    message is for the user; ``"recursion"``, ``"memory"``, ``"bug"``), ``message`` its text;
    ``warnings`` the ``UserWarning`` messages the job raised, in order; ``cpu`` the worker's
    CPU seconds for the job; ``growth`` how far its resident memory rose above what it had
    from the zygote, in bytes (its peak, Linux)."""

    kind: str
    value: Any = None
    message: str = ""
    warnings: tuple[str, ...] = ()
    cpu: float = 0.0
    growth: int = 0


def _vm_size() -> int | None:
    """This process's address-space size in bytes (Linux), or ``None``."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _limit_memory(extra: int | None) -> None:
    """Cap the address space at its current size plus ``extra`` bytes (a ``MemoryError``
    past it); nothing where the platform has no ``RLIMIT_AS``."""
    if extra is None:
        return
    try:
        import resource
    except ImportError:  # not POSIX
        return
    size = _vm_size()
    if size is not None and hasattr(resource, "RLIMIT_AS"):
        resource.setrlimit(resource.RLIMIT_AS, (size + extra, size + extra))


def _rss() -> int:
    """This process's resident memory in bytes (Linux; 0 elsewhere)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _peak_rss() -> int:
    try:
        import resource
    except ImportError:
        return 0
    scale = 1 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB on Linux
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * scale


def _error_reply(err: BaseException) -> tuple[str, str]:
    if isinstance(err, MemoryError):
        return "memory", str(err)
    if isinstance(err, RecursionError):
        return "recursion", str(err)
    if isinstance(err, (TypeError, ValueError, LookupError, ImportError)):
        return "input", str(err)
    return "bug", f"{type(err).__name__}: {err}"


def run_job(job: Job) -> Reply:
    """Run ``job`` here, its ``UserWarning``s recorded (other warnings are shown as usual)."""
    _limit_memory(job.memory)
    rss = _rss()
    start = time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        try:
            value: Any = job.fn(*job.args, **job.kwargs)
            kind, message = "ok", ""
        except Exception as err:
            value = None
            kind, message = _error_reply(err)
            if kind == "bug":
                traceback.print_exc(file=sys.stderr)
    cpu = time.process_time() - start
    shown = []
    for w in caught:
        if issubclass(w.category, UserWarning):
            shown.append(str(w.message))
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    return Reply(kind, value, message, tuple(shown), cpu, max(0, _peak_rss() - rss) if rss else 0)


def _worker(sock: socket.socket) -> None:
    """A forked worker: one job from the server, one reply, exit (never returns)."""
    code = 0
    try:
        _die_with_parent()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        conn = Connection(sock.detach())
        try:
            job = conn.recv()
        except EOFError:  # a spare the server no longer needs (or the server is gone)
            os._exit(0)
        reply = run_job(job)
        try:
            conn.send(reply)
        except Exception as err:  # the value could not be pickled (or memory ran out)
            kind = "memory" if isinstance(err, MemoryError) else "bug"
            conn.send(Reply(kind, message=f"the result could not be sent back: {type(err).__name__}: {err}"))
    except BaseException:
        traceback.print_exc(file=sys.stderr)
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _die_with_parent() -> None:
    """Be killed when the process that started this one ends (Linux ``PR_SET_PDEATHSIG``):
    a zygote whose server died, or a worker whose zygote did, must not run on unwatched."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    parent = os.getppid()
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent ended before the signal was asked for
        os._exit(1)


def _single_threaded() -> bool:
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return True


def main() -> None:
    """The zygote (module docstring): ``python -c BOOT <control fd> <metric,metric,...>``."""
    _die_with_parent()
    ctl = socket.socket(fileno=int(sys.argv[1]))
    names = [n for n in (sys.argv[2] if len(sys.argv) > 2 else "").split(",") if n]
    from metricore_hf.workers.jobs import warm

    warm(names)
    gc.collect()
    gc.freeze()  # the warm objects stay out of the workers' collections (and stay shared)
    if not _single_threaded():  # a fork would copy a lock another thread may hold
        print("metricore workers: the zygote runs threads; forking anyway", file=sys.stderr, flush=True)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # finished workers are reaped by the kernel
    ctl.sendall(b"R")
    while True:
        try:
            command = ctl.recv(1)
        except OSError:  # the server is gone
            return
        if command != b"F":  # b"": the server is gone
            return
        ours, theirs = socket.socketpair()
        pid = os.fork()
        if pid == 0:
            ctl.close()
            ours.close()
            _worker(theirs)
        theirs.close()
        socket.send_fds(ctl, [pid.to_bytes(8, "little")], [ours.fileno()])
        ours.close()
