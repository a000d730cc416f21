#!/usr/bin/env python
"""VQA accuracy and relaxed accuracy speed and agreement: metricore vs the official loops.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_vqa.py [--n 200000] [--json out.json]

``run(n)`` returns rows ``{metric, impl, items, seconds, items_per_s, ratio_vs_reference,
peak_mib, max_abs_diff, notes}`` (the format ``benchmarks/run.py`` renders). One process, one
case after another, single-threaded.

Corpora (``n`` questions each, deterministic):

* ``families``: ``tests/gen_vqa.py``'s questions: ten human answers drawn from families of
  spellings of one answer (case, punctuation, digits with commas and periods, number words,
  articles, contractions, whitespace), a quarter unanimous; few distinct strings (the caches'
  best case).
* ``open vocabulary``: answers of 1-3 words cut from the English text of
  ``benchmarks/corpus.py``, six to ten of a question's answers the same phrase and the rest
  re-spelled (``tests.gen_vqa.respell``) or another phrase; the prediction one of them,
  re-spelled, or another phrase. Most strings are distinct (the caches' worst case).
* ``chartqa-like`` (relaxed accuracy): ``tests.gen_vqa.chart_answers``: numbers in every
  spelling and words, 1-3 golds.

Cases:

* ``official loop`` (the reference): the VQA script's ``evaluate`` restated in
  ``tests/oracles/vqa_eval_ref.py`` (per answer: ``processPunctuation`` with its 21
  ``re.search`` calls, ``processDigitArticle``; per question the leave-one-out list scans over
  answer dicts), at master and at the v2.0 release; mmf's ``TextVQAAccuracyEvaluator``
  (``tests/oracles/mmf_textvqa_ref.py``); pix2struct's ``aggregate_metrics`` over
  ``relaxed_correctness`` (``tests/oracles/pix2struct_ref.py``).
* ``metricore core``: ``compute_vqa_accuracy`` / ``compute_relaxed_accuracy`` with the
  same inputs (answer and question types included for VQA).

``seconds`` is the best CPU time (``process_time``) of the runs given in ``notes``;
``ratio_vs_reference`` is the reference's seconds over the case's. ``peak_mib`` is the
``tracemalloc`` peak of a separate untimed run (cores only). ``max_abs_diff`` is the largest
per-question difference from the reference of the same rules.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_rows import bench_row, markdown_table, peak_mib

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.corpus import DEFAULT_SEED, source_text  # noqa: E402
from metricore.metrics.relaxed_accuracy import compute_relaxed_accuracy  # noqa: E402
from metricore.metrics.vqa_accuracy import compute_vqa_accuracy  # noqa: E402
from tests.gen_vqa import chart_answers, respell, vqa_questions  # noqa: E402
from tests.oracles import mmf_textvqa_ref, pix2struct_ref, vqa_eval_ref  # noqa: E402

_TYPES = ("yes/no", "number", "other")


def open_vocabulary(
    n: int, seed: int = DEFAULT_SEED
) -> tuple[list[str], list[list[str]], list[str], list[str]]:
    """``n`` questions whose answers are phrases of English text (most strings distinct)."""
    sentences = [s for s in source_text().sentences if len(s) >= 3]
    rng = random.Random(seed)

    def phrase() -> str:
        sent = rng.choice(sentences)
        k = rng.randint(1, 3)
        start = rng.randrange(len(sent) - k + 1)
        return " ".join(sent[start : start + k])

    preds, refs, a_types, q_types = [], [], [], []
    for _ in range(n):
        main, other = phrase(), phrase()
        k = rng.randint(6, 10)
        answers = [main] * k + [respell(main, rng) if rng.random() < 0.6 else other for _ in range(10 - k)]
        rng.shuffle(answers)
        r = rng.random()
        pred = rng.choice(answers) if r < 0.5 else respell(main, rng) if r < 0.8 else other
        preds.append(pred)
        refs.append(answers)
        a_types.append(rng.choice(_TYPES))
        q_types.append(f"what is the {rng.randrange(60)}")
    return preds, refs, a_types, q_types


def _best(fn: Callable[[], Any], repeat: int) -> tuple[Any, float]:
    best = float("inf")
    out = None
    for _ in range(repeat):
        gc.collect()
        t0 = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t0)
    return out, best


def _diff(a: list[float], b: list[float]) -> float:
    return max(abs(float(x) - float(y)) for x, y in zip(a, b))


def _vqa_rows(
    corpus: str, preds: list[str], refs: list[list[str]], a: list[str], q: list[str]
) -> list[dict[str, Any]]:
    n = len(preds)
    questions = vqa_eval_ref.questions_from_lists(refs, a, q)
    distinct = len(set(preds).union(*map(set, refs)))
    rows = []
    for variant, release in (("vqav2", "master"), ("vqav2_2017", "v2.0")):
        metric = f"vqa_accuracy {variant} [{corpus}]"
        official, t_ref = _best(
            lambda release=release: vqa_eval_ref.evaluate(questions, preds, release=release), 1
        )
        rows.append(
            bench_row(
                metric,
                f"official VQA loop ({release}, tests/oracles/vqa_eval_ref.py)",
                n,
                t_ref,
                t_ref,
                None,
                0.0,
                f"{n * 10:,} human answers, {distinct:,} distinct strings; one run",
            )
        )
        core, t_core = _best(
            lambda variant=variant: compute_vqa_accuracy(
                preds, refs, variant=variant, answer_types=a, question_types=q
            ),
            3,
        )
        same = core.official == official["accuracy"]
        rows.append(
            bench_row(
                metric,
                "metricore core compute_vqa_accuracy",
                n,
                t_core,
                t_ref,
                peak_mib(lambda variant=variant: compute_vqa_accuracy(preds, refs, variant=variant)),
                _diff(core.scores, official["per_question"]),
                f"best of 3; with answer and question types; printed figures {'equal' if same else 'DIFFER'}",
            )
        )
    metric = f"vqa_accuracy textvqa [{corpus}]"
    entries = [{"pred_answer": p, "gt_answers": r} for p, r in zip(preds, refs)]
    (mmf_scores, _), t_ref = _best(lambda: mmf_textvqa_ref.evaluate(entries), 1)
    rows.append(
        bench_row(metric, "mmf TextVQAAccuracyEvaluator (oracle)", n, t_ref, t_ref, None, 0.0, "one run")
    )
    core, t_core = _best(lambda: compute_vqa_accuracy(preds, refs, variant="textvqa"), 3)
    rows.append(
        bench_row(
            metric,
            "metricore core compute_vqa_accuracy",
            n,
            t_core,
            t_ref,
            peak_mib(lambda: compute_vqa_accuracy(preds, refs, variant="textvqa")),
            _diff(core.scores, mmf_scores),
            "best of 3",
        )
    )
    return rows


def _relaxed_rows(n: int) -> list[dict[str, Any]]:
    preds, refs = chart_answers(n, seed=DEFAULT_SEED)
    metric = "relaxed_accuracy pix2struct [chartqa-like, 1-3 golds]"
    per: list[bool] = []

    def official() -> float:
        per.clear()
        return pix2struct_ref.aggregate_metrics(
            refs, preds, pix2struct_ref.relaxed_correctness, per_question=per
        )

    _, t_ref = _best(official, 2)
    core, t_core = _best(lambda: compute_relaxed_accuracy(preds, refs), 3)
    return [
        bench_row(
            metric,
            "pix2struct aggregate_metrics(relaxed_correctness) (oracle)",
            n,
            t_ref,
            t_ref,
            None,
            0.0,
            f"{sum(map(len, refs)):,} (gold, prediction) pairs; best of 2",
        ),
        bench_row(
            metric,
            "metricore core compute_relaxed_accuracy",
            n,
            t_core,
            t_ref,
            peak_mib(lambda: compute_relaxed_accuracy(preds, refs)),
            _diff(core.scores, per),
            "best of 3",
        ),
    ]


def run(n: int) -> list[dict[str, Any]]:
    """Benchmark rows for ``n`` questions on each corpus (see the module docstring)."""
    rows = _vqa_rows("families, 10 answers", *vqa_questions(n, seed=DEFAULT_SEED))
    rows += _vqa_rows("open vocabulary, 10 answers", *open_vocabulary(n))
    rows += _relaxed_rows(n)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    rows = run(args.n)
    print(markdown_table(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
