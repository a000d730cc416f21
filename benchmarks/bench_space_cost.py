#!/usr/bin/env python
"""The Spaces' cost model against the work it estimates (issue 26).

Every point of ``space_cost_sweep.py`` is scored as its Space scores it: in a scoring worker
forked from a warm zygote (``metricore_hf.workers``), the whole job (scoring, headline,
per-sample table with its *why* texts, the interval when asked for). The measure is the
worker's CPU time, the least of up to three runs for a point under 2 s: the model is about
work, and CPU time moves far less with the machine's load than wall-clock time does.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_space_cost.py measure [--only TEXT]
    .venv/bin/python benchmarks/bench_space_cost.py fit [--write]  # prints (writes) COEFFICIENTS
    .venv/bin/python benchmarks/bench_space_cost.py table    # writes the calibration table

``measure`` writes ``benchmarks/out/space_cost_measured.json`` (merging with earlier runs;
``--only`` selects points whose id contains TEXT). ``fit`` finds the coefficients with the
smallest largest ratio estimate / CPU over all points (a linear program, bisected on the
ratio, then the least total |log ratio| within 5% of that ratio) and prints them (``--write``:
into ``metricore/specs/_cost.py``; run it twice, as a challenge's estimate takes its tasks'
estimates as a feature). ``table`` writes ``benchmarks/space_cost_calibration.md``: per
point, the estimate of the current model, the measured CPU seconds and their ratio, which
``tests/spaces/test_space_cost_model.py`` holds within [0.5, 2].
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(ROOT), str(HERE)]

from space_cost_sweep import Point, points  # noqa: E402

from metricore.registry import get  # noqa: E402
from metricore.specs import _cost  # noqa: E402

MEASURED = HERE / "out" / "space_cost_measured.json"
TABLE = HERE / "space_cost_calibration.md"
#: the ratio every point must keep
BOUND = 2.0
PURE_PYTHON = "METRICORE_METEOR15_PURE_PYTHON"


@contextmanager
def path_env(point: Point) -> Iterator[None]:
    """METEOR 1.5 on the point's path (the Python one when asked) while estimating."""
    old = os.environ.get(PURE_PYTHON)
    if point.path == "python":
        os.environ[PURE_PYTHON] = "1"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(PURE_PYTHON, None)
        else:
            os.environ[PURE_PYTHON] = old


def estimate(point: Point, built: tuple[Any, Any] | None = None) -> float:
    """The point's estimated work as its Space computes it (the budget check)."""
    data, refs = built if built is not None else point.build()
    with path_env(point):
        if point.metric == "challenge_score":
            from metricore.challenge.score import task_rows

            rows, task_refs = task_rows(data)
            return get("challenge_score").bind_options(point.config, point.options).cost(rows, task_refs)
        bound = get(point.metric).bind_options(point.config, point.options)
        work = bound.cost(data, refs)
        if point.confidence is not None:
            work += _cost.bootstrap_cost(point.metric, point.config, data, refs)
        return work


def terms(point: Point, built: tuple[Any, Any] | None = None) -> list[tuple[str, dict[str, float]]]:
    """The ``(key, features)`` terms of the point's estimate (the interval's among them)."""
    with _cost.recording() as calls:
        estimate(point, built)
    return calls


def job(point: Point, built: tuple[Any, Any]) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    """What the point's Space runs in its worker: ``(fn, args, kwargs)``."""
    data, refs = built
    if point.metric == "challenge_score":
        from metricore.challenge import score_challenge

        return score_challenge, (data, point.config), dict(point.options)
    from metricore_hf.workers import ScoreRequest, score_rows

    bound = get(point.metric).bind_options(point.config, point.options)
    request = ScoreRequest(point.metric, point.config, dict(bound.options), data, refs, point.confidence)
    return score_rows, (request,), {}


def load_measured() -> dict[str, dict[str, Any]]:
    if MEASURED.is_file():
        return json.loads(MEASURED.read_text(encoding="utf-8"))
    return {}


def machine() -> str:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    return (
        f"{platform.node()} ({os.cpu_count()} cores), Python {platform.python_version()}, "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )


def private_cache(folder: Path) -> None:
    """METEOR 1.5's paraphrase index in a cache of the benchmark's own (copied from the user's
    cache when it is there, else built once): an index another process rebuilds or removes
    meanwhile would make a worker build it inside a timed job."""
    import shutil

    from metricore.metrics.meteor15 import data_prepared, prepare_data
    from metricore.metrics.meteor15.data import cache_dir

    user = Path(cache_dir())
    os.environ["XDG_CACHE_HOME"] = str(folder)
    target = Path(cache_dir())
    if not data_prepared() and user.is_dir() and not target.exists():
        shutil.copytree(user, target, ignore=shutil.ignore_patterns(".*lock"))
    if not data_prepared():
        prepare_data()


