"""Scoring in processes that can be stopped: a warm zygote forks one worker per job.

A Space must not let one visitor's request hold its CPU or memory past the request's limits.
A thread cannot be stopped (it is only asked to, and a call into C runs on), so each job
runs in a worker process of its own (:mod:`.zygote`), killed at its deadline, its address
space capped; :mod:`.pool` admits jobs so that a small one never waits behind a large one,
keeps spare workers forked ahead and starts a new zygote if one dies. :mod:`.jobs` is what a
Space's worker computes (plain data back, never the result object). Nothing here imports
``gradio``: a worker holds metricore and what its metrics loaded, nothing of the server.
"""

from metricore_hf.workers.jobs import Scored, ScoreRequest, display, score_rows, warm
from metricore_hf.workers.pool import (
    Admission,
    Busy,
    Pool,
    PoolError,
    TimeLimitExceeded,
    WorkerDied,
    WorkersUnavailable,
    processes_available,
)
from metricore_hf.workers.zygote import Job, Reply, run_job

__all__ = [
    "Admission",
    "Busy",
    "Job",
    "Pool",
    "PoolError",
    "Reply",
    "ScoreRequest",
    "Scored",
    "TimeLimitExceeded",
    "WorkerDied",
    "WorkersUnavailable",
    "display",
    "processes_available",
    "run_job",
    "score_rows",
    "warm",
]
