"""FID (metricore.vision.fid) against pytorch-fid's sqrtm formula, a direct eigen-decomposition
computation, the SPECS section 6 vectors, pytorch-fid's numeric safeguards, the two fast routes
(eigendecompositions; the Gram form for fewer samples than dimensions), properties and bad
input."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import linalg

from metricore.vision import fid as fid_module
from metricore.vision.fid import feature_statistics, fid_from_features, frechet_distance
from tests.oracles.fid_ref import pytorch_fid_formula


def _stats(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mu = x.mean(axis=0)
    centred = x - mu
    return mu, centred.T @ centred / (len(x) - 1)


def _psd_sqrt(s: np.ndarray) -> np.ndarray:
    w, v = np.linalg.eigh(s)
    return (v * np.sqrt(np.clip(w, 0.0, None))) @ v.T


def oracle_fid(a: np.ndarray, b: np.ndarray) -> float:
    """FID by eigen-decomposition: Tr sqrt(S1 S2) = sum sqrt(eig(S1^1/2 S2 S1^1/2)), which is
    symmetric PSD, so this route needs no non-symmetric matrix square root at all."""
    m1, s1 = _stats(a)
    m2, s2 = _stats(b)
    r = _psd_sqrt(s1)
    ev = np.linalg.eigvalsh(r @ s2 @ r)
    tr_covmean = np.sqrt(np.clip(ev, 0.0, None)).sum()
    return float((m1 - m2) @ (m1 - m2) + np.trace(s1) + np.trace(s2) - 2.0 * tr_covmean)


def scipy_fid(a: np.ndarray, b: np.ndarray) -> float:
    """The textbook formula with scipy.linalg.sqrtm called directly (no safeguards)."""
    m1, s1 = np.mean(a, axis=0), np.atleast_2d(np.cov(a, rowvar=False))
    m2, s2 = np.mean(b, axis=0), np.atleast_2d(np.cov(b, rowvar=False))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", linalg.LinAlgWarning)
        root = linalg.sqrtm(s1 @ s2)
    return float(np.sum((m1 - m2) ** 2) + np.trace(s1 + s2 - 2.0 * np.real(root)))


def _features(seed: int, n: int, d: int, scale: float = 1.0, shift: float = 0.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    mixing = rng.normal(size=(d, d)) / math.sqrt(d)
    return (rng.normal(size=(n, d)) @ mixing) * scale + shift


# ------------------------------------------------------------------ SPECS section 6 vectors


def test_specs_identical_statistics_give_zero():
    mu = np.array([1.0, -2.0, 0.5])
    sigma = np.array([[2.0, 0.3, 0.0], [0.3, 1.0, 0.2], [0.0, 0.2, 0.5]])
    assert frechet_distance(mu, sigma, mu, sigma) == pytest.approx(0.0, abs=1e-12)


def test_specs_one_dimensional_mean_shift():
    assert frechet_distance([0.0], [[1.0]], [1.0], [[1.0]]) == pytest.approx(1.0, abs=1e-12)
    assert frechet_distance(0.0, 1.0, 1.0, 1.0) == pytest.approx(1.0, abs=1e-12)


def test_specs_variances_one_and_four():
    assert frechet_distance(0.0, 1.0, 0.0, 4.0) == pytest.approx(1.0, abs=1e-12)


def test_specs_two_dimensional_vector():
    value = frechet_distance([3.0, 4.0], np.diag([4.0, 9.0]), [0.0, 0.0], np.eye(2))
    assert value == pytest.approx(30.0, abs=1e-12)
    assert isinstance(value, float)


# ------------------------------------------------------------------ against direct computations


@pytest.mark.parametrize(
    ("n_a", "n_b", "d"),
    [(10, 12, 1), (30, 25, 2), (100, 80, 8), (300, 200, 32), (400, 300, 128)],
)
def test_matches_direct_computation_full_rank(n_a, n_b, d):
    a = _features(d, n_a, d)
    b = _features(d + 1000, n_b, d, scale=1.5, shift=0.3)
    got = fid_from_features(a, b)
    assert got == pytest.approx(oracle_fid(a, b), rel=1e-9, abs=1e-9)
    assert got == pytest.approx(scipy_fid(a, b), rel=1e-9, abs=1e-9)


@pytest.mark.parametrize(
    ("n_a", "n_b", "d"),
    [(12, 10, 1), (40, 30, 3), (200, 150, 16), (500, 400, 64), (700, 600, 256)],
)
def test_pinned_to_the_pytorch_fid_formula(n_a, n_b, d):
    """The eigendecomposition route (n > d) equals pytorch-fid's sqrtm formula within 1e-9."""
    a = _features(d + 3, n_a, d, scale=0.8)
    b = _features(d + 2000, n_b, d, scale=1.2, shift=0.1)
    assert not fid_module._gram_is_cheaper(n_a, n_b, d)
    expected = pytorch_fid_formula(a, b)
    assert fid_from_features(a, b) == pytest.approx(expected, rel=1e-9)
    sigma_a, sigma_b = np.cov(a, rowvar=False), np.cov(b, rowvar=False)
    assert frechet_distance(a.mean(0), sigma_a, b.mean(0), sigma_b) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(("n_a", "n_b", "d"), [(3, 4, 64), (30, 20, 128), (100, 120, 400)])