def measure(selected: list[Point], repeat: int) -> None:
    from metricore.registry import names
    from metricore_hf.workers import Pool

    private_cache(HERE / "out" / "cache")

    pools: dict[str, Pool] = {}

    def pool_for(point: Point) -> Pool:
        key = point.path or "default"
        if key not in pools:
            env = {PURE_PYTHON: "1"} if point.path == "python" else {}
            pools[key] = Pool(list(names()), slots=2, large_slots=1, env=env)
            pools[key].start()
        return pools[key]

    results = load_measured()
    print(f"# {machine()}", flush=True)
    print("| point | estimate (s) | CPU (s) | ratio | memory (MB) |")
    print("|---|---:|---:|---:|---:|", flush=True)
    for point in selected:
        built = point.build()
        try:
            est = estimate(point, built) / 1e6
        except RuntimeError:  # not calibrated yet
            est = float("nan")
        fn, args, kwargs = job(point, built)
        cpus, growth = [], 0
        for _ in range(repeat):
            reply = pool_for(point).run(fn, args, kwargs, large=True, time_limit=600.0)
            if reply.kind != "ok":
                raise RuntimeError(f"{point.id}: {reply.kind}: {reply.message}")
            cpus.append(reply.cpu)
            growth = max(growth, reply.growth)
            if reply.cpu > 2.0:
                break
        cpu = min(cpus)
        results[point.id] = {
            "cpu": cpu,
            "runs": cpus,
            "growth_mb": growth / 2**20,
            "when": datetime.datetime.now().isoformat(timespec="seconds"),
            "machine": machine(),
        }
        MEASURED.parent.mkdir(parents=True, exist_ok=True)
        MEASURED.write_text(json.dumps(results, indent=1, sort_keys=True), encoding="utf-8")
        print(
            f"| {point.id} | {est:.3f} | {cpu:.3f} | {est / cpu if cpu else float('nan'):.2f} | {growth / 2**20:.0f} |",
            flush=True,
        )
    for pool in pools.values():
        pool.close()


def fit(selected: list[Point], target: float = 1.0) -> dict[str, dict[str, float]]:
    """The coefficients with the least total relative error whose ratios all stay within
    ``target`` (or within the smallest bound any coefficients reach, when that is larger)."""
    import numpy as np
    from scipy.optimize import linprog

    measured = load_measured()
    rows: list[dict[tuple[str, str], float]] = []
    actual: list[float] = []
    fixed: list[float] = []
    ids: list[str] = []
    for point in selected:
        if point.id not in measured:
            continue
        ids.append(point.id)
        built = point.build()
        calls = terms(point, built)
        row: dict[tuple[str, str], float] = {}
        for key, features in calls:
            for name, value in features.items():
                row[(key, name)] = row.get((key, name), 0.0) + value
        rows.append(row)
        actual.append(measured[point.id]["cpu"] * 1e6)
        fixed.append(0.0)
    columns = sorted({c for row in rows for c in row})
    a = np.array([[row.get(c, 0.0) for c in columns] for row in rows])
    scale = np.maximum(a.max(axis=0), 1e-12)
    a = a / scale
    y = np.array(actual)
    b = np.array(fixed)

    def feasible(r: float, objective: bool) -> Any:
        # a x + b <= r y  and  a x + b >= y / r, x >= 0
        a_ub = np.vstack([a / y[:, None], -a / y[:, None]])
        b_ub = np.concatenate([r - b / y, -1.0 / r + b / y])
        n = len(columns)
        if not objective:
            return linprog(np.zeros(n), A_ub=a_ub, b_ub=b_ub, bounds=[(0, None)] * n, method="highs")
        # least total |log ratio| within the ratio bound: d >= q - 1 above (log q <= q - 1),
        # and below the tangents of -log q at a few points (exact where they touch)
        m = len(y)
        rel = a / y[:, None]
        c = np.concatenate([np.zeros(n), np.ones(m)])
        blocks, rhs = [np.hstack([rel, -np.eye(m)])], [1.0 - b / y]
        for q0 in (1.0, 0.85, 0.7, 0.6, 0.5):
            # -log(q0) - (q - q0) / q0 <= d
            blocks.append(np.hstack([-rel / q0, -np.eye(m)]))
            rhs.append(np.full(m, np.log(q0) - 1.0) + b / y / q0)
        a2 = np.vstack(blocks)
        b2 = np.concatenate(rhs)
        a_all = np.vstack([np.hstack([a_ub, np.zeros((2 * m, m))]), a2])
        b_all = np.concatenate([b_ub, b2])
        return linprog(c, A_ub=a_all, b_ub=b_all, bounds=[(0, None)] * (n + m), method="highs")

    lo, hi = 1.0, 1000.0
    while hi / lo > 1.01:
        mid = (lo * hi) ** 0.5
        if feasible(mid, False).status == 0:
            hi = mid
        else:
            lo = mid
    result = feasible(max(target, hi * 1.05), True)
    if result.status != 0:
        raise RuntimeError(f"fit failed: {result.message}")
    x = result.x[: len(columns)] / scale
    out: dict[str, dict[str, float]] = {}
    for (key, name), value in zip(columns, x):
        out.setdefault(key, {})[name] = float(f"{value:.3g}")
    est = a @ result.x[: len(columns)] + b
    ratios = est / y
    print(
        f"# fitted on {len(y)} points: ratio within [{ratios.min():.3f}, {ratios.max():.3f}] (bound {hi:.3f})"
    )
    for i in np.argsort(np.abs(np.log(ratios)))[::-1][:25]:
        print(f"#   {ids[i]}: ratio {ratios[i]:.2f} (CPU {y[i] / 1e6:.4f} s)")
    return out


