"""The limits of a public Space (no request may pin it) and how a refusal is worded.

Before scoring, a request must have at most :data:`MAX_ROWS` rows and :data:`MAX_CHARS`
characters per string, and its estimated work (the spec's cost, units of a microsecond of CPU
in a worker, calibrated in ``benchmarks/space_cost_calibration.md``) must stay under
:data:`MAX_WORK`; a refusal names the limit and the measured size. Request bodies over
:data:`MAX_BODY_BYTES` are refused (HTTP 413) before they are read. A request is scored in a
worker process (:mod:`.runner`) killed after :data:`TIME_LIMIT` seconds and allowed
:data:`MEMORY_LIMIT_MB` of memory; :data:`WORKERS` requests are scored at once, of which one
fewer may be large (over :data:`SMALL_WORK`), and :data:`LARGE_WAITING` large ones may wait.
Every refusal is a ``gr.Error`` carrying the message only (:func:`fail`).

A deployment may change the numbers of the work it accepts through the environment:
``METRICORE_SPACE_TIME_LIMIT`` (seconds), ``METRICORE_SPACE_MAX_WORK`` (units),
``METRICORE_SPACE_MEMORY_MB``, ``METRICORE_SPACE_WORKERS`` (a machine with more cores).
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Sequence
from typing import Any

import gradio as gr

from metricore.core.structured import check_depth

__all__ = [
    "CLI_HINT",
    "MAX_ROWS",
    "MAX_CHARS",
    "MAX_UPLOAD_BYTES",
    "MAX_BODY_BYTES",
    "MAX_WORK",
    "TIME_LIMIT",
    "MEMORY_LIMIT_MB",
    "WORKERS",
    "SMALL_WORK",
    "LARGE_WAITING",
    "CONCURRENCY",
    "MAX_QUEUE",
    "STATE_SESSIONS",
    "BodyLimit",
    "check_limits",
    "check_strings_limit",
    "check_work",
    "fail",
]

MAX_ROWS = 5_000
MAX_CHARS = 2_000
MAX_UPLOAD_BYTES = 20 * 1024 * 1024
#: largest HTTP request body (an uploaded file plus the form around it)
MAX_BODY_BYTES = MAX_UPLOAD_BYTES + 4 * 1024 * 1024


def _env_number(name: str, default: float) -> float:
    value = os.environ.get(name, "")
    try:
        number = float(value) if value else default
    except ValueError:
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if not number > 0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    return number


#: what a refusal suggests for a request too large for a Space
CLI_HINT = "run it locally with the CLI (pip install metricore; metricore --help), which has no limits"
#: largest estimated work of one request (the spec's ``cost``, microseconds of CPU)
MAX_WORK = _env_number("METRICORE_SPACE_MAX_WORK", 8_000_000)
#: wall-clock seconds one scoring may take before its worker is killed
TIME_LIMIT = _env_number("METRICORE_SPACE_TIME_LIMIT", 30.0)
#: memory one scoring may add to its worker (MB)
MEMORY_LIMIT_MB = int(_env_number("METRICORE_SPACE_MEMORY_MB", 2048))
#: requests scored at once (worker processes), at least 2; one fewer may be large
WORKERS = max(2, int(_env_number("METRICORE_SPACE_WORKERS", 2)))
#: estimated work up to which a request is small: it never waits behind a large one
SMALL_WORK = 1_000_000
#: large requests that may wait for a worker (one more is refused as busy)
LARGE_WAITING = 1
#: requests of one event handled at once by Gradio (they wait for a worker), and how many may
#: wait in Gradio's queue
CONCURRENCY = 8
MAX_QUEUE = 64
#: sessions whose state Gradio keeps (each API call opens one; a Space keeps no state of its
#: own, so a small number bounds the memory: Gradio's default of 10,000 grew without end)
STATE_SESSIONS = 64


def fail(message: str) -> gr.Error:
    """A ``gr.Error`` showing ``message`` (HTML-escaped), without a stack trace in the log."""
    # gr.Error renders HTML; escape user text but keep quotes readable for API clients.
    return gr.Error(html.escape(message, quote=False), print_exception=False)


def check_strings_limit(value: Any, where: str) -> None:
    """``gr.Error`` naming the place and the limit when a string anywhere in ``value`` (lists,
    tuples, dicts and their keys) is longer than :data:`MAX_CHARS`. Iterative (any nesting
    depth), and numbers cost one type check each (FID features hold millions)."""
    containers = (list, tuple, dict)
    stack: list[tuple[Any, str]] = [(value, where)]
    while stack:
        v, at = stack.pop()
        if isinstance(v, str):
            if len(v) > MAX_CHARS:
                raise fail(
                    f"String too long at {at}: {len(v):,} characters "
                    f"(limit: {MAX_CHARS:,} characters per string)."
                )
        elif isinstance(v, (list, tuple)):
            stack.extend(
                (x, f"{at}[{i}]")
                for i, x in reversed(list(enumerate(v)))
                if isinstance(x, containers) or (isinstance(x, str) and len(x) > MAX_CHARS)
            )
        elif isinstance(v, dict):
            for k, x in reversed(list(v.items())):
                stack.append((x, f"{at}[{k!r:.30}]"))
                stack.append((k, f"{at} (key)"))


def check_limits(predictions: Sequence[Any], references: Sequence[Any]) -> None:
    """The row and string limits of a request, and the core's nesting limit (its message: the
    request travels to a worker pickled, and pickling a structure nested past the interpreter's
    recursion limit would fail without naming the item)."""
    n = max(len(predictions), len(references))
    if n > MAX_ROWS:
        raise fail(f"Too many rows: {n:,} (limit: {MAX_ROWS:,} rows per request).")
    for name, column in (("predictions", predictions), ("references", references)):
        for i, value in enumerate(column):
            check_strings_limit(value, f"{name}[{i}]")
            try:
                check_depth(value, f"{name}[{i}]")
            except ValueError as err:
                raise fail(str(err)) from None


def check_work(work: float, size: str) -> None:
    """``gr.Error`` naming the limit and the request's size when ``work`` (an estimate in
    units of about a microsecond, see :data:`MAX_WORK`) is over the budget."""
    if work > MAX_WORK:
        raise fail(
            f"Request too large to score here: {size}, an estimated {work / 1e6:,.1f} s of work "
            f"(limit: {MAX_WORK / 1e6:,.0f} s of estimated work per request). Score it in parts, "
            f"or {CLI_HINT}."
        )


class BodyLimit:
    """ASGI middleware: HTTP 413 for a request whose body is over ``max_bytes``, from its
    ``Content-Length`` before anything is read, or while a body without one streams in."""

    def __init__(self, app: Any, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for key, value in scope.get("headers", ()):
            if key == b"content-length" and value.isdigit() and int(value) > self.max_bytes:
                await self._refuse(send, int(value))
                return
        seen, over, answered = 0, False, False

        async def limited() -> Any:
            nonlocal seen, over
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    over = True  # the app sees a client that went away, and stops reading
                    return {"type": "http.disconnect"}
            return message

        async def checked_send(message: Any) -> None:
            nonlocal answered
            if not over:
                await send(message)
            elif not answered:
                answered = True
                await self._refuse(send, seen)

        try:
            await self.app(scope, limited, checked_send)
        except Exception:
            if not over:
                raise
        if over and not answered:
            await self._refuse(send, seen)

    async def _refuse(self, send: Any, size: int) -> None:
        body = json.dumps(
            {
                "error": f"Request body too large: {size:,} bytes or more "
                f"(limit: {self.max_bytes:,} bytes = {self.max_bytes / 2**20:g} MB)."
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
