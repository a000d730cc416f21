"""Vectorised resampling = the metric re-run on each resampled index set, for every metric.

For each metric (and the variants whose headline numbers differ in kind), the headline
statistics of a core result (:func:`metricore.intervals.headline_statistics`) are evaluated
on bootstrap resamples by :func:`metricore.stats.significance.bootstrap_distribution`; a plain loop
takes the same index rows (:func:`metricore.stats.significance.resample_indices`, same seed),
builds the resampled predictions and references, and calls the core ``compute_*`` function.
Every headline number must agree (NaN where the metric says NaN). The same is checked for the
approximate-randomization swap: the two pseudo-systems are re-scored from mixed predictions.
CIDEr is included with document frequencies recomputed per resample; the COCO caption
table (BLEU-1..4, METEOR 1.5, ROUGE-L, CIDEr-D) too.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from metricore import (
    compute_anls,
    compute_cider,
    compute_meteor,
    compute_one_minus_ned,
    compute_quac,
    compute_question_level,
    compute_token_f1,
)
from metricore.intervals import headline_statistics
from metricore.metrics.cider import DocumentFrequency
from metricore.metrics.cider_bootstrap import cider_statistic
from metricore.metrics.coco_caption import compute_coco_caption, meteor_1_5_available
from metricore.stats.significance import bootstrap_distribution, resample_indices, swap_masks

R = 12  # resamples per case
WORDS = "a the cat dog sits on mat runs in park red big small two three of man woman".split()


def _sentence(rng: random.Random, lo: int = 1, hi: int = 8) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))


def _noisy(rng: random.Random, text: str) -> str:
    r = rng.random()
    if r < 0.3:
        return text
    if r < 0.5:
        return text.upper()
    if r < 0.7 and text:
        i = rng.randrange(len(text))
        return text[:i] + text[i + 1 :]
    if r < 0.8:
        return ""
    return _sentence(rng, 1, 3)


@dataclass
class Case:
    """``score(preds, refs, extra)`` re-runs the metric; ``extra`` holds per-item side data
    (e.g. no-answer probabilities or dialog ids) resampled along with the items."""

    name: str
    preds: list[Any]
    refs: list[Any]
    score: Callable[[list[Any], list[Any], list[Any]], Any]
    extra: list[Any] | None = None
    other_preds: list[Any] | None = None  # a second system for the swap check
    other_extra: list[Any] | None = None


def _cases() -> list[Case]:
    rng = random.Random(1234)
    out: list[Case] = []

    def texts(n: int, lo: int = 1, hi: int = 4) -> tuple[list[str], list[list[str]]]:
        refs = [[_sentence(rng, lo, hi) for _ in range(rng.randint(1, 3))] for _ in range(n)]
        return [_noisy(rng, r[0]) for r in refs], refs

    p, r = texts(15)
    out.append(
        Case(
            "anls docvqa",
            p,
            r,
            lambda p, r, e: compute_anls(p, r),
            other_preds=[_noisy(rng, x[0]) for x in r],
        )
    )
    out.append(
        Case(
            "anls stvqa_paper tau=0.3",
            p,
            r,
            lambda p, r, e: compute_anls(p, r, variant="stvqa_paper", threshold=0.3),
        )
    )

    p, r = texts(15)
    r[3] = [""]
    r[7] = ["", "x"]
    out.append(
        Case(
            "one_minus_ned",
            p,
            r,
            lambda p, r, e: compute_one_minus_ned(p, r),
            other_preds=[_noisy(rng, x[0]) for x in r],
        )
    )
    # mostly empty golds: resamples where CER is 0 or infinite
    out.append(
        Case(
            "one_minus_ned cer edge",
            ["a", "", "", "b"],
            ["", "", "x", ""],
            lambda p, r, e: compute_one_minus_ned(p, r, empty_pair="one"),
        )
    )

    p, r = texts(12, 2, 8)
    out.append(
        Case(
            "meteor",
            p,
            r,
            lambda p, r, e: compute_meteor(p, r, synonyms="none"),
            other_preds=[_noisy(rng, x[-1]) for x in r],
        )
    )

    caps = [[_sentence(rng, 3, 9) for _ in range(rng.randint(1, 4))] for _ in range(14)]
    cands = [_noisy(rng, c[0]).lower() for c in caps]
    others = [_sentence(rng, 2, 8) if rng.random() < 0.5 else c[-1] for c in caps]
    for variant in ("cider_d", "cider"):
        out.append(
            Case(
                f"cider {variant}",
                cands,
                caps,
                lambda p, r, e, v=variant: compute_cider(p, r, variant=v, tokenize=False),
                other_preds=others,
            )
        )
    table = DocumentFrequency.from_references(caps[:8], tokenize=False)
    out.append(
        Case(
            "cider_d fixed df table",
            cands,
            caps,
            lambda p, r, e: compute_cider(p, r, tokenize=False, df=table),
            other_preds=others,
        )
    )
    out.append(
        Case(
            "cider_d PTB-tokenized",
            [c.capitalize() + "." for c in cands[:8]],
            caps[:8],
            lambda p, r, e: compute_cider(p, r),
        )
    )

    # the COCO table: BLEU-k and METEOR 1.5 are corpus scores of summed counts, ROUGE-L a mean
    scorers = (
        ["bleu", "meteor", "rouge_l", "cider"] if meteor_1_5_available() else ["bleu", "rouge_l", "cider"]
    )
    out.append(
        Case(
            "coco_caption",
            [c if rng.random() < 0.8 else c.upper() + " ." for c in cands],
            caps,
            lambda p, r, e: compute_coco_caption(p, r, scorers=scorers),
            other_preds=others,
        )
    )

    p, r = texts(16)
    out.append(
        Case(
            "token_f1 squad",
            p,
            r,
            lambda p, r, e: compute_token_f1(p, r),
            other_preds=[_noisy(rng, x[0]) for x in r],
        )
    )
    out.append(
        Case(
            "token_f1 mlqa en [0,1]",
            p,
            r,
            lambda p, r, e: compute_token_f1(p, r, variant="mlqa", language="en", percent=False),
        )
    )
    p2, r2 = texts(16)
    for i in (1, 4, 9, 10):
        r2[i] = []
    probs = [round(rng.random(), 2) for _ in p2]
    out.append(
        Case(
            "token_f1 squad_v2",
            p2,
            r2,
            lambda p, r, e: compute_token_f1(
                p, r, variant="squad_v2", no_answer_probabilities=e, no_answer_threshold=0.6
            ),
            extra=probs,
            other_preds=[_noisy(rng, x[0]) if x else "" for x in r2],
            other_extra=[round(rng.random(), 2) for _ in p2],
        )
    )

    # one unanswerable question out of 8: the NoAns numbers are NaN on the resamples that miss it
    p3, r3 = texts(8)
    r3[5] = []
    out.append(
        Case(
            "token_f1 squad_v2 one NoAns", p3, r3, lambda p, r, e: compute_token_f1(p, r, variant="squad_v2")
        )
    )

    ents = [[rng.choice(WORDS[2:]) for _ in range(rng.randint(0, 3))] for _ in range(14)]
    pred_ents = [
        [w for w in e if rng.random() < 0.7] + ([rng.choice(WORDS[2:])] if rng.random() < 0.4 else [])
        for e in ents
    ]
    out.append(
        Case(
            "token_f1 question_level",
            pred_ents,
            ents,
            lambda p, r, e: compute_question_level(p, r),
            other_preds=[list(e) for e in ents],
        )
    )

    quac_refs = [[_sentence(rng, 2, 5) for _ in range(rng.randint(1, 4))] for _ in range(18)]
    for i in (2, 11):
        quac_refs[i] = ["CANNOTANSWER", "CANNOTANSWER", "x y"]
    dialogs = [f"d{i // 3}" for i in range(18)]
    out.append(
        Case(
            "token_f1 quac",
            [_noisy(rng, x[0]) for x in quac_refs],
            quac_refs,
            lambda p, r, e: compute_quac(p, r, e, min_human_f1=0.3),
            extra=dialogs,
            other_preds=[_noisy(rng, x[-1]) for x in quac_refs],
            other_extra=dialogs,
        )
    )
    return out


CASES = _cases()


def _same(got: float, want: float) -> bool:
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    if math.isinf(want):
        return got == want
    return math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-9)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_bootstrap_equals_the_metric_rerun_on_each_resample(case: Case):
    result = case.score(case.preds, case.refs, case.extra or [])
    stats = headline_statistics(result)
    # the CIDEr default holds the corpus's document frequencies; this mode re-runs
    if "cider" in stats:
        stats["cider"] = cider_statistic(result, resample_df="multiset")
    if "CIDEr" in stats:
        stats["CIDEr"] = cider_statistic(result.parts["cider"], resample_df="multiset")
    head = result.as_dict()
    for key, stat in stats.items():
        assert _same(stat.value(), head[key]), (key, stat.value(), head[key])
    seed = 77
    dist = bootstrap_distribution(list(stats.values()), n_resamples=R, seed=seed)
    rows = np.concatenate(list(resample_indices(len(case.preds), R, seed)))
    for b, row in enumerate(rows.tolist()):
        extra = [case.extra[i] for i in row] if case.extra else []
        naive = case.score([case.preds[i] for i in row], [case.refs[i] for i in row], extra).as_dict()
        for j, key in enumerate(stats):
            assert _same(float(dist[j, b]), naive[key]), (case.name, key, b, dist[j, b], naive[key])


SWAP_CASES = [c for c in CASES if c.other_preds is not None]


@pytest.mark.parametrize("case", SWAP_CASES, ids=lambda c: c.name)
def test_randomization_swap_equals_the_metric_on_mixed_predictions(case: Case):
    a = case.score(case.preds, case.refs, case.extra or [])
    b_extra = case.other_extra if case.other_extra is not None else (case.extra or [])
    b = case.score(case.other_preds, case.refs, b_extra)
    stats_a, stats_b = headline_statistics(a), headline_statistics(b)
    n = len(case.preds)
    masks = np.concatenate(list(swap_masks(n, 6, seed=3)))
    for key in stats_a:
        got_a, got_b = stats_a[key].swapped(stats_b[key], masks)
        for t, row in enumerate(masks.tolist()):
            mix_a = [y if s else x for x, y, s in zip(case.preds, case.other_preds, row)]
            mix_b = [x if s else y for x, y, s in zip(case.preds, case.other_preds, row)]
            ex_a = ex_b = case.extra or []
            if case.extra and case.other_extra:
                ex_a = [y if s else x for x, y, s in zip(case.extra, case.other_extra, row)]
                ex_b = [x if s else y for x, y, s in zip(case.extra, case.other_extra, row)]
            want_a = case.score(mix_a, case.refs, ex_a).as_dict()[key]
            want_b = case.score(mix_b, case.refs, ex_b).as_dict()[key]
            assert _same(float(got_a[t]), want_a), (case.name, key, t, got_a[t], want_a)
            assert _same(float(got_b[t]), want_b), (case.name, key, t, got_b[t], want_b)


def test_cider_recomputed_df_differs_from_the_fixed_df_approximation():
    """``resample_df="multiset"`` is the metric re-run on the resample; the per-image scores of
    the full corpus, merely averaged over a resample (the default, ``"fixed"``), are not."""
    case = next(c for c in CASES if c.name == "cider cider_d")
    result = case.score(case.preds, case.refs, [])
    stat = cider_statistic(result, resample_df="multiset")
    assert headline_statistics(result)["cider"].resample_df == "fixed"  # the measured default
    rows = next(resample_indices(len(case.preds), 5, seed=1))
    fixed = np.asarray(result.scores)[rows].mean(axis=1)
    assert not np.allclose(stat.resampled(rows), fixed, rtol=1e-3)