def test_gram_form_for_fewer_samples_than_dimensions(n_a, n_b, d):
    """n < d: the Gram form (singular values of an n1 x n2 matrix) and the eigendecomposition
    route (d x d) agree within 1e-12; pytorch-fid's sqrtm and the plain eigen oracle (no
    cut-off of rounding-sized eigenvalues) are only accurate to about 1e-7 on such singular
    products."""
    a = _features(d, n_a, d)
    b = _features(d + 5, n_b, d, scale=1.3, shift=0.2)
    assert fid_module._gram_is_cheaper(n_a, n_b, d)
    got = fid_from_features(a, b)
    sigma_a, sigma_b = np.cov(a, rowvar=False), np.cov(b, rowvar=False)
    assert frechet_distance(a.mean(0), sigma_a, b.mean(0), sigma_b) == pytest.approx(got, rel=1e-12)
    assert got == pytest.approx(oracle_fid(a, b), rel=1e-6)
    assert got == pytest.approx(pytorch_fid_formula(a, b), rel=1e-6)


def test_gram_form_builds_no_d_by_d_matrix():
    """3 x 200,000 features: a covariance would take 320 GB; the Gram form needs 3 x 3."""
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(3, 200_000)), rng.normal(size=(3, 200_000)) + 0.01
    a0, b0 = a - a.mean(0), b - b.mean(0)
    exact = np.linalg.svd(a0 @ b0.T, compute_uv=False).sum() / 2.0
    expected = ((a.mean(0) - b.mean(0)) ** 2).sum() + (a0**2).sum() / 2 + (b0**2).sum() / 2 - 2 * exact
    assert fid_from_features(a, b) == pytest.approx(expected, rel=1e-12)


def test_scipy_sqrtm_is_not_called_on_covariances(monkeypatch):
    def refuse(matrix):
        raise AssertionError("sqrtm called")

    monkeypatch.setattr(fid_module, "_sqrtm", refuse)
    a, b = _features(1, 50, 8), _features(2, 60, 8, scale=2.0)
    assert fid_from_features(a, b) == pytest.approx(pytorch_fid_formula(a, b), rel=1e-9)
    assert fid_from_features(a[:4], b[:5]) == pytest.approx(oracle_fid(a[:4], b[:5]), rel=1e-6)


