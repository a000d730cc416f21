#!/usr/bin/env python
"""FID: metricore's eigendecomposition / Gram routes against pytorch-fid's sqrtm formula.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_fid.py [--n 3000] [--d 2048] [--repeat 1] [--json out.json]

Cases, on random correlated features (two sides of ``n`` samples each, ``d`` dimensions):

* ``n`` samples at ``d`` dimensions (default 3,000 x 2,048, Inception's size: every real FID):
  :func:`metricore.vision.fid.fid_from_features` (covariances, then symmetric
  eigendecompositions) against pytorch-fid 0.3.0's formula (``np.cov`` then
  ``scipy.linalg.sqrtm`` of the product, transcribed as in ``tests/vision/test_fid.py``);
* 3 samples at ``d`` dimensions (the shape of the Space attack of issue 17, 3 x 4,096): the Gram form
  against the same formula.

``seconds`` is the best wall time of ``repeat`` runs; ``rel_diff`` the relative difference of
the two numbers. BLAS threads are whatever NumPy uses (both routes alike).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from metricore.vision.fid import fid_from_features  # noqa: E402
from tests.oracles.fid_ref import pytorch_fid_formula as pytorch_fid  # noqa: E402


def features(seed: int, n: int, d: int, scale: float = 1.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    mixing = rng.normal(size=(d, d)) / math.sqrt(d) if d <= 4096 else np.eye(d)
    return rng.normal(size=(n, d)) @ mixing * scale


def best_time(fn: Any, repeat: int) -> tuple[float, float]:
    best, value = math.inf, math.nan
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - t0)
    return best, value


def run(n: int, d: int, repeat: int) -> list[dict[str, Any]]:
    rows = []
    for label, (na, dims) in {"inception": (n, d), "few samples (Gram form)": (3, d)}.items():
        a, b = features(1, na, dims), features(2, na, dims, scale=1.1)
        t_core, v_core = best_time(lambda a=a, b=b: fid_from_features(a, b), repeat)
        t_ref, v_ref = best_time(lambda a=a, b=b: pytorch_fid(a, b), repeat)
        rows.append(
            {
                "case": f"{label}: {na} x {dims}",
                "metricore_s": round(t_core, 3),
                "pytorch_fid_sqrtm_s": round(t_ref, 3),
                "speed_up": round(t_ref / t_core, 1),
                "fid": v_core,
                "rel_diff": abs(v_core - v_ref) / abs(v_ref),
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--d", type=int, default=2048)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = run(args.n, args.d, args.repeat)
    print("| case | metricore s | pytorch-fid (sqrtm) s | speed-up | relative difference |")
    print("|---|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['case']} | {r['metricore_s']} | {r['pytorch_fid_sqrtm_s']} | {r['speed_up']}x | {r['rel_diff']:.1e} |"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
