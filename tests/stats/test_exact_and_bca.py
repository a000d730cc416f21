"""Exact paired tests, valid Monte Carlo p-values, small-sample warnings, the BCa interval
(against a direct implementation and scipy), CIDEr-D intervals, and a coverage smoke run of
``benchmarks/coverage.py``."""

from __future__ import annotations

import itertools
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats

from metricore import compute_anls, compute_cider
from metricore.intervals import confidence_intervals, interval_fields
from metricore.metrics.cider_bootstrap import cider_statistic
from metricore.registry import get
from metricore.stats.significance import (
    bca_interval,
    bca_levels,
    bootstrap_ci,
    bootstrap_distribution,
    mean_statistic,
    paired_bootstrap,
    paired_randomization,
    percentile_interval,
    ratio_statistic,
    small_sample_warning,
)

ROOT = Path(__file__).resolve().parents[2]

# ---------------------------------------------------------------------------------------------
# Exact permutation test
# ---------------------------------------------------------------------------------------------


def test_issue_example_exact_p_is_a_quarter():
    """Per-item differences [+0.5, +0.3, +0.2, 0]: of the 8 sign patterns of the non-zero ones,
    (+,+,+) and (-,-,-) reach |sum| >= 1.0, so the two-sided exact p is 2/8."""
    base = [0.1, 0.2, 0.3, 0.4]
    system = [0.6, 0.5, 0.5, 0.4]
    r = paired_randomization(base, system)
    assert r.exact and r.n_nonzero == 3
    assert r.p_value == 0.25
    assert r.p_value_sacrebleu == pytest.approx(1 / 10_001)  # strict '>': nothing is larger
    assert r.warning is not None and "2/2^3 = 0.25" in r.warning
    assert r.as_dict()["test"] == "exact_permutation"


def _enumerated_p(base: np.ndarray, system: np.ndarray) -> float:
    """Every one of the 2^n swap assignments, pseudo-systems rebuilt item by item."""
    observed = abs(system.mean() - base.mean())
    hits = 0
    total = 0
    for pattern in itertools.product([False, True], repeat=len(base)):
        swap = np.array(pattern)
        a = np.where(swap, system, base)
        b = np.where(swap, base, system)
        hits += abs(b.mean() - a.mean()) >= observed - 1e-12
        total += 1
    return hits / total


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([0.0, 0.25, 0.5, 1.0]), st.sampled_from([0.0, 0.5, 1.0])),
        min_size=1,
        max_size=9,
    )
)
def test_exact_p_equals_full_enumeration(pairs):
    base, system = (np.array(c) for c in zip(*pairs))
    r = paired_randomization(base, system, n_trials=1024)
    assert r.exact and r.n_nonzero == int(np.sum(base != system))
    assert r.p_value == pytest.approx(_enumerated_p(base, system), abs=1e-12)


def test_exact_test_of_a_ratio_statistic_enumerates_the_differing_items():
    # CER-like: sum of edits / sum of lengths; item 2 is the same in both systems
    edits_a, edits_b, lengths = [2.0, 0.0, 1.0, 3.0], [0.0, 1.0, 1.0, 0.0], [4.0, 2.0, 5.0, 3.0]
    a, b = ratio_statistic(edits_a, lengths), ratio_statistic(edits_b, lengths)
    r = paired_randomization(a, b, n_trials=100)
    assert r.exact and r.n_nonzero == 3
    observed = abs(sum(edits_b) - sum(edits_a)) / sum(lengths)
    hits = 0
    for signs in itertools.product([0, 1], repeat=3):
        ea, eb = list(edits_a), list(edits_b)
        for bit, i in zip(signs, (0, 1, 3)):
            if bit:
                ea[i], eb[i] = eb[i], ea[i]
        hits += abs(sum(eb) - sum(ea)) / sum(lengths) >= observed - 1e-12
    assert r.p_value == hits / 8


def test_more_differing_items_than_trials_allow_is_monte_carlo():
    rng = np.random.default_rng(0)
    a, b = rng.random(20), rng.random(20)
    r = paired_randomization(a, b, n_trials=1000)  # 2^20 > 1000
    assert not r.exact and r.n_nonzero == 20 and r.as_dict()["test"] == "approximate_randomization"


