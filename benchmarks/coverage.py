"""Coverage of metricore's bootstrap intervals, measured by simulation.

For every metric's headline statistic a large synthetic **population** is scored once with
the core metric (per-item statistics from its spec, :func:`metricore.intervals.headline_statistics`);
its **population value** is the statistic over the whole population, computed exactly. Then,
for n = 30, 300, 3,000, many data sets of n items are drawn from the population (item indices
uniformly with replacement: i.i.d. draws from the population distribution), the interval is
computed on each data set with the shipped code (``bootstrap_distribution`` with
``n_resamples`` resamples, seeded per data set) and the share of intervals containing the
population value is reported, per interval method:

* ``percentile`` and ``bca`` (:func:`metricore.stats.significance.bca_interval`) for every
  statistic of :class:`~metricore.stats.significance.SumStatistic` type (means, ratios,
  micro-averages) and for CIDEr-D;
* corpus BLEU-4 and ROUGE-L of the COCO caption table (``bleu`` group);
* CIDEr-D also with ``fixed df`` (the data set's document frequencies held fixed: the
  percentile interval of the mean per-image score) and ``distinct df`` (per-resample
  document frequencies over the resample's distinct images);
* the challenge's weighted sum: the stratified percentile interval of
  :func:`metricore.challenge.intervals.challenge_intervals` over four task populations.

A data set's statistic is what the metric reports on it: per-item statistics are the
population's (index samples, nothing re-scored), and a CIDEr-D data set is scored by
:func:`metricore.compute_cider` on its own captions, so its document frequencies are those of
the drawn images. Populations are built from ``benchmarks/corpus.py`` (QA and OCR pairs) and
a caption generator below (scenes of Zipf-distributed words, five paraphrased references,
a candidate with per-slot errors).

Run: ``.venv/bin/python benchmarks/coverage.py`` (writes ``benchmarks/coverage.md``);
``--quick`` for a smoke run (fewer data sets and resamples, n = 30 and 300, no file written
unless ``--out`` is given).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from metricore.core.files import write_atomic  # noqa: E402
from metricore.metrics.cider_bootstrap import (  # noqa: E402
    DEFAULT_RESAMPLE_DF,
    RESAMPLE_DF,
    CIDErCorpusStatistic,
    cider_statistic,
)
from metricore.stats.significance import (  # noqa: E402
    SumStatistic,
    bca_interval,
    bootstrap_distribution,
    percentile_interval,
)

NOMINAL = 0.95
#: CIDEr-D's BCa needs n leave-one-out corpora per data set: measured up to this n
BCA_CIDER_MAX = 300
#: above this n, the costly CIDEr-D variants (distinct df, BCa with recomputed df) run on the
#: first CIDER_EXTRAS_SETS data sets only
CIDER_EXTRAS_MAX = 30
CIDER_EXTRAS_SETS = 100
HERE = Path(__file__).resolve().parent

#: an interval method: (data set's statistic, its resampled values) -> (low, high)
Method = Callable[[Any, np.ndarray], tuple[float, float]]


def _percentile(stat: Any, values: np.ndarray) -> tuple[float, float]:
    return percentile_interval(values, NOMINAL)


def _bca(stat: Any, values: np.ndarray) -> tuple[float, float]:
    return bca_interval(values, stat.value(), stat.jackknife(), NOMINAL)


# --------------------------------------------------------------------------------------------
# Populations
# --------------------------------------------------------------------------------------------

_OBJECTS = "dog cat man woman child bird horse car bus train boat plane bike truck cow sheep".split()
_OBJECTS += [f"thing{i}" for i in range(300)]  # a long tail: rare n-grams, as in real captions
_ATTRS = "small large brown black white red young old little big wet happy".split()
_VERBS = "sits stands runs walks rides lies jumps plays eats waits looks flies".split()
_PLACES = "street park beach field road table grass water snow room kitchen city".split()
_PLACES += [f"place{i}" for i in range(200)]
_PREPS = ["on", "in", "near", "by", "at", "across"]


def _zipf(rng: random.Random, words: list[str], s: float = 1.1) -> str:
    weights = [1.0 / (k + 1) ** s for k in range(len(words))]
    return rng.choices(words, weights)[0]


def _caption(rng: random.Random, attr: str, obj: str, verb: str, place: str) -> str:
    parts = ["a"]
    if rng.random() < 0.6:
        parts.append(attr)
    parts += [obj, verb if rng.random() < 0.8 else _zipf(rng, _VERBS)]
    parts += [rng.choice(_PREPS), rng.choice(["a", "the"]), place]
    if rng.random() < 0.3:
        parts += ["with", "a", _zipf(rng, _OBJECTS)]
    return " ".join(parts)


def caption_population(size: int, seed: int = 0) -> tuple[list[str], list[list[str]]]:
    """``size`` images: a candidate caption and five references each (space-tokenized)."""
    rng = random.Random(seed)
    preds, refs = [], []
    for _ in range(size):
        scene = [_zipf(rng, _ATTRS), _zipf(rng, _OBJECTS), _zipf(rng, _VERBS), _zipf(rng, _PLACES)]
        refs.append([_caption(rng, *scene) for _ in range(5)])
        quality = rng.random()  # per image: how often the candidate gets a slot wrong
        pools = (_ATTRS, _OBJECTS, _VERBS, _PLACES)
        guess = [w if rng.random() < quality else _zipf(rng, pool) for w, pool in zip(scene, pools)]
        preds.append(_caption(rng, *guess))
    return preds, refs


Draw = Callable[[np.ndarray, int, int], tuple[dict[str, tuple[float, float]], float]]


@dataclass
class Population:
    """A metric's population: ``draw(indices, seed, n_resamples)`` scores a data set
    (population item indices) and returns ``({method: (low, high)}, estimate)``; ``value`` is
    the population value. ``size_dependent``: the statistic's expectation moves with n (CIDEr's
    idf), so coverage of the mean estimate at each n is reported too."""

    metric: str
    statistic: str
    value: float
    size: int
    draw: Draw
    default: str
    note: str = ""
    size_dependent: bool = False


def _sum_population(metric: str, key: str, stat: SumStatistic, note: str = "") -> Population:
    methods: dict[str, Method] = {"percentile": _percentile, "bca": _bca}

    def draw(idx: np.ndarray, seed: int, n_resamples: int) -> tuple[dict[str, tuple[float, float]], float]:
        sample = SumStatistic(stat.columns[:, idx], stat.score, stat.name, stat.default_method)
        values = bootstrap_distribution([sample], n_resamples=n_resamples, seed=seed)[0]
        return {name: fn(sample, values) for name, fn in methods.items()}, sample.value()

    return Population(metric, key, stat.value(), stat.size, draw, stat.default_method, note)


def per_item_populations(size: int) -> list[Population]:
    from corpus import ocr_pairs, qa_pairs

    from metricore import compute_anls, compute_one_minus_ned, compute_token_f1
    from metricore.intervals import headline_statistics
    from metricore.registry import get

    out = []
    preds, golds, _ = qa_pairs(size, seed=1)
    anls = headline_statistics(compute_anls(preds, golds))["anls"]
    out.append(_sum_population("anls (docvqa)", "mean", anls, "QA pairs"))
    f1 = headline_statistics(compute_token_f1(preds, golds))["f1"]
    out.append(_sum_population("token_f1 (squad)", "mean F1", f1, "QA pairs"))
    ql = headline_statistics(get("token_f1").compute("question_level", preds, golds, {}))
    for key in ("micro_precision", "micro_recall", "micro_f1"):
        out.append(_sum_population("token_f1 (question_level)", key, ql[key], "QA pairs"))
    ocr_p, ocr_g, _ = ocr_pairs(size, seed=2)
    ned = headline_statistics(compute_one_minus_ned(ocr_p, ocr_g))
    out.append(_sum_population("one_minus_ned", "mean 1-NED", ned["one_minus_ned"], "OCR pairs"))
    out.append(_sum_population("one_minus_ned", "CER (ratio)", ned["cer"], "OCR pairs"))
    return out


def meteor_population(size: int) -> Population:
    from metricore import compute_meteor
    from metricore.intervals import headline_statistics

    preds, refs = caption_population(size, seed=3)
    stat = headline_statistics(compute_meteor(preds, refs))["meteor"]
    return _sum_population("meteor (nltk)", "mean", stat, "generated captions")


def bleu_populations(size: int) -> list[Population]:
    """Corpus BLEU-4 (a statistic of summed n-gram counts and lengths) and ROUGE-L (a mean) of
    the COCO caption table, on generated captions."""
    from metricore.intervals import headline_statistics
    from metricore.metrics.coco_caption import compute_coco_caption

    preds, refs = caption_population(size, seed=8)
    stats = headline_statistics(
        compute_coco_caption(preds, refs, scorers=["bleu", "rouge_l"], tokenize=False)
    )
    return [
        _sum_population("coco_caption", "Bleu_4 (corpus)", stats["Bleu_4"], "generated captions"),
        _sum_population("coco_caption", "ROUGE_L (mean)", stats["ROUGE_L"], "generated captions"),
    ]


def cider_population(size: int) -> Population:
    from metricore import compute_cider

    preds, refs = caption_population(size, seed=4)
    value = compute_cider(preds, refs, tokenize=False).cider

    def draw(idx: np.ndarray, seed: int, n_resamples: int) -> tuple[dict[str, tuple[float, float]], float]:
        result = compute_cider([preds[i] for i in idx], [refs[i] for i in idx], tokenize=False)
        out = {}
        extras = len(idx) <= CIDER_EXTRAS_MAX or seed < CIDER_EXTRAS_SETS
        for mode in RESAMPLE_DF:
            if mode == "distinct" and not extras:
                continue
            stat = cider_statistic(result, resample_df=mode)
            values = bootstrap_distribution([stat], n_resamples=n_resamples, seed=seed)[0]
            out[f"percentile, {mode} df"] = _percentile(stat, values)
            # BCa's jackknife re-scores n leave-one-out corpora under "multiset"
            if mode == "fixed" or (mode == "multiset" and extras and len(idx) <= BCA_CIDER_MAX):
                out[f"bca, {mode} df"] = _bca(stat, values)
        return out, result.cider

    default = f"{_cider_default()}, {DEFAULT_RESAMPLE_DF} df"
    return Population(
        "cider (cider_d)",
        "corpus CIDEr-D",
        value,
        size,
        draw,
        default,
        "generated captions",
        size_dependent=True,
    )


def _cider_default() -> str:
    return CIDErCorpusStatistic.default_method


def challenge_population(size: int) -> Population:
    """fbc2's open text tasks (TextQA, MathQA: token F1; VisualQA: METEOR; TRitW: 1-NED),
    weight 1/15 each, every task with its own population; a data set has n items per task."""
    from corpus import ocr_pairs, qa_pairs

    from metricore import compute_meteor, compute_one_minus_ned, compute_token_f1
    from metricore.challenge.intervals import challenge_intervals
    from metricore.challenge.score import ChallengeResult, TaskResult

    qa_p, qa_g, _ = qa_pairs(2 * size, seed=5)
    cap_p, cap_r = caption_population(size, seed=6)
    ocr_p, ocr_g, _ = ocr_pairs(size, seed=7)
    tasks = {
        "TextQA": ("token_f1", np.asarray(compute_token_f1(qa_p[:size], qa_g[:size]).f1_scores)),
        "MathQA": ("token_f1", np.asarray(compute_token_f1(qa_p[size:], qa_g[size:]).f1_scores)),
        "VisualQA": ("meteor", np.asarray(compute_meteor(cap_p, cap_r).scores)),
        "TRitW": ("one_minus_ned", np.asarray(compute_one_minus_ned(ocr_p, ocr_g).scores)),
    }
    weight = 1.0 / 15.0
    value = sum(weight * scores.mean() for _, scores in tasks.values())
    rng_offsets = {name: k for k, name in enumerate(tasks)}

    def draw(idx: np.ndarray, seed: int, n_resamples: int) -> tuple[dict[str, tuple[float, float]], float]:
        results = {}
        for name, (metric, scores) in tasks.items():
            # each task draws its own items: shift the shared indices by a task-specific offset
            items = scores[(idx + 7919 * rng_offsets[name]) % scores.size].tolist()
            score = float(np.mean(items))
            results[name] = TaskResult(
                name, "open", metric, None, score, weight, weight * score, None, None,
                "computed", {}, len(items), None, items, {},
            )  # fmt: skip
        integral = sum(t.contribution for t in results.values())
        challenge = ChallengeResult(
            "sim",
            integral,
            {k: t.score for k, t in results.items()},
            {"open": integral},
            {},
            True,
            results,
            "sim",
        )
        ci = challenge_intervals(challenge, n_resamples=n_resamples, seed=seed)["integral"]
        return {"percentile": (ci.low, ci.high)}, integral

    return Population(
        "challenge_score (fbc2 open text tasks)", "weighted sum", value, size, draw, "percentile"
    )


# --------------------------------------------------------------------------------------------
# Simulation
# --------------------------------------------------------------------------------------------


def coverage(pop: Population, n: int, n_sets: int, n_resamples: int) -> dict[str, dict[str, float]]:
    """Per method: share of ``n_sets`` data sets of ``n`` items whose interval holds the
    population value (and, for a size-dependent statistic, the mean estimate at this n),
    the shares missing it on each side, and the mean width."""
    rng = np.random.default_rng([n, pop.size, 2026])
    hits: dict[str, list[tuple[float, float]]] = {}
    estimates = []
    for d in range(n_sets):
        idx = rng.integers(0, pop.size, size=n)
        bounds_of, estimate = pop.draw(idx, d, n_resamples)
        estimates.append(estimate)
        for method, bounds in bounds_of.items():
            hits.setdefault(method, []).append(bounds)
    targets = {"": pop.value}
    if pop.size_dependent:
        targets[" vs E[n]"] = float(np.mean(estimates))
    out = {}
    for method, bounds in hits.items():
        arr = np.asarray(bounds, dtype=np.float64)
        low, high = arr[:, 0], arr[:, 1]
        sets = len(arr)
        for suffix, target in targets.items():
            out[method + suffix] = {
                "coverage": float(np.mean((low <= target) & (target <= high))),
                "below": float(np.mean(high < target)),  # the whole interval below the target
                "above": float(np.mean(low > target)),
                "width": float(np.nanmean(high - low)),
                "sets": sets,
                "resamples": n_resamples,
                "target": target,
            }
    return out


def markdown(rows: list[dict[str, Any]], command: str, minutes: float) -> str:
    ns = sorted({int(n) for row in rows for n in row["cells"]})
    sets = sorted({c["sets"] for row in rows for c in row["cells"].values()})
    lines = [
        f"Coverage of nominal {NOMINAL:.0%} bootstrap intervals: the share of simulated data sets whose "
        "interval contains the population value (standard error of a cell about "
        f"{math.sqrt(NOMINAL * (1 - NOMINAL) / max(sets)):.3f} at {max(sets):,} data sets). "
        "**Bold**: the shipped default method. In brackets: the share of intervals entirely below / above "
        "the target. A cell computed from fewer data sets or resamples than the table's standard says so "
        "(`sets x resamples`). CIDEr-D rows marked *vs E[n]* take as target the mean CIDEr-D of the simulated "
        "data sets of that size (corpus document frequencies make the expected score depend on n).",
        "",
        "| metric | statistic | method | " + " | ".join(f"n = {n:,}" for n in ns) + " |",
        "|---|---|---|" + "---|" * len(ns),
    ]
    standard = (max(sets), max(c["resamples"] for row in rows for c in row["cells"].values()))
    for row in rows:
        cells = []
        for n in ns:
            cell = row["cells"].get(str(n)) or row["cells"].get(n)
            if cell is None:
                cells.append("—")
                continue
            text = f"{cell['coverage']:.3f} ({cell['below']:.3f}/{cell['above']:.3f})"
            if (cell["sets"], cell["resamples"]) != standard:
                text += f" `{cell['sets']}x{cell['resamples']}`"
            cells.append(text)
        method = f"**{row['method']}**" if row["default"] else row["method"]
        lines.append(f"| {row['metric']} | {row['statistic']} | {method} | " + " | ".join(cells) + " |")
    pops = sorted({f"{r['metric']}: {r['size']:,} {r['note']}".strip() for r in rows})
    lines += [
        "",
        f"{standard[0]:,} data sets per cell, {standard[1]:,} bootstrap resamples per interval unless marked. "
        f"Regenerate: `{command}` (about {minutes:.0f} min of one core). Population sizes: "
        + "; ".join(pops)
        + ".",
    ]
    return "\n".join(lines) + "\n"


def plan(pop: Population, n: int, quick: bool) -> tuple[int, int]:
    """``(data sets, resamples)`` of a cell: 1,000 x 1,000; CIDEr-D, whose every resample
    re-weights the corpus, gets 200 resamples from n = 300 on, where a full cell would take
    hours (the table marks such cells)."""
    if quick:
        return 100, 200
    if pop.size_dependent and n >= 300:
        return 1000, 200
    return 1000, 1000


def run(
    only: str | None,
    quick: bool,
    pops: str | None = None,
    ns: list[int] | None = None,
    resamples_override: int | None = None,
    sets_override: int | None = None,
) -> list[dict[str, Any]]:
    ns = ns or ([30, 300] if quick else [30, 300, 3000])
    size = 5000 if quick else 20000
    start = time.time()
    builders: dict[str, Callable[[], list[Population]]] = {
        "per_item": lambda: per_item_populations(size),
        "meteor": lambda: [meteor_population(size)],
        "cider": lambda: [cider_population(size // 2)],
        "bleu": lambda: bleu_populations(size // 2),
        "challenge": lambda: [challenge_population(size)],
    }
    rows: list[dict[str, Any]] = []
    for name, build in builders.items():
        if only and name not in only.split(","):
            continue
        for pop in build():
            if pops and not any(pop.metric.startswith(p) for p in pops.split(",")):
                continue
            per_n = {}
            for n in ns:
                sets, resamples = plan(pop, n, quick)
                per_n[n] = coverage(pop, n, sets_override or sets, resamples_override or resamples)
                print(f"  {pop.metric} {pop.statistic} n={n}: {time.time() - start:.0f} s", flush=True)
            for method in dict.fromkeys(m for n in ns for m in per_n[n]):
                cells = {str(n): per_n[n][method] for n in ns if method in per_n[n]}
                rows.append(
                    {
                        "metric": pop.metric,
                        "statistic": pop.statistic,
                        "method": method,
                        "default": method == pop.default,
                        "cells": cells,
                        "size": pop.size,
                        "note": pop.note,
                        "value": pop.value,
                    }
                )
                shown = "  ".join(f"n={n}: {c['coverage']:.3f}" for n, c in cells.items())
                print(
                    f"{pop.metric:40s} {pop.statistic:16s} {method:20s} {shown}  ({time.time() - start:.0f} s)",
                    flush=True,
                )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="smoke run: 100 data sets x 200 resamples, n <= 300"
    )
    parser.add_argument(
        "--only", default=None, help="comma-separated groups: per_item, meteor, cider, bleu, challenge"
    )
    parser.add_argument("--ns", default=None, help="comma-separated data set sizes (default 30,300,3000)")
    parser.add_argument("--resamples", type=int, default=None, help="bootstrap resamples of every cell")
    parser.add_argument("--sets", type=int, default=None, help="data sets of every cell")
    parser.add_argument("--pops", default=None, help="comma-separated metric-name prefixes within the groups")
    parser.add_argument("--json", type=Path, default=None, help="also save the rows as JSON here")
    parser.add_argument(
        "--merge", type=Path, nargs="+", default=None, help="render saved JSON rows instead of running"
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="markdown output (default benchmarks/coverage.md)"
    )
    args = parser.parse_args(argv)
    start = time.time()
    if args.merge:
        rows, minutes = [], 0.0
        merged: dict[tuple[str, str, str], dict[str, Any]] = {}
        for path in args.merge:
            saved = json.loads(path.read_text(encoding="utf-8"))
            for row in saved["rows"]:  # a later file's cells of the same row win
                key = (row["metric"], row["statistic"], row["method"])
                if key in merged:
                    merged[key]["cells"].update(row["cells"])
                else:
                    merged[key] = row
            minutes += saved["minutes"]
        rows = list(merged.values())
    else:
        ns = [int(n) for n in args.ns.split(",")] if args.ns else None
        rows = run(args.only, args.quick, args.pops, ns, args.resamples, args.sets)
        minutes = (time.time() - start) / 60
    if args.json is not None:
        write_atomic(args.json, json.dumps({"rows": rows, "minutes": minutes}))
    command = ".venv/bin/python benchmarks/coverage.py" + (" --quick" if args.quick else "")
    text = markdown(rows, command, minutes)
    out = args.out if args.out is not None else (None if args.quick or args.only else HERE / "coverage.md")
    if out is not None:
        write_atomic(out, text)
        print(f"wrote {out}")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
