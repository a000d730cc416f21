"""Running one request's scoring: in a worker of its own, limited in time, with the
metric's warnings shown to that request only; and data a Space builds once, outside requests.

The scoring runs in a worker thread for at most :data:`~.limits.TIME_LIMIT` seconds of
wall-clock time (past it the request gets an error and the worker is interrupted at its next
Python instruction), so the server thread is never held. Any error becomes a ``gr.Error``
carrying its message (never a stack trace, never an empty error); the metric's
``UserWarning``s become ``gr.Warning`` toasts of the request that raised them.
"""

from __future__ import annotations

import functools
import html
import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any

import gradio as gr

from metricore_hf.space.limits import (
    CLI_HINT,
    LARGE_WAITING,
    MEMORY_LIMIT_MB,
    SMALL_WORK,
    TIME_LIMIT,
    WORKERS,
    fail,
)
from metricore_hf.workers import (
    Busy,
    Pool,
    Reply,
    TimeLimitExceeded,
    WorkerDied,
    WorkersUnavailable,
    processes_available,
    run_job,
)
from metricore_hf.workers.zygote import Job

__all__ = [
    "Preparation",
    "compiled_paths_note",
    "guarded",
    "isolated",
    "run_metric",
    "start_workers",
    "workers",
]


def guarded(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate an event handler so that any error that is not already a ``gr.Error`` shows
    as one with its message (Gradio would show a bare "Error" and log a stack trace)."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except gr.Error:
                raise
            except Exception as err:
                raise fail(f"{name}: unexpected {type(err).__name__}: {err}") from None

        return wrapper

    return decorate


class Preparation:
    """One-time data a Space builds on a new machine, in a background thread of its own.

    METEOR 1.5's paraphrase index takes a few seconds of CPU the first time on a machine (3.4 s
    and 340 MB with the compiled parser, 20 s and 750 MB without a compiler). Built inside a
    request, it would add that time to the request, and where the request's time limit cut it
    every next request would start it again. Here it is built once, outside any request (:meth:`start`, at start-up or on first need); requests ask
    :meth:`ready` and, until then, score without it or say it is being prepared."""

    def __init__(self, what: str, build: Callable[[], Any], prepared: Callable[[], bool]) -> None:
        self.what = what
        self._build = build
        self._prepared = prepared
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def start(self) -> None:
        """Start the build unless the data is already there or a build runs (idempotent)."""
        with self._lock:
            if self._thread is None and not self._prepared():
                self._thread = threading.Thread(target=self._run, name=f"prepare: {self.what}", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        try:
            self._build()
        except Exception as err:  # reported to every request that needs the data
            self._error = err

    def ready(self) -> bool:
        """Whether the data can be used now; a failed build raises its error (clear text)."""
        if self._error is not None:
            raise ValueError(f"{self.what} could not be prepared: {self._error}")
        thread = self._thread
        if thread is None:
            return self._prepared()
        return not thread.is_alive()

    def require(self) -> None:
        """For a request that cannot do without the data: start the build if needed and, until
        it is done, refuse with a message saying so (instead of timing out)."""
        self.start()
        if not self.ready():
            raise ValueError(
                f"{self.what} is being prepared (a few seconds, once per machine); score again shortly"
            )


# ----------------------------------------------------------------------------- the workers

_POOL: Pool | None = None
_WARM: list[str] = []
_POOL_LOCK = threading.Lock()


def start_workers(names: Iterable[str] = (), *, now: bool = False) -> None:
    """Name metrics whose worked examples the workers' zygote runs before it forks (warm
    workers); ``now``: start the zygote in the background at once (a served Space), instead
    of on the first request."""
    with _POOL_LOCK:
        for name in names:
            if name not in _WARM:
                _WARM.append(name)
    if now and processes_available():
        workers().start()


def workers() -> Pool:
    """The process's pool of scoring workers (created on first use, with the metrics named to
    :func:`start_workers` so far)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            slots = max(2, WORKERS)
            _POOL = Pool(_WARM, slots=slots, large_slots=slots - 1, large_waiting=LARGE_WAITING)
        return _POOL


_INLINE_NOTED = threading.Event()


def _inline(job: Job) -> Reply:
    if not _INLINE_NOTED.is_set():
        _INLINE_NOTED.set()
        print(
            "metricore Space: worker processes are not available on this platform; scoring runs in "
            "the server, without the time and memory limits",
            file=sys.stderr,
            flush=True,
        )
    return run_job(Job(job.fn, job.args, job.kwargs, None))


def _stopped(name: str, what: str) -> gr.Error:
    return fail(f"{name}: {what}. Score fewer rows or shorter texts, or {CLI_HINT}.")


def _reply(name: str, fn: Callable[..., Any], args: tuple, kwargs: dict, work: float | None) -> Reply:
    if not processes_available():
        return _inline(Job(fn, args, kwargs))
    large = work is None or work > SMALL_WORK
    try:
        return workers().run(
            fn,
            args,
            kwargs,
            large=large,
            time_limit=TIME_LIMIT,
            memory=MEMORY_LIMIT_MB * 2**20,
            wait=2 * TIME_LIMIT + 60.0,
        )
    except TimeLimitExceeded:
        raise _stopped(
            name,
            f"scoring took longer than the limit of {TIME_LIMIT:g} s and was stopped (its process "
            "ended: nothing of it runs on)",
        ) from None
    except WorkerDied:
        raise _stopped(
            name,
            "the scoring process ended without a result (most likely it needed more than the "
            f"{MEMORY_LIMIT_MB:,} MB of memory a request may use)",
        ) from None
    except Busy as busy:
        raise fail(
            f"{name}: this Space is busy with other large requests ({busy.running} running, "
            f"{busy.waiting} waiting); try again in a minute, send a smaller request (one estimated "
            f"under {SMALL_WORK / 1e6:g} s of work is never held up by large ones), or {CLI_HINT}."
        ) from None
    except WorkersUnavailable as err:
        raise fail(f"{name}: the scoring workers could not start ({err}); try again shortly.") from None


def run_metric(
    name: str, fn: Callable[..., Any], *args: Any, work: float | None = None, **kwargs: Any
) -> Any:
    """``fn(*args, **kwargs)`` in a worker process (module docstring), admitted by its
    estimated ``work`` (the spec's cost units; ``None``: large). ``fn`` and its arguments are
    pickled (``fn`` by reference: a module-level function), and so is its return value: plain
    data, not a heavy result object. Every error becomes a ``gr.Error`` carrying only its
    message; the ``UserWarning``s it raised are shown as ``gr.Warning`` toasts of this
    request."""
    reply = _reply(name, fn, args, kwargs, work)
    if reply.kind == "input":
        raise fail(reply.message)
    if reply.kind == "recursion":
        raise fail(f"{name}: the input is nested too deeply to score")
    if reply.kind == "memory":
        raise _stopped(
            name,
            f"scoring needed more than the {MEMORY_LIMIT_MB:,} MB of memory a request may use and was stopped",
        )
    if reply.kind != "ok":  # a bug must not show a stack trace (or an empty error)
        raise fail(f"{name}: unexpected {reply.message}")
    for message in reply.warnings:
        gr.Warning(html.escape(message, quote=False))
    return reply.value


def isolated(fn: Callable[[], Any]) -> Callable[[], None]:
    """``fn`` as a build that runs in a worker process of its own, without limits (one-time
    data, e.g. METEOR 1.5's paraphrase index: its peak memory is given back when it ends); its
    error is raised here as a ``ValueError`` with its message. ``fn``: a module-level function."""

    def build() -> None:
        reply = workers().run_unadmitted(fn) if processes_available() else run_job(Job(fn))
        if reply.kind != "ok":
            raise ValueError(reply.message or reply.kind)

    return build


def compiled_paths_note() -> str:
    """Which METEOR 1.5 path this installation runs, and why, for the log at start-up: the
    compiled one when ``pip`` could build the C extension (a compiler was there), else the
    Python one (the same scores, slower; the cost model estimates each path)."""
    from metricore.specs._cost import meteor15_backend

    try:
        name, why = meteor15_backend()
    except Exception as err:  # METEOR 1.5 is optional; the note must not stop a Space
        return f"METEOR 1.5: unknown path ({type(err).__name__}: {err})"
    return f"METEOR 1.5 runs its {name} path ({why})"
