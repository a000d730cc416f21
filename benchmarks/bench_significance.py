#!/usr/bin/env python
"""Bootstrap intervals and paired tests: vectorised resampling vs loops over resamples.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_significance.py [--n 100000] [--resamples 1000] [--json out.json]

``run(n)`` returns rows ``{metric, impl, items, seconds, items_per_s, ratio_vs_reference,
peak_mib, max_abs_diff, notes}`` (``benchmarks/run.py`` renders them). One process, one case
after another, single-threaded; ``seconds`` is the best wall time of ``repeat`` runs (2),
``peak_mib`` the ``tracemalloc`` peak of one untimed run (numpy allocations are traced).

Cases, ``n`` items and 1,000 resamples each (``items`` counts items, not resamples):

* mean statistic (per-item scores, e.g. ANLS): :func:`metricore.stats.significance.bootstrap_ci`,
  against the sacrebleu-style loop (one ``x[idx].mean()`` per resample, over the same index
  rows: ``max_abs_diff`` compares the resampled values) and against re-running the metric
  (``compute_anls`` on the resampled strings) per resample, timed on 3 resamples and
  extrapolated to 1,000 (marked in ``notes``);
* ratio of sums (CER): :class:`metricore.stats.significance.SumStatistic` over two columns;
* paired bootstrap and approximate randomization (1,000 trials) of two systems;
* CIDEr-D with document frequencies recomputed per resample
  (:mod:`metricore.metrics.cider_bootstrap`), on ``n // 20`` COCO-like images (5 references each),
  against re-running ``compute_cider`` (pre-tokenized) per resample, extrapolated likewise.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_rows import bench_row, markdown_table, peak_mib

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from benchmarks.corpus import qa_pairs  # noqa: E402
from metricore import compute_anls, compute_cider  # noqa: E402
from metricore.metrics.cider_bootstrap import cider_statistic  # noqa: E402
from metricore.stats.significance import (  # noqa: E402
    SumStatistic,
    bootstrap_ci,
    bootstrap_distribution,
    mean_statistic,
    paired_bootstrap,
    paired_randomization,
    resample_indices,
)


def _best(fn: Callable[[], Any], repeat: int = 2) -> tuple[Any, float]:
    best = float("inf")
    out = None
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return out, best


def _extrapolated(fn: Callable[[np.ndarray], Any], rows: np.ndarray, total: int) -> float:
    """Seconds for ``total`` resamples from timing ``len(rows)`` of them."""
    t0 = time.perf_counter()
    for row in rows:
        fn(row)
    return (time.perf_counter() - t0) / len(rows) * total


def run(n: int = 100_000, resamples: int = 1000) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    metric = f"significance [{resamples:,} resamples]"

    # ---- mean statistic: ANLS on QA pairs --------------------------------------------------
    preds, refs, _ = qa_pairs(n)
    anls = compute_anls(preds, refs)
    scores = np.asarray(anls.scores)
    stat = mean_statistic(scores)

    def loop_mean() -> np.ndarray:
        out = []
        for idx in resample_indices(n, resamples, seed=0):
            out.extend(scores[row].mean() for row in idx)
        return np.asarray(out)

    looped, t_loop = _best(loop_mean, 1)
    dist, t_vec_dist = _best(lambda: bootstrap_distribution([stat], n_resamples=resamples, seed=0)[0])
    ci, t_vec = _best(lambda: bootstrap_ci(stat, n_resamples=resamples, seed=0))
    diff = float(np.max(np.abs(dist - looped)))
    rows.append(
        bench_row(
            metric,
            "loop over resamples: x[idx].mean() each (sacrebleu style, reference)",
            n,
            t_loop,
            t_loop,
            None,
            0.0,
            "same index rows as the vectorised case; one run",
        )
    )
    rows.append(
        bench_row(
            metric,
            "bootstrap_ci(mean_statistic(anls scores)) [vectorised]",
            n,
            t_vec,
            t_loop,
            peak_mib(lambda: bootstrap_ci(stat, n_resamples=resamples, seed=0)),
            diff,
            f"ANLS {ci.score:.4f} [{ci.low:.4f}, {ci.high:.4f}]; best of 2",
        )
    )
    sample = next(resample_indices(n, 3, seed=0))
    t_rerun = _extrapolated(
        lambda r: compute_anls([preds[i] for i in r], [refs[i] for i in r]), sample, resamples
    )
    rows.append(
        bench_row(
            metric,
            "re-run compute_anls on each resample (extrapolated from 3)",
            n,
            t_rerun,
            t_loop,
            None,
            None,
            "what a bootstrap without per-item statistics costs",
        )
    )

    # ---- ratio of sums: CER ----------------------------------------------------------------
    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 30, n).astype(float)
    edits = np.minimum(rng.poisson(2.0, n), lengths)
    cer = SumStatistic((edits, lengths), lambda s, k: s[:, 0] / s[:, 1], "cer")
    ci, t_cer = _best(lambda: bootstrap_ci(cer, n_resamples=resamples, seed=0))
    rows.append(
        bench_row(
            metric,
            "bootstrap_ci(CER = sum edits / sum lengths) [vectorised]",
            n,
            t_cer,
            t_loop,
            peak_mib(lambda: bootstrap_ci(cer, n_resamples=resamples, seed=0)),
            None,
            f"two columns gathered per resample; CER {ci.score:.4f} [{ci.low:.4f}, {ci.high:.4f}]",
        )
    )

    # ---- paired tests --------------------------------------------------------------------
    other = np.clip(scores + rng.normal(0.0, 0.1, n) * (rng.random(n) < 0.2), 0.0, 1.0)
    other_stat = mean_statistic(other)
    pb, t_pb = _best(lambda: paired_bootstrap(stat, other_stat, n_resamples=resamples, seed=0))
    rows.append(
        bench_row(
            metric,
            "paired_bootstrap (two systems, same resamples) [vectorised]",
            n,
            t_pb,
            2 * t_loop,
            peak_mib(lambda: paired_bootstrap(stat, other_stat, n_resamples=resamples, seed=0)),
            None,
            f"p={pb.p_value:.4f}, two-sided p={pb.p_value_two_sided:.4f}; reference = 2 loops",
        )
    )
    ar, t_ar = _best(lambda: paired_randomization(stat, other_stat, n_trials=resamples, seed=0))
    rows.append(
        bench_row(
            metric,
            f"paired_randomization ({resamples:,} trials) [vectorised]",
            n,
            t_ar,
            2 * t_loop,
            peak_mib(lambda: paired_randomization(stat, other_stat, n_trials=resamples, seed=0)),
            None,
            f"p={ar.p_value:.4f}; sacrebleu's default is 10,000 trials (x10 the time)",
        )
    )

    # ---- CIDEr-D, document frequencies recomputed ------------------------------------------
    from tests.gen_cider_captions import caption_corpus

    images = max(n // 20, 20)
    cands, crefs = caption_corpus(images)
    from metricore.text.ptb_tokenize import coco_tokenize

    tok_c = coco_tokenize(cands)
    flat = coco_tokenize([c for r in crefs for c in r])
    tok_r, pos = [], 0
    for r in crefs:
        tok_r.append(flat[pos : pos + len(r)])
        pos += len(r)
    result = compute_cider(tok_c, tok_r, tokenize=False)
    cmetric = f"cider_d significance [{resamples:,} resamples]"
    cstat, t_build = _best(lambda: cider_statistic(result), 1)
    dist_c, t_cider = _best(lambda: bootstrap_distribution([cstat], n_resamples=resamples, seed=0)[0])
    sample = next(resample_indices(images, 3, seed=0))
    naive = [
        compute_cider([tok_c[i] for i in r], [tok_r[i] for i in r], tokenize=False).cider for r in sample
    ]
    t_naive = _extrapolated(
        lambda r: compute_cider([tok_c[i] for i in r], [tok_r[i] for i in r], tokenize=False),
        sample,
        resamples,
    )
    rows.append(
        bench_row(
            cmetric,
            "re-run compute_cider on each resample (reference, extrapolated from 3)",
            images,
            t_naive,
            t_naive,
            None,
            0.0,
            "pre-tokenized captions, 5 references per image",
        )
    )
    rows.append(
        bench_row(
            cmetric,
            "CIDErCorpusStatistic: df recomputed per resample [vectorised]",
            images,
            t_cider + t_build,
            t_naive,
            peak_mib(lambda: bootstrap_distribution([cstat], n_resamples=resamples, seed=0)),
            float(np.max(np.abs(dist_c[: len(naive)] - np.asarray(naive)))),
            f"includes {t_build:.2f} s building the sparse matrices; max_abs_diff on the first 3 resamples",
        )
    )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    rows = run(args.n, args.resamples)
    print(markdown_table(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