# ---------------------------------------------------------------------------------------------
# Monte Carlo p-values: never below 1 / (m + 1), valid under the null
# ---------------------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.floats(0, 1, allow_nan=False), min_size=12, max_size=40),
    st.lists(st.floats(-0.5, 0.5, allow_nan=False), min_size=12, max_size=40),
    st.integers(1, 300),
    st.integers(0, 2**32),
)
def test_monte_carlo_p_is_never_below_one_over_m_plus_one(base, shift, trials, seed):
    n = min(len(base), len(shift))
    a = np.array(base[:n])
    b = a + np.array(shift[:n])
    ar = paired_randomization(a, b, n_trials=trials, seed=seed)
    bs = paired_bootstrap(a, b, n_resamples=trials, seed=seed)
    assert 0.0 < ar.p_value <= 1.0 and 0.0 < bs.p_value <= 1.0
    if ar.exact:
        assert ar.p_value >= 2.0 / 2**ar.n_nonzero - 1e-12 or ar.n_nonzero == 0
    else:
        assert ar.p_value >= 1.0 / (trials + 1)
        assert ar.p_value >= ar.p_value_sacrebleu  # '>=' counts at least what '>' counts
    assert bs.p_value >= 1.0 / (trials + 1)


def test_p_values_are_valid_under_the_null():
    """Exchangeable systems with ties (3-valued scores): P(p <= alpha) <= alpha (+ 3 SE)."""
    rng = np.random.default_rng(12)
    rejections = {"exact": 0, "mc": 0}
    trials = 300
    for t in range(trials):
        a = rng.choice([0.0, 0.5, 1.0], size=30)
        b = rng.choice([0.0, 0.5, 1.0], size=30)
        few = b.copy()
        few[6:] = a[6:]  # only 6 items may differ: enumerated (2^6 <= 199)
        rejections["exact"] += paired_randomization(a, few, n_trials=199, seed=t).p_value <= 0.1
        rejections["mc"] += paired_randomization(a, b, n_trials=199, seed=t).p_value <= 0.1
    bound = 0.1 + 3 * math.sqrt(0.1 * 0.9 / trials)
    assert rejections["exact"] / trials <= bound
    assert rejections["mc"] / trials <= bound


def test_small_sample_warning():
    assert small_sample_warning(5, 0.95) is not None  # 2/32 = 0.0625 > 0.05
    assert small_sample_warning(6, 0.95) is None  # 2/64 = 0.031
    assert small_sample_warning(6, 0.99) is not None
    assert "random draws" in (small_sample_warning(50, 0.99, n_draws=50) or "")
    assert small_sample_warning(2000, 0.95) is None


def test_the_bootstrap_warning_does_not_contradict_its_own_p_value():
    """On 3 differing items the bootstrap can report a small p-value; its warning says the
    value is not to be trusted, not that no p-value can fall below the randomization floor."""
    baseline, system = [0.0, 0.0, 0.0, 0.5], [1.0, 1.0, 1.0, 0.5]
    boot = paired_bootstrap(baseline, system, n_resamples=1000, seed=0)
    rand = paired_randomization(baseline, system, seed=0)
    assert boot.p_value < 0.25 == rand.p_value  # the bootstrap goes below the exact test's floor
    assert boot.warning is not None and "too few for the bootstrap's p-value to be trusted" in boot.warning
    assert "no p-value can fall below" not in boot.warning
    assert rand.warning is not None and "no p-value can fall below 2/2^3 = 0.25" in rand.warning
    r = paired_bootstrap([0.0] * 3, [1.0, 0.5, 0.0])
    assert r.warning is not None and r.n_nonzero == 2


# ---------------------------------------------------------------------------------------------
# BCa
# ---------------------------------------------------------------------------------------------


