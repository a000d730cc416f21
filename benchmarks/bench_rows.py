"""What the per-metric benchmark modules share: a memory probe and the row format that
``benchmarks/run.py`` renders."""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable
from typing import Any


def peak_mib(fn: Callable[[], Any]) -> float:
    """The ``tracemalloc`` peak (MiB) of one untimed call of ``fn``."""
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / 2**20


def bench_row(
    metric: str,
    impl: str,
    items: int,
    seconds: float,
    ref_seconds: float | None,
    peak: float | None,
    diff: float | None,
    notes: str,
) -> dict[str, Any]:
    """One result row; ``ratio_vs_reference`` is reference seconds / these seconds."""
    return {
        "metric": metric,
        "impl": impl,
        "items": items,
        "seconds": round(seconds, 4),
        "items_per_s": round(items / seconds, 1) if seconds > 0 else float("inf"),
        "ratio_vs_reference": round(ref_seconds / seconds, 2) if ref_seconds else 1.0,
        "peak_mib": None if peak is None else round(peak, 1),
        "max_abs_diff": diff,
        "notes": notes,
    }


COLUMNS = (
    "metric",
    "impl",
    "items",
    "seconds",
    "items_per_s",
    "ratio_vs_reference",
    "peak_mib",
    "max_abs_diff",
    "notes",
)


def markdown_table(rows: list[dict[str, Any]]) -> str:
    """The rows as a Markdown table (the modules' ``__main__`` output)."""
    out = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        out.append("| " + " | ".join("" if r.get(c) is None else str(r[c]) for c in COLUMNS) + " |")
    return "\n".join(out)


def command_line(run: Callable[[int], list[dict[str, Any]]], description: str, keys: tuple[str, ...]) -> None:
    """The ``main`` of a benchmark module: ``--n`` rows of ``run``, printed as ``keys``, and
    written to ``--json`` (atomically) when given."""
    import argparse
    import json
    import sys
    from pathlib import Path

    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--json")
    args = ap.parse_args()
    rows = run(args.n)
    for row in rows:
        print(" | ".join(f"{k}={v}" for k, v in row.items() if k in keys))
    if args.json:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from metricore.core.files import write_atomic

        write_atomic(args.json, json.dumps(rows, indent=1))
