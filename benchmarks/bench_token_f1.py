#!/usr/bin/env python
"""Token F1 (SQuAD v1.1) speed, memory and agreement: metricore vs the official SQuAD loop.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_token_f1.py [--n 100000] [--json out.json]

``run(n)`` returns rows ``{metric, impl, items, seconds, items_per_s, ratio_vs_reference,
peak_mib, max_abs_diff, notes}`` (``benchmarks/run.py`` calls it). One process, one case after
another, single-threaded.

Corpora (``n`` questions each, deterministic, built from ``benchmarks/corpus.py`` text):

* ``squad_like``: SQuAD-dev-shaped questions: a 1-8 word span of an English sentence (some
  tokens carrying punctuation, possessives, quotes), **three** annotator answers per question
  as in the SQuAD dev set (often identical, otherwise a word more or less), and a model answer
  that is exact, re-cased or punctuated, shifted, too long, a different span, or empty.
* ``qa_pairs``: the shared DocVQA-style corpus (``benchmarks/corpus.py``), 1-3 golds, numbers,
  dates, Cyrillic and CJK answers.

Cases per corpus:

* ``official loop`` (the reference): the SQuAD v1.1 ``evaluate`` logic as the official script
  and Hugging Face's ``squad`` metric run it (``tests/oracles/squad_ref.py``: per question and
  gold, ``normalize_answer`` four times, two ``Counter`` objects and their intersection).
* ``metricore core``: ``compute_token_f1(predictions, references)``.
* ``evaluate`` (``squad_like`` only): ``evaluate.load("metrics/token_f1").compute`` with plain
  lists (loading excluded), and with Hugging Face's SQuAD dict format.

``seconds`` is the best CPU time (``process_time``) of several runs (the machine this was
written on is shared, and wall times there vary 2x from run to run); ``ratio_vs_reference`` is the
official loop's seconds over the case's (above 1: faster). ``peak_mib`` is the larger of the
``tracemalloc`` peak of a separate untimed run and the growth of the resident set during one
call (peak reset through ``/proc/self/clear_refs``; Arrow buffers only show up there).
``max_abs_diff`` is the largest per-question difference (EM and F1, in [0, 1]) from the
official loop.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_rows import bench_row

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.corpus import DEFAULT_SEED, qa_pairs, source_text  # noqa: E402
from metricore import compute_token_f1  # noqa: E402
from tests.oracles import squad_ref  # noqa: E402

MiB = 2**20
_PUNCT_WRAP = (("", ","), ("", "."), ("(", ")"), ('"', '"'), ("", "'s"), ("", ";"), ("", ":"), ("", "!"))


def squad_like(n: int, seed: int = DEFAULT_SEED) -> tuple[list[str], list[list[str]]]:
    """``n`` SQuAD-dev-shaped questions: (predictions, three gold answers each)."""
    sentences = source_text().sentences
    rng = random.Random(seed)
    preds: list[str] = []
    refs: list[list[str]] = []
    for _ in range(n):
        sent = list(rng.choice(sentences))
        for k in range(len(sent)):
            if rng.random() < 0.12:
                left, right = rng.choice(_PUNCT_WRAP)
                sent[k] = left + sent[k] + right
        length = min(len(sent), rng.choices(range(1, 9), weights=(20, 22, 18, 13, 10, 7, 6, 4))[0])
        start = rng.randrange(len(sent) - length + 1)
        end = start + length

        def span(a: int, b: int, sent: list[str] = sent, start: int = start, end: int = end) -> str:
            a, b = max(0, a), min(len(sent), b)
            return " ".join(sent[a:b]) if b > a else " ".join(sent[start:end])

        golds = []
        for _ in range(3):
            r = rng.random()
            if r < 0.65:
                golds.append(span(start, end))
            elif r < 0.85:
                golds.append(span(start - rng.randint(0, 2), end + rng.randint(0, 2)))
            else:
                golds.append(span(start + 1, end) if length > 1 else span(start, end + 1))
        r = rng.random()
        if r < 0.45:
            pred = rng.choice(golds)
        elif r < 0.55:
            pred = rng.choice(golds)
            pred = rng.choice((pred.upper(), pred.title(), "the " + pred, pred + ".", " " + pred + "  "))
        elif r < 0.72:
            shift = rng.choice((-2, -1, 1, 2))
            pred = span(start + shift, end + shift)
        elif r < 0.82:
            pred = span(start - rng.randint(1, 4), end + rng.randint(2, 6))
        elif r < 0.95:
            other = rng.randrange(len(sent))
            pred = span(other, other + rng.randint(1, 5))
        else:
            pred = ""
        preds.append(pred)
        refs.append(golds)
    return preds, refs


def _best(fn: Callable[[], Any], repeat: int) -> tuple[Any, float]:
    """Best CPU time of ``repeat`` runs (``process_time``: every case is single-threaded, so on
    an idle machine this is the wall time, and it does not count time spent waiting for a
    core on a busy one)."""
    best = float("inf")
    out = None
    for _ in range(repeat):
        gc.collect()
        t0 = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t0)
    return out, best


class _RSS:
    """Resident-set growth of one call (VmHWM after resetting the peak, minus VmRSS before)."""

    @staticmethod
    def _status(key: str) -> int:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
        raise OSError(key)

    @classmethod
    def growth(cls, fn: Callable[[], Any]) -> float | None:
        gc.collect()
        try:
            with open("/proc/self/clear_refs", "w") as fh:
                fh.write("5")
            before = cls._status("VmRSS")
        except OSError:
            fn()
            return None
        fn()
        return max(0, cls._status("VmHWM") - before) / MiB


def _peak_mib(fn: Callable[[], Any]) -> float:
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    rss = _RSS.growth(fn)
    return max(peak / MiB, rss or 0.0)


def _row(
    metric: str,
    impl: str,
    items: int,
    seconds: float,
    ref_seconds: float,
    peak: float | None,
    diff: float | None,
    notes: str,
) -> dict[str, Any]:
    return bench_row(metric, impl, items, seconds, ref_seconds, peak, diff, notes)


def _diff(official: list[tuple[float, float]], em: list[float], f1: list[float]) -> float:
    return max(max(abs(float(a) - b), abs(c - d)) for (a, c), b, d in zip(official, em, f1))


def _load_metric():
    """``evaluate.load("metrics/token_f1")`` offline, caches in a temporary directory."""
    cache = tempfile.mkdtemp(prefix="bench-token-f1-")
    for var in ("HF_EVALUATE_CACHE", "HF_METRICS_CACHE", "HF_MODULES_CACHE", "HF_DATASETS_CACHE"):
        os.environ.setdefault(var, os.path.join(cache, var.lower()))
    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "HF_EVALUATE_OFFLINE"):
        os.environ.setdefault(var, "1")
    import evaluate

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        return evaluate.load("metrics/token_f1")
    finally:
        os.chdir(cwd)


def _corpus_rows(
    name: str, preds: list[str], refs: list[list[str]], with_evaluate: bool
) -> list[dict[str, Any]]:
    n = len(preds)
    pairs = sum(map(len, refs))
    metric = f"token_f1 squad [{name}]"
    questions = [{"id": str(i), "answers": r} for i, r in enumerate(refs)]
    pred_dict = {str(i): p for i, p in enumerate(preds)}

    per_question: list[tuple[float, float]] = []

    def official_loop() -> dict[str, float]:
        per_question.clear()
        return squad_ref.evaluate_v1(questions, pred_dict, per_question)

    official, t_official = _best(official_loop, 2)
    rss_official = _RSS.growth(lambda: squad_ref.evaluate_v1(questions, pred_dict))
    rows = [
        _row(
            metric,
            "official SQuAD v1.1 loop (reference)",
            n,
            t_official,
            t_official,
            rss_official,
            0.0,
            f"{pairs} (prediction, gold) pairs; best of 2",
        )
    ]

    core, t_core = _best(lambda: compute_token_f1(preds, refs), 3)
    diff = _diff(per_question, core.exact_match_scores, core.f1_scores)
    corpus_diff = max(abs(core.f1 - official["f1"]), abs(core.exact_match - official["exact_match"]))
    rows.append(
        _row(
            metric,
            "metricore core compute_token_f1",
            n,
            t_core,
            t_official,
            _peak_mib(lambda: compute_token_f1(preds, refs)),
            diff,
            f"best of 3; corpus EM/F1 differ by {corpus_diff:.1e} (x100 scale)",
        )
    )
    if with_evaluate:
        module = _load_metric()
        got, t_eval = _best(lambda: module.compute(predictions=preds, references=refs), 2)
        diff = _diff(per_question, got["columns"]["exact_match"], got["columns"]["f1"])
        rows.append(
            _row(
                metric,
                "evaluate.load('metrics/token_f1').compute (plain lists)",
                n,
                t_eval,
                t_official,
                _peak_mib(lambda: module.compute(predictions=preds, references=refs)),
                diff,
                "best of 2; includes the Arrow cache write and read",
            )
        )
        hf_preds = [{"id": str(i), "prediction_text": p} for i, p in enumerate(preds)]
        hf_refs = [
            {"id": str(i), "answers": {"text": r, "answer_start": [0] * len(r)}} for i, r in enumerate(refs)
        ]
        got, t_dict = _best(lambda: module.compute(predictions=hf_preds, references=hf_refs), 1)
        diff = _diff(per_question, got["columns"]["exact_match"], got["columns"]["f1"])
        rows.append(
            _row(
                metric,
                "evaluate ... .compute (HF SQuAD dict format)",
                n,
                t_dict,
                t_official,
                _RSS.growth(lambda: module.compute(predictions=hf_preds, references=hf_refs)),
                diff,
                "one run; rows matched by id; peak = RSS growth",
            )
        )
    return rows


def run(n: int) -> list[dict[str, Any]]:
    """Benchmark rows for ``n`` questions on each corpus (see the module docstring)."""
    preds, refs = squad_like(n)
    rows = _corpus_rows("squad_like, 3 golds", preds, refs, with_evaluate=True)
    preds, refs, _ = qa_pairs(n)
    rows += _corpus_rows("qa_pairs, 1-3 golds", preds, refs, with_evaluate=False)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    rows = run(args.n)
    cols = (
        "metric",
        "impl",
        "items",
        "seconds",
        "items_per_s",
        "ratio_vs_reference",
        "peak_mib",
        "max_abs_diff",
    )
    print(" | ".join(cols))
    for row in rows:
        print(" | ".join(str(row[c]) for c in cols), "|", row["notes"])
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