def test_not_symmetric_psd_arguments_take_the_reference_route(monkeypatch):
    calls = []
    real = fid_module._sqrtm
    monkeypatch.setattr(fid_module, "_sqrtm", lambda m: calls.append(m) or real(m))
    asymmetric = np.array([[2.0, 0.5], [0.1, 1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", linalg.LinAlgWarning)
        root = linalg.sqrtm(np.eye(2) @ asymmetric)
    expected = 1.0 + 3.0 + 2.0 - 2.0 * float(np.trace(np.real(root)))
    assert frechet_distance([1.0, 0.0], np.eye(2), [0.0, 0.0], asymmetric) == pytest.approx(expected)
    assert len(calls) == 1


@pytest.mark.parametrize(("n", "d"), [(5, 10), (3, 50), (20, 64), (40, 96)])
def test_matches_direct_computation_singular_covariances(n, d):
    """Fewer samples than dimensions: rank-deficient covariances, a singular product whose
    root SciPy returns with a tiny imaginary part (accurate to about sqrt(machine eps))."""
    a = _features(n, n, d)
    b = _features(n + 7, n + 2, d, scale=0.7, shift=-0.2)
    got = fid_from_features(a, b)
    assert got == pytest.approx(oracle_fid(a, b), rel=1e-6)


def test_matches_direct_computation_duplicated_columns():
    rng = np.random.default_rng(5)
    base_a, base_b = rng.normal(size=(60, 6)), rng.normal(size=(70, 6)) * 1.3
    a = np.hstack([base_a, base_a[:, :3]])
    b = np.hstack([base_b, 2.0 * base_b[:, :3] + 1.0])
    got = fid_from_features(a, b)
    assert got == pytest.approx(oracle_fid(a, b), rel=1e-6)
    assert fid_from_features(a, a) == pytest.approx(0.0, abs=1e-6)


def test_singular_sqrtm_is_not_a_warning_and_no_deprecated_scipy_api():
    a, b = _features(1, 4, 12), _features(2, 5, 12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a deprecated `disp=` or an unsilenced LinAlgWarning fails
        fid_from_features(a, b)


def test_large_imaginary_diagonal_is_an_error():
    # sqrtm(I @ -I) = i I: imaginary diagonal 1 > 1e-3
    with pytest.raises(ValueError, match=r"FID: sqrtm\(sigma1 @ sigma2\) has an imaginary component 1"):
        frechet_distance([0.0, 0.0], np.eye(2), [0.0, 0.0], -np.eye(2))


def test_small_imaginary_part_is_dropped():
    a, b = _features(3, 3, 50), _features(4, 3, 50)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", linalg.LinAlgWarning)
        root = linalg.sqrtm(np.cov(a, rowvar=False) @ np.cov(b, rowvar=False))
    assert np.iscomplexobj(root)  # the case really exercises the tolerance
    assert 0 < np.abs(np.diagonal(root).imag).max() <= 1e-3
    value = fid_from_features(a, b)
    assert isinstance(value, float)
    assert value == pytest.approx(oracle_fid(a, b), rel=1e-6)


def test_non_finite_root_adds_eps_to_both_diagonals():
    # sqrtm of the nilpotent [[0, 1], [0, 0]] is infinite; with eps*I added to both
    # "covariances" the product is (1+eps) [[eps, 1], [0, eps]], whose root has trace
    # 2 sqrt(eps (1 + eps)).
    eps = 1e-6
    nilpotent = np.array([[0.0, 1.0], [0.0, 0.0]])
    with pytest.warns(RuntimeWarning, match="adding 1e-06 to the diagonal"):
        value = frechet_distance([0.0, 0.0], np.eye(2), [0.0, 0.0], nilpotent)
    assert value == pytest.approx(2.0 - 4.0 * math.sqrt(eps * (1.0 + eps)), rel=1e-9)
    with pytest.warns(RuntimeWarning), pytest.raises(ValueError, match="not finite even with 0.0"):
        frechet_distance([0.0, 0.0], np.eye(2), [0.0, 0.0], nilpotent, eps=0.0)


# ------------------------------------------------------------------ properties


def _spread(x: np.ndarray) -> float:
    return float(np.trace(_stats(x)[1]))


_shapes = st.tuples(st.integers(0, 10_000), st.integers(2, 40), st.integers(2, 40), st.integers(1, 12))


@settings(max_examples=40, deadline=None)
@given(_shapes, st.floats(0.1, 5.0), st.floats(-3.0, 3.0))
def test_symmetric_and_non_negative(shape, scale, shift):
    seed, n_a, n_b, d = shape
    a = _features(seed, n_a, d)
    b = _features(seed + 1, n_b, d, scale=scale, shift=shift)
    ab, ba = fid_from_features(a, b), fid_from_features(b, a)
    size = 1.0 + _spread(a) + _spread(b)
    assert ab == pytest.approx(ba, rel=1e-6, abs=1e-6 * size)
    assert ab >= -1e-6 * size
    assert ab == pytest.approx(oracle_fid(a, b), rel=1e-6, abs=1e-6 * size)


@settings(max_examples=25, deadline=None)
@given(_shapes, st.lists(st.floats(-5.0, 5.0), min_size=12, max_size=12))
def test_translating_one_side_moves_only_the_mean_term(shape, offsets):
    seed, n_a, n_b, d = shape
    a, b = _features(seed, n_a, d), _features(seed + 1, n_b, d, scale=2.0)
    v = np.array(offsets[:d])
    gap = a.mean(axis=0) - b.mean(axis=0)
    expected = fid_from_features(a, b) - gap @ gap + (gap - v) @ (gap - v)
    size = 1.0 + v @ v + gap @ gap + _spread(a) + _spread(b)
    assert fid_from_features(a, b + v) == pytest.approx(expected, abs=1e-6 * size)
    # translating both sides together changes nothing
    assert fid_from_features(a + v, b + v) == pytest.approx(fid_from_features(a, b), abs=1e-6 * size)


# ------------------------------------------------------------------ statistics


def test_feature_statistics_are_mean_and_unbiased_covariance():
    x = _features(9, 30, 5)
    mu, sigma = feature_statistics(x)
    assert np.allclose(mu, x.mean(axis=0))
    assert np.allclose(sigma, np.cov(x, rowvar=False, ddof=1))
    mu1, sigma1 = feature_statistics([[1.0], [2.0], [4.0]])
    assert mu1.shape == (1,) and sigma1.shape == (1, 1)
    assert sigma1[0, 0] == pytest.approx(np.var([1.0, 2.0, 4.0], ddof=1))
    assert mu1.dtype == np.float64


def test_accepts_integer_and_float32_features():
    ints = np.arange(12).reshape(6, 2) ** 2
    assert fid_from_features(ints, ints.astype(np.float32)) == pytest.approx(0.0, abs=1e-9)


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("features", "error", "match"),
    [
        ([[1.0, 2.0]], ValueError, "needs at least 2 rows"),
        (np.zeros((0, 3)), ValueError, "needs at least 2 rows"),
        ([1.0, 2.0, 3.0], ValueError, r"`features` must be 2-D, got shape \(3,\)"),
        (np.zeros((2, 2, 2)), ValueError, "must be 2-D"),
        ([[1.0, 2.0], [3.0, float("nan")]], ValueError, r"`features\[1, 1\]` is not finite"),
        ([[1.0, float("inf")], [3.0, 4.0]], ValueError, r"`features\[0, 1\]` is not finite"),
        ([[1.0, 2.0], [3.0]], ValueError, "not a rectangular"),
        ("abc", TypeError, "numeric array"),
        ([["a", "b"], ["c", "d"]], TypeError, "real numbers"),
        (np.ones((3, 2), dtype=complex), TypeError, "real numbers"),
        (np.zeros((4, 0)), ValueError, "no feature columns"),
    ],
)
def test_feature_statistics_bad_input(features, error, match):
    with pytest.raises(error, match=match):
        feature_statistics(features)


def test_fid_from_features_names_the_side_and_the_dimensions():
    with pytest.raises(ValueError, match=r"FID: `features_b\[2, 0\]` is not finite"):
        fid_from_features(np.ones((3, 2)), [[1.0, 2.0], [1.0, 2.0], [float("nan"), 0.0]])
    with pytest.raises(ValueError, match=r"`features_a` needs at least 2 rows"):
        fid_from_features([[1.0, 2.0]], np.ones((3, 2)))
    with pytest.raises(ValueError, match=r"different feature dimensions \(2 vs 3 columns\)"):
        fid_from_features(np.ones((3, 2)), np.ones((3, 3)))


def test_frechet_distance_bad_shapes_and_eps():
    with pytest.raises(ValueError, match=r"`mu1` and `mu2` have different lengths \(2 vs 3\)"):
        frechet_distance([0.0, 0.0], np.eye(2), [0.0, 0.0, 0.0], np.eye(2))
    with pytest.raises(ValueError, match=r"`sigma2` must be a 2x2 covariance"):
        frechet_distance([0.0, 0.0], np.eye(2), [0.0, 0.0], np.eye(3))
    with pytest.raises(ValueError, match="`sigma1` must be a 2x2"):
        frechet_distance([0.0, 0.0], np.ones((2, 3)), [0.0, 0.0], np.eye(2))
    with pytest.raises(ValueError, match=r"`mu1` must be 0-D or 1-D"):
        frechet_distance(np.eye(2), np.eye(2), [0.0, 0.0], np.eye(2))
    with pytest.raises(ValueError, match=r"`sigma2\[0, 0\]` is not finite"):
        frechet_distance([0.0], [[1.0]], [0.0], [[float("nan")]])
    with pytest.raises(ValueError, match="`eps` must be in"):
        frechet_distance(0.0, 1.0, 0.0, 1.0, eps=-1.0)
    with pytest.raises(TypeError, match="`mu2` must be a numeric array"):
        frechet_distance(0.0, 1.0, None, 1.0)