def _direct_bca(values: np.ndarray, data: np.ndarray, stat, confidence: float) -> tuple[float, float]:
    """Efron and Tibshirani (1993), eq. 14.10-14.15, written out with loops."""
    theta = stat(data)
    boot = np.sort(values)
    b = len(boot)
    z0 = scipy_stats.norm.ppf((np.sum(boot < theta) + 0.5 * np.sum(boot == theta)) / b)
    jack = np.array([stat(np.delete(data, i)) for i in range(len(data))])
    d = jack.mean() - jack
    a = np.sum(d**3) / (6 * np.sum(d**2) ** 1.5)
    out = []
    for tail in ((1 - confidence) / 2, (1 + confidence) / 2):
        z = scipy_stats.norm.ppf(tail)
        out.append(scipy_stats.norm.cdf(z0 + (z0 + z) / (1 - a * (z0 + z))))
    low = boot[int(math.floor(b * out[0] + 1e-9))]
    high = boot[b - 1 - int(math.floor(b * (1 - out[1]) + 1e-9))]
    return float(low), float(high)


@pytest.mark.parametrize(
    ("name", "draw"),
    [
        ("exponential", lambda rng: rng.exponential(size=60)),
        ("lognormal", lambda rng: rng.lognormal(0, 1, size=40)),
        ("bernoulli", lambda rng: (rng.random(80) < 0.15).astype(float)),
    ],
)
def test_bca_equals_a_direct_implementation(name, draw):
    data = draw(np.random.default_rng(len(name)))
    ci = bootstrap_ci(data, n_resamples=2000, seed=3, method="bca", confidence=0.9)
    values = bootstrap_distribution([mean_statistic(data)], n_resamples=2000, seed=3)[0]
    assert (ci.low, ci.high) == pytest.approx(_direct_bca(values, data, np.mean, 0.9), abs=1e-12)
    assert ci.method == "bca"


def test_bca_agrees_with_scipy_on_a_skewed_distribution():
    data = np.random.default_rng(7).exponential(size=100)
    ours = bootstrap_ci(data, n_resamples=20_000, seed=1, method="bca")
    theirs = scipy_stats.bootstrap(
        (data,), np.mean, n_resamples=20_000, method="BCa", random_state=np.random.default_rng(2)
    ).confidence_interval
    width = theirs.high - theirs.low
    assert abs(ours.low - theirs.low) < 0.03 * width and abs(ours.high - theirs.high) < 0.03 * width
    pct = bootstrap_ci(data, n_resamples=20_000, seed=1)
    assert ours.low > pct.low and ours.high > pct.high  # right skew moves BCa up


def test_bca_without_bias_or_skew_is_the_percentile_interval():
    values = np.arange(1000.0)
    assert bca_interval(values, 499.5, np.ones(5), 0.95) == percentile_interval(values, 0.95)
    lo, hi, z0, a = bca_levels(values, 499.5, [1.0, 2.0, 3.0], 0.9)
    assert z0 == 0.0 and a == 0.0 and lo == pytest.approx(0.05) and hi == pytest.approx(0.95)


def test_jackknife_of_sum_statistics_is_leave_one_out():
    rng = np.random.default_rng(2)
    num, den = rng.integers(0, 5, 12).astype(float), rng.integers(1, 9, 12).astype(float)
    jack = ratio_statistic(num, den).jackknife()
    want = [(num.sum() - num[i]) / (den.sum() - den[i]) for i in range(12)]
    np.testing.assert_allclose(jack, want, rtol=1e-12)
    np.testing.assert_allclose(
        mean_statistic(num, scale=100).jackknife(), [100 * np.delete(num, i).mean() for i in range(12)]
    )


def test_interval_method_through_the_result_layer():
    r = compute_anls(["a", "b", "c", "dd", "e", "f"], ["a", "b", "c", "d", "x", "f"])
    bca = confidence_intervals(r, n_resamples=300, method="bca")["anls"]
    pct = confidence_intervals(r, n_resamples=300)["anls"]
    assert bca.method == "bca" and pct.method == "percentile"
    fields = interval_fields(r, n_resamples=300, method="bca")
    assert fields["interval_method"] == "bca" and fields["anls_ci_low"] == bca.low
    assert "interval_method" not in interval_fields(r, n_resamples=300)
    with pytest.raises(ValueError, match="`interval_method` must be one of"):
        confidence_intervals(r, method="studentized")


# ---------------------------------------------------------------------------------------------
# CIDEr-D
# ---------------------------------------------------------------------------------------------


