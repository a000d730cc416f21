#!/usr/bin/env python
"""A Space under the load that pinned it (issue 26), on 127.0.0.1: the figures behind
``tests/spaces/test_space_load.py``.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_space_load.py [--rounds 3] [--calls 2000] [--time-limit 30]

``pin``: the METEOR Space with the time limit given; four worst-case requests (the dearest
the work budget admits) at once, the Example sent a second later. Prints, per round, the
Example's latency, each worst case's outcome and latency, and the CPU the server and its
processes used over 1.5 s once all were answered. ``rss``: the index Space's resident memory
before and after ``--calls`` calls of new words through its REST API (a new session each).
The machine's load average is printed with each: run on a quiet and on a loaded machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from metricore.registry import get  # noqa: E402
from tests.spaces import load  # noqa: E402


def loadavg() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} cores)"


def pin(rounds: int, time_limit: float) -> None:
    load.LOAD_TIME_LIMIT = time_limit
    server = load.start("meteor", METRICORE_SPACE_TIME_LIMIT=str(time_limit))
    example = get("meteor").examples[0]
    ex = (list(example.predictions), list(example.references))
    try:
        warm = load.compute(server.port, *ex, "nltk")
        print(f"# pin: time limit {time_limit:g} s; Example alone: {warm.seconds:.2f} s; {loadavg()}")
        print("| round | Example (s) | worst cases: outcome (s) | CPU s in 1.5 s after |")
        print("|---:|---:|---|---:|")
        latencies = []
        for r in range(rounds):
            outcome = load.pin_attempt(server, ex, seed=r)
            latencies.append(outcome.example_seconds)
            worst = "; ".join(
                (
                    "scored"
                    if a.ok
                    else "stopped"
                    if "limit of" in str(a.value)
                    else "busy"
                    if "busy" in str(a.value)
                    else str(a.value)[:40]
                )
                + f" {a.seconds:.1f}"
                for a in outcome.worst
            )
            print(
                f"| {r} | {outcome.example_seconds:.2f} | {worst} ({outcome.worst_rows} rows) | "
                f"{outcome.busy_after_deadline_cpu:.2f} (most: {outcome.busiest}) |",
                flush=True,
            )
        print(
            f"# Example: median {statistics.median(latencies):.2f} s, max {max(latencies):.2f} s; {loadavg()}"
        )
    finally:
        server.stop()


def rss(calls: int) -> None:
    server = load.start("index")
    try:
        t0 = time.perf_counter()
        before, after, peak = load.rss_series(server, calls, api="meteor_compute")
        seconds = time.perf_counter() - t0
        print(
            f"# rss: index Space, {calls:,} calls of new words ({seconds:.0f} s): {before:.0f} -> {after:.0f} MB "
            f"(peak {peak:.0f} MB, growth {after - before:+.0f} MB); {loadavg()}"
        )
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", nargs="*", help="pin, rss (default: both)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--time-limit", type=float, default=30.0)
    args = parser.parse_args()
    what = args.what or ["pin", "rss"]
    if set(what) - {"pin", "rss"}:
        parser.error(f"unknown: {', '.join(sorted(set(what) - {'pin', 'rss'}))} (choose pin, rss)")
    if "pin" in what:
        pin(args.rounds, args.time_limit)
    if "rss" in what:
        rss(args.calls)


if __name__ == "__main__":
    main()