def literal(coefficients: dict[str, dict[str, float]]) -> str:
    """``COEFFICIENTS`` as the Python source of ``metricore/specs/_cost.py`` writes it."""
    lines = ["COEFFICIENTS: dict[str, dict[str, float]] = {"]
    for key in sorted(coefficients):
        values = [f'"{k}": {v!r}' for k, v in sorted(coefficients[key].items()) if v]
        lines.append(f'    "{key}": {{')
        lines += [f"        {v}," for v in values]
        lines.append("    },")
    return "\n".join(lines + ["}"])


def write_coefficients(block: str) -> None:
    """Replace the ``COEFFICIENTS`` literal of ``metricore/specs/_cost.py`` with ``block``."""
    path = ROOT / "metricore" / "specs" / "_cost.py"
    text = path.read_text(encoding="utf-8")
    start = text.index("COEFFICIENTS: dict[str, dict[str, float]] = {")
    end = text.index("\n}\n", start) + 2
    path.write_text(text[:start] + block + text[end:], encoding="utf-8")
    print(f"wrote {path}")


def table(selected: list[Point]) -> None:
    measured = load_measured()
    lines = [
        "# Cost model calibration of the Spaces",
        "",
        "Written by `benchmarks/bench_space_cost.py table` from the measurements of `measure` and the",
        "coefficients of `metricore/specs/_cost.py`. Each point is a request scored as its Space scores",
        "it, in a scoring worker (scoring, headline, per-sample table with its *why* texts, the interval",
        "when asked for); **CPU** is the worker's CPU time (the least of up to three runs for a point under",
        "2 s), **estimate** the spec's cost (`metricore.registry.get(name).cost`, plus the interval's),",
        f"both in seconds. The model must keep estimate / CPU within [{1 / BOUND}, {BOUND}] on every point",
        "(`tests/spaces/test_space_cost_model.py`). The Spaces refuse a request estimated over 8 s.",
        "",
    ]
    shown = [measured[p.id] for p in selected if p.id in measured]
    machines = sorted({m["machine"].split(", load average")[0] for m in shown})
    loads = [
        float(m["machine"].split("load average ")[1].split()[0])
        for m in shown
        if "load average" in m["machine"]
    ]
    when = sorted(m["when"] for m in shown)
    lines += [
        f"Measured on {', '.join(machines)}, {when[0]} to {when[-1]}, one-minute load average "
        f"{min(loads):.2f} to {max(loads):.2f} (the machine is shared with other work).",
        "",
    ]
    lines += [
        "| point | metric | config | request | estimate (s) | CPU (s) | ratio |",
        "|---|---|---|---|---:|---:|---:|",
    ]
    worst = 1.0
    for point in selected:
        if point.id not in measured:
            continue
        est = estimate(point) / 1e6
        cpu = measured[point.id]["cpu"]
        ratio = est / cpu
        worst = max(worst, ratio, 1 / ratio)
        config = point.config + "".join(f", {k}={v}" for k, v in point.options.items() if k != "missing")
        config += ", Python path" if point.path == "python" else ""
        config += ", 95% interval" if point.confidence else ""
        lines.append(
            f"| `{point.id}` | {point.metric} | {config} | {point.label} | {est:.4f} | {cpu:.4f} | {ratio:.2f} |"
        )
    lines += ["", f"Largest ratio either way: {worst:.2f}.", ""]
    TABLE.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {TABLE} ({len(selected)} points, worst ratio {worst:.2f})")


def read_table(path: Path = TABLE) -> dict[str, tuple[float, float]]:
    """``{point id: (estimate s, CPU s)}`` of the published table."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        match = re.match(r"\| `([^`]+)` \|.*\| ([0-9.]+) \| ([0-9.]+) \| [0-9.]+ \|$", line)
        if match:
            out[match.group(1)] = (float(match.group(2)), float(match.group(3)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("action", choices=("measure", "fit", "table"))
    parser.add_argument("--only", default="", help="points whose id contains this text")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--write", action="store_true", help="fit: write the coefficients into _cost.py")
    args = parser.parse_args()
    selected = [p for p in points() if args.only in p.id]
    t0 = time.perf_counter()
    if args.action == "measure":
        measure(selected, args.repeat)
    elif args.action == "fit":
        block = literal(fit(selected))
        print(block)
        if args.write:
            write_coefficients(block)
    else:
        table(selected)
    print(f"# {time.perf_counter() - t0:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