def _caption_corpus(n: int, seed: int) -> tuple[list[str], list[list[str]]]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from coverage import caption_population

    return caption_population(n, seed)


def test_cider_jackknife_is_the_metric_rerun_without_each_image():
    preds, refs = _caption_corpus(12, 1)
    stat = cider_statistic(compute_cider(preds, refs, tokenize=False), resample_df="multiset")
    want = [
        compute_cider(preds[:i] + preds[i + 1 :], refs[:i] + refs[i + 1 :], tokenize=False).cider
        for i in range(12)
    ]
    np.testing.assert_allclose(stat.jackknife(), want, rtol=1e-9)


def test_cider_distinct_document_frequencies_are_the_distinct_images_rescored():
    preds, refs = _caption_corpus(6, 2)
    result = compute_cider(preds, refs, tokenize=False)
    idx = np.array([[0, 0, 2, 3, 3, 3]])
    got = cider_statistic(result, resample_df="distinct").resampled(idx)[0]
    sub = [0, 2, 3]
    scores = dict(
        zip(sub, compute_cider([preds[i] for i in sub], [refs[i] for i in sub], tokenize=False).scores)
    )
    assert got == pytest.approx(sum(scores[i] for i in idx[0]) / 6, rel=1e-9)


@pytest.mark.parametrize("source", ["card", "generated-30", "generated-300"])
def test_cider_interval_holds_the_point_estimate(source):
    if source == "card":
        spec = get("cider")
        cases = [
            (e.predictions, e.references, e.config or "cider_d")
            for e in spec.examples
            if len(e.predictions) > 1
        ]
        results = [spec.compute(config, list(p), list(r), {}) for p, r, config in cases]
    else:
        n = int(source.split("-")[1])
        results = [compute_cider(*_caption_corpus(n, seed), tokenize=False) for seed in (3, 4)]
    for result in results:
        ci = confidence_intervals(result, n_resamples=300)["cider"]
        assert ci.low <= result.cider <= ci.high, (source, ci)


# ---------------------------------------------------------------------------------------------
# Coverage harness (smoke run, never timed)
# ---------------------------------------------------------------------------------------------


def test_coverage_harness_smoke():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import coverage

    scores = np.random.default_rng(0).beta(2, 5, size=5000)
    pop = coverage._sum_population("beta", "mean", mean_statistic(scores), "beta(2, 5)")
    assert pop.value == pytest.approx(scores.mean())
    cells = coverage.coverage(pop, 50, n_sets=120, n_resamples=200)
    assert set(cells) == {"percentile", "bca"}
    for cell in cells.values():
        assert 0.85 <= cell["coverage"] <= 1.0 and cell["sets"] == 120
        assert cell["coverage"] + cell["below"] + cell["above"] == pytest.approx(1.0)
    row = {"metric": "beta", "statistic": "mean", "method": "percentile", "default": True,
           "cells": {"50": cells["percentile"]}, "size": 5000, "note": "", "value": pop.value}  # fmt: skip
    text = coverage.markdown([row], "cmd", 1.0)
    assert "| beta | mean | **percentile** |" in text and "`cmd`" in text


def test_compare_cli_four_items_gives_the_exact_p(tmp_path, capsys):
    """The issue's case through `metricore compare`: 4 items, 3 differ -> exact p = 0.25."""
    import json

    from metricore.cli.compare import main

    refs = ["Coca Cola", "12/15/89", "Dr. Lobo", "Thomas More"]
    files = {
        "baseline": ["zzz", "qq", "xx", "Thomas More"],
        "system": ["Coca Cola", "12/15/88", "Dr Lobo", "Thomas More"],
        "references": refs,
    }
    for name, rows in files.items():
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code = main([f"--{k}={tmp_path / f'{k}.jsonl'}" for k in files] + ["--metric", "anls"])
    captured = capsys.readouterr()
    assert code == 0
    report = json.loads(captured.out)
    ar = report["tests"]["anls"]["approximate_randomization"]
    assert ar["test"] == "exact_permutation" and ar["n_nonzero"] == 3 and ar["p_value"] == 0.25
    assert ar["p_value_sacrebleu"] == pytest.approx(1 / 10_001)
    assert report["warnings"] and "warning: anls: only 3 items differ" in captured.err
