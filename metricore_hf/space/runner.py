"""Running one request's scoring: in a worker of its own, limited in time, with the
metric's warnings shown to that request only; and data a Space builds once, outside requests.

The scoring runs in a worker thread for at most :data:`~.limits.TIME_LIMIT` seconds of
wall-clock time (past it the request gets an error and the worker is interrupted at its next
Python instruction), so the server thread is never held. Any error becomes a ``gr.Error``
carrying its message (never a stack trace, never an empty error); the metric's
``UserWarning``s become ``gr.Warning`` toasts of the request that raised them.
"""

from __future__ import annotations

import contextvars
import ctypes
import functools
import html
import threading
import warnings
from collections.abc import Callable
from typing import Any

import gradio as gr

from metricore_hf.space.limits import TIME_LIMIT, fail

__all__ = ["Preparation", "guarded", "run_metric"]


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

    METEOR 1.5's paraphrase index takes about a minute of CPU (1.4 GB at its peak) the first
    time on a machine. Built inside a request, the request's time limit would interrupt it and
    every next request would start it again, so no request ever got METEOR. Here it is built
    once, outside any request (:meth:`start`, at start-up or on first need); requests ask
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
                f"{self.what} is being prepared (once per machine, about a minute); score again shortly"
            )


class _Interrupted(BaseException):
    """Raised inside a scoring thread that ran past :data:`TIME_LIMIT` (a ``BaseException``,
    so no ``except Exception`` of a metric swallows it)."""


#: the warnings list of the scoring running in this thread (None: not a scoring thread)
_CAPTURE = threading.local()
_HOOK_LOCK = threading.Lock()


def _install_warning_hook() -> None:
    """Route warnings raised in scoring threads to that request's list.

    ``warnings.catch_warnings`` swaps process-wide state, so two requests scored at once
    would see each other's warnings (or lose them); instead a ``showwarning`` hook appends
    to the list of the thread that raised the warning and leaves every other thread's
    warnings to the hook it replaced. ``UserWarning``s are shown every time (not once per
    location), so every request that triggers one gets its toast. Installed again whenever
    someone else's ``catch_warnings`` (a test runner's) restored the previous hook."""
    with _HOOK_LOCK:
        if getattr(warnings.showwarning, "metricore_capture", False):
            return
        previous = warnings.showwarning

        def showwarning(
            message: Any, category: Any, filename: Any, lineno: Any, *args: Any, **kw: Any
        ) -> None:
            caught = getattr(_CAPTURE, "caught", None)
            if caught is None:
                previous(message, category, filename, lineno, *args, **kw)
            else:
                caught.append(warnings.WarningMessage(message, category, filename, lineno))

        showwarning.metricore_capture = True  # type: ignore[attr-defined]
        warnings.showwarning = showwarning
        warnings.filterwarnings("always", category=UserWarning)


class _Scoring(threading.Thread):
    """One request's scoring, in a daemon thread of its own (see :func:`run_metric`)."""

    def __init__(self, fn: Callable[..., Any], args: Any, kwargs: Any) -> None:
        super().__init__(name="metricore-scoring", daemon=True)
        self.call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
        self.result: Any = None
        self.error: BaseException | None = None
        self.caught: list[warnings.WarningMessage] = []

    def run(self) -> None:
        _CAPTURE.caught = self.caught
        try:
            self.result = self.call()
        except BaseException as err:  # handed to the requesting thread
            self.error = err
        finally:
            _CAPTURE.caught = None

    def interrupt(self) -> None:
        """Raise :class:`_Interrupted` in the thread at its next Python instruction (a call
        into C, e.g. one LAPACK routine, finishes first; the budget keeps those short)."""
        if self.ident is not None and self.is_alive():
            ctypes.pythonapi.PyThreadState_SetAsyncExc(
                ctypes.c_ulong(self.ident), ctypes.py_object(_Interrupted)
            )


def run_metric(name: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` in a worker thread limited to :data:`TIME_LIMIT` seconds, with
    every error turned into a ``gr.Error`` carrying only its message, and the ``UserWarning``s
    it raises shown as ``gr.Warning`` toasts of this request."""
    _install_warning_hook()
    job = _Scoring(fn, args, kwargs)
    job.start()
    job.join(TIME_LIMIT)
    if job.is_alive():
        job.interrupt()
        raise fail(
            f"{name}: scoring took longer than the limit of {TIME_LIMIT:g} s (wall clock) and was "
            "stopped; score a smaller request, or run metricore locally."
        )
    err = job.error
    if err is not None:
        if isinstance(err, gr.Error):
            raise err
        if isinstance(err, (TypeError, ValueError, LookupError, ImportError)):
            raise fail(str(err)) from None
        if isinstance(err, RecursionError):
            raise fail(f"{name}: the input is nested too deeply to score") from None
        if isinstance(err, MemoryError):
            raise fail(f"{name}: the request needs more memory than this Space has") from None
        if isinstance(err, Exception):  # a bug must not show a stack trace (or an empty error)
            raise fail(f"{name}: unexpected {type(err).__name__}: {err}") from None
        raise err
    for w in job.caught:
        if issubclass(w.category, UserWarning):
            gr.Warning(html.escape(str(w.message), quote=False))
    return job.result
