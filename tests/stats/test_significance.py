"""The resampling engine (:mod:`metricore.stats.significance`): sacrebleu's definitions, coverage,
false-positive rate and power of the paired tests, index streams, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metricore.stats.significance import (
    CHUNK_ELEMENTS,
    SumStatistic,
    bootstrap_ci,
    bootstrap_cis,
    bootstrap_distribution,
    check_interval_options,
    mean_statistic,
    paired_bootstrap,
    paired_randomization,
    percentile_interval,
    ratio_statistic,
    resample_indices,
    resample_weights,
    swap_masks,
)

# ---------------------------------------------------------------------------------------------
# sacrebleu's definitions, written out the way sacrebleu 2.x computes them (oracles)
# ---------------------------------------------------------------------------------------------


def _sacrebleu_estimate_ci(scores: np.ndarray) -> tuple[float, float]:
    """sacrebleu.significance.estimate_ci: 95% from the sorted scores, 1/40 from each end."""
    s = np.sort(scores)
    lower = len(s) // 40
    return float(s[lower]), float(s[len(s) - lower - 1])


def _sacrebleu_p(stats: np.ndarray, real: float) -> float:
    return (int(np.sum(stats > real)) + 1) / (len(stats) + 1)


@pytest.mark.parametrize("n_resamples", [40, 999, 1000, 2000, 2001])
def test_percentile_interval_is_sacrebleu_estimate_ci_at_95(n_resamples):
    values = np.random.default_rng(n_resamples).normal(size=n_resamples)
    assert percentile_interval(values, 0.95) == _sacrebleu_estimate_ci(values)


def test_percentile_interval_levels_and_nan():
    v = np.arange(1000.0)
    assert percentile_interval(v, 0.9) == (50.0, 949.0)  # 1000 * 0.1 / 2 = 50, not 49.999...
    assert percentile_interval(v, 0.5) == (250.0, 749.0)
    assert percentile_interval([3.0], 0.95) == (3.0, 3.0)
    assert percentile_interval([1.0, math.nan, 2.0, 3.0], 0.5) == (1.0, 3.0)
    low, high = percentile_interval([math.nan, math.nan])
    assert math.isnan(low) and math.isnan(high)


def test_paired_bootstrap_p_value_and_intervals_follow_sacrebleu():
    rng = np.random.default_rng(3)
    a = rng.random(300)
    b = a + rng.normal(0.02, 0.1, 300)
    r = paired_bootstrap(a, b, n_resamples=1000, seed=11)
    dist = bootstrap_distribution([mean_statistic(a), mean_statistic(b)], n_resamples=1000, seed=11)
    spread = np.abs(dist[1] - dist[0])
    assert r.p_value_sacrebleu == _sacrebleu_p(spread - spread.mean(), abs(b.mean() - a.mean()))
    assert (r.system.low, r.system.high) == _sacrebleu_estimate_ci(dist[1])
    assert (r.baseline.low, r.baseline.high) == _sacrebleu_estimate_ci(dist[0])
    assert (r.low, r.high) == _sacrebleu_estimate_ci(dist[1] - dist[0])
    shifted = np.abs(dist[1] - dist[0] - r.difference)
    assert r.p_value == r.p_value_two_sided == (int(np.sum(shifted >= abs(r.difference))) + 1) / 1001
    assert r.difference == pytest.approx(b.mean() - a.mean(), abs=1e-12)


def test_paired_randomization_p_value_follows_sacrebleu():
    rng = np.random.default_rng(4)
    a = (rng.random(200) < 0.5).astype(float)
    b = (rng.random(200) < 0.6).astype(float)
    r = paired_randomization(a, b, n_trials=500, seed=2)
    null = []
    for mask in swap_masks(200, 500, seed=2):
        for row in mask:  # pseudo-systems built item by item, as sacrebleu's selectors do
            null.append(abs(np.where(row, b, a).mean() - np.where(row, a, b).mean()))
    assert not r.exact and r.n_nonzero == int(np.sum(a != b))
    assert r.p_value_sacrebleu == pytest.approx(_sacrebleu_p(np.array(null), abs(b.mean() - a.mean())), abs=0)
    observed = abs(b.mean() - a.mean())
    at_least = int(np.sum(np.array(null) >= observed * (1 - 1e-9)))
    assert r.p_value == (at_least + 1) / 501 >= r.p_value_sacrebleu


def test_identical_systems_are_not_significant():
    a = [0.0, 1.0, 0.5, 0.25] * 25
    bs = paired_bootstrap(a, list(a), n_resamples=200)
    ar = paired_randomization(a, list(a), n_trials=200)
    assert bs.p_value == bs.p_value_two_sided == ar.p_value == 1.0
    assert bs.p_value_sacrebleu == ar.p_value_sacrebleu == 1.0  # sacrebleu would say 1/201
    assert ar.exact and ar.n_nonzero == 0
    assert bs.difference == bs.low == bs.high == 0.0


# ---------------------------------------------------------------------------------------------
# Statistical behaviour
# ---------------------------------------------------------------------------------------------


def test_coverage_of_the_95_interval_is_near_95_percent():
    """400 seeded trials, known mean 0.5: the percentile interval covers it 93-97% of the time."""
    rng = np.random.default_rng(2024)
    data = rng.normal(0.5, 0.2, size=(400, 300))
    covered = 0
    for t, row in enumerate(data):
        ci = bootstrap_ci(row, n_resamples=500, seed=t)
        covered += ci.low <= 0.5 <= ci.high
    assert 0.93 <= covered / 400 <= 0.97, covered / 400


def _paired_trials(shift: float, trials: int, seed: int) -> np.ndarray:
    """Per trial: sacrebleu p, two-sided p, CI excludes 0, AR p, observed difference > 0."""
    rng = np.random.default_rng(seed)
    out = []
    for t in range(trials):
        a = (rng.random(200) < 0.6).astype(float)
        b = (rng.random(200) < 0.6 + shift).astype(float)
        bs = paired_bootstrap(a, b, n_resamples=500, seed=t)
        ar = paired_randomization(a, b, n_trials=500, seed=t)
        out.append(
            (bs.p_value_sacrebleu, bs.p_value, bs.low > 0 or bs.high < 0, ar.p_value, bs.difference > 0)
        )
    return np.array(out, dtype=float)


def test_paired_tests_false_positive_rate_on_identical_distributions():
    """Two systems drawn from one distribution: rejections at alpha = 0.05 happen ~5% of the
    time for AR, the two-sided bootstrap and the interval of the difference; sacrebleu's
    paired-bootstrap p is one-sided in the observed direction, so ~10% read two-sided."""
    r = _paired_trials(0.0, 400, seed=99)
    alpha = 0.05
    assert 0.02 <= np.mean(r[:, 3] < alpha) <= 0.085  # approximate randomization
    assert 0.02 <= np.mean(r[:, 1] < alpha) <= 0.085  # two-sided paired bootstrap
    assert 0.02 <= np.mean(r[:, 2]) <= 0.085  # interval of the difference excludes 0
    sacre = r[:, 0] < alpha
    assert 0.07 <= np.mean(sacre) <= 0.16
    assert 0.02 <= np.mean(sacre & (r[:, 4] == 1)) <= 0.085  # as a one-sided test: alpha


def test_paired_tests_power_on_a_known_difference():
    r = _paired_trials(0.25, 40, seed=5)  # 0.6 vs 0.85 over 200 items: z ~ 5.8
    assert np.mean(r[:, 3] < 0.05) >= 0.95
    assert np.mean(r[:, 1] < 0.05) >= 0.95
    assert np.mean(r[:, 0] < 0.05) >= 0.95
    assert np.mean(r[:, 2]) >= 0.95


# ---------------------------------------------------------------------------------------------
# Vectorised = naive, index streams
# ---------------------------------------------------------------------------------------------


def test_vectorised_equals_a_loop_over_the_index_rows():
    rng = np.random.default_rng(8)
    dist_ = rng.integers(0, 5, 50).astype(float)
    length = rng.integers(0, 4, 50).astype(float)
    x = rng.random(50)
    stats = [mean_statistic(x, scale=100), ratio_statistic(dist_, length, empty=-1.0)]
    got = bootstrap_distribution(stats, n_resamples=300, seed=9)
    rows = np.concatenate(list(resample_indices(50, 300, seed=9)))
    assert rows.shape == (300, 50)
    want_mean = [100 * np.mean(x[r]) for r in rows]
    want_ratio = [dist_[r].sum() / length[r].sum() if length[r].sum() else -1.0 for r in rows]
    np.testing.assert_allclose(got[0], want_mean, rtol=1e-12)
    np.testing.assert_allclose(got[1], want_ratio, rtol=1e-12)


def test_index_stream_depends_on_n_and_seed_only():
    n = CHUNK_ELEMENTS // 3 + 1  # two rows per chunk
    chunks = list(resample_indices(n, 5, seed=1))
    assert [c.shape[0] for c in chunks] == [2, 2, 1]
    first = np.concatenate(chunks)
    again = np.concatenate(list(resample_indices(n, 3, seed=1)))
    np.testing.assert_array_equal(first[:3], again)  # a prefix: n_resamples does not matter
    assert first.min() >= 0 and first.max() < n
    small = mean_statistic(np.arange(20.0))
    long = bootstrap_distribution([small], n_resamples=30, seed=4)[0]
    short = bootstrap_distribution([small], n_resamples=10, seed=4)[0]
    np.testing.assert_array_equal(long[:10], short)
    assert not np.array_equal(bootstrap_distribution([small], n_resamples=10, seed=5)[0], short)


def test_resample_weights_count_the_draws():
    idx = np.array([[0, 0, 3, 1], [2, 2, 2, 2]])
    np.testing.assert_array_equal(resample_weights(idx, 4), [[2, 1, 0, 1], [0, 0, 4, 0]])


def test_bootstrap_cis_share_resamples():
    x = np.random.default_rng(0).random(40)
    out = bootstrap_cis({"a": mean_statistic(x), "b": mean_statistic(x * 2)}, n_resamples=100, seed=3)
    assert out["b"].low == pytest.approx(2 * out["a"].low) and out["b"].high == pytest.approx(
        2 * out["a"].high
    )
    assert out["a"].score == pytest.approx(x.mean())


def test_undefined_resamples_are_counted_and_left_out():
    # a subgroup of one item: absent from ~(1 - 1/n)^n of the resamples
    member = np.zeros(5)
    member[0] = 1.0
    ci = bootstrap_ci(ratio_statistic(member * 0.7, member), n_resamples=400, seed=0)
    assert ci.score == pytest.approx(0.7) and ci.low == pytest.approx(0.7) and ci.high == pytest.approx(0.7)
    assert 100 < ci.undefined < 200  # (4/5)^5 = 0.33 of 400


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=60),
    st.integers(1, 200),
    st.floats(0.01, 0.99),
    st.integers(0, 2**32),
)
def test_interval_properties(values, n_resamples, confidence, seed):
    ci = bootstrap_ci(values, n_resamples=n_resamples, confidence=confidence, seed=seed)
    assert min(values) - 1e-6 <= ci.low <= ci.high <= max(values) + 1e-6
    assert ci.n_resamples == n_resamples and ci.seed == seed and ci.undefined == 0
    assert bootstrap_ci(values, n_resamples=n_resamples, confidence=confidence, seed=seed) == ci


def test_seed_none_draws_fresh_entropy():
    ci = bootstrap_ci(np.arange(100.0), n_resamples=50, seed=None)
    assert ci.seed is None and ci.low <= ci.high


def test_sum_statistic_swaps_like_a_loop():
    rng = np.random.default_rng(1)
    a, b = rng.random((2, 30, 2))
    fn = lambda s, n: s[:, 0] / s[:, 1]  # noqa: E731
    sa, sb = SumStatistic(tuple(a.T), fn), SumStatistic(tuple(b.T), fn)
    mask = rng.random((7, 30)) < 0.5
    got_a, got_b = sa.swapped(sb, mask)
    for t, row in enumerate(mask):
        mixed_a = np.where(row[:, None], b, a).sum(axis=0)
        mixed_b = np.where(row[:, None], a, b).sum(axis=0)
        assert got_a[t] == pytest.approx(mixed_a[0] / mixed_a[1], rel=1e-12)
        assert got_b[t] == pytest.approx(mixed_b[0] / mixed_b[1], rel=1e-12)


# ---------------------------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"confidence": 0.0}, ValueError, r"`confidence` must be in \(0, 1\)"),
        ({"confidence": 1.0}, ValueError, r"`confidence` must be in \(0, 1\)"),
        ({"confidence": 95}, ValueError, r"`confidence` must be in \(0, 1\)"),
        ({"confidence": math.nan}, ValueError, r"`confidence`"),
        ({"confidence": "0.95"}, TypeError, r"`confidence` must be a number"),
        ({"confidence": True}, TypeError, r"`confidence` must be a number"),
        ({"n_resamples": 0}, ValueError, r"`n_resamples` must be >= 1"),
        ({"n_resamples": -5}, ValueError, r"`n_resamples` must be >= 1"),
        ({"n_resamples": 10.0}, TypeError, r"`n_resamples` must be an int"),
        ({"n_resamples": True}, TypeError, r"`n_resamples` must be an int"),
        ({"seed": -1}, ValueError, r"`seed` must be >= 0"),
        ({"seed": 1.5}, TypeError, r"`seed` must be an int"),
    ],
)
def test_bad_options(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        bootstrap_ci([1.0, 2.0], **kwargs)
    with pytest.raises(error, match=pattern):
        check_interval_options(
            kwargs.get("confidence", 0.95), kwargs.get("n_resamples", 10), kwargs.get("seed", 0), "anls"
        )


def test_bad_options_name_the_metric():
    with pytest.raises(ValueError, match=r"^cider: `confidence`"):
        check_interval_options(1.5, 10, 0, "cider")


def test_bad_data():
    with pytest.raises(ValueError, match="empty"):
        bootstrap_ci([])
    with pytest.raises(ValueError, match="empty"):
        mean_statistic([])
    with pytest.raises(TypeError, match="sequence of numbers"):
        bootstrap_ci("abc")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="sequence of numbers"):
        mean_statistic([1.0, "x"])
    with pytest.raises(ValueError, match="one-dimensional"):
        mean_statistic([[1.0, 2.0]])
    with pytest.raises(ValueError, match="3 numerators but 2 denominators"):
        ratio_statistic([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match=r"`columns\[1\]` has 2 items"):
        SumStatistic(([1.0, 2.0, 3.0], [1.0, 2.0]), lambda s, n: s[:, 0])
    with pytest.raises(ValueError, match="same items; got 3 baseline and 2 system"):
        paired_bootstrap([1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="same items"):
        paired_randomization([1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="`n_trials` must be >= 1"):
        paired_randomization([1.0], [2.0], n_trials=0)
    with pytest.raises(ValueError, match="cannot share resamples"):
        bootstrap_distribution([mean_statistic([1.0]), mean_statistic([1.0, 2.0])])


def test_n_resamples_has_a_documented_maximum():
    """Issue 17: 10**12 resamples ended in a bare MemoryError."""
    from metricore.stats.significance import MAX_RESAMPLED_DRAWS, MAX_RESAMPLES

    with pytest.raises(
        ValueError, match=r"cider: `n_resamples` must be at most 1,000,000, got 1,000,000,000,000"
    ):
        check_interval_options(0.95, 10**12, 0, "cider")
    assert check_interval_options(0.95, MAX_RESAMPLES, 0, "cider")[1] == MAX_RESAMPLES
    with pytest.raises(ValueError, match=r"items x `n_resamples`"):
        check_interval_options(0.95, 1000, 0, "cider", n=MAX_RESAMPLED_DRAWS // 1000 + 1)
