"""Fréchet Inception Distance (FID) from feature arrays, as pytorch-fid computes it.

Reference: ``calculate_frechet_distance`` and ``calculate_activation_statistics`` in
mseitzer/pytorch-fid ``src/pytorch_fid/fid_score.py`` (Heusel et al. 2017; "stable version"
by D. J. Sutherland), copied unchanged into the FusionBrain Challenge 2.0 evaluation
(ai-forever/fbc2_aij2022 ``evaluation/generation/metrics/fid.py``). Re-implemented here:

    FID = ||mu1 - mu2||^2 + Tr(S1 + S2 - 2 sqrtm(S1 S2))

with the sample mean and the unbiased (``n - 1``) covariance of the rows (samples) of each
feature matrix, and the reference's numeric safeguards:

- when ``scipy.linalg.sqrtm(S1 S2)`` is not finite (a singular product), ``eps * I`` is added to
  both covariances and the root is taken again (a :class:`RuntimeWarning` says so, where the
  reference prints);
- a complex root (numerical noise on a product with eigenvalues near zero) is an error when any
  imaginary part on its diagonal exceeds ``1e-3`` in absolute value; otherwise its real part
  is used.

Deliberate differences: bad shapes raise ``ValueError`` (the reference asserts); a root that is
still not finite after the ``eps`` offset raises ``ValueError`` (the reference returns NaN).
The result is not clamped at 0: like the reference, identical statistics may give a tiny
negative number from rounding.

SciPy: ``sqrtm``'s ``disp`` argument and its error-estimate return value are deprecated since
SciPy 1.16 (``disp`` goes in 1.18); this module calls ``sqrtm(A)`` alone, which returns just
the root on every SciPy version, and silences SciPy's singular-matrix ``LinAlgWarning`` exactly
as the reference's ``disp=False`` did.

The features themselves come from a model (pytorch-fid's InceptionV3 pool3, 2048-d, for the
official number); :mod:`metricore.vision.embed` can run a user-supplied model.

>>> import numpy as np
>>> frechet_distance([3.0, 4.0], np.diag([4.0, 9.0]), [0.0, 0.0], np.eye(2))
30.0
>>> fid_from_features([[0.0], [2.0]], [[1.0], [3.0]])
1.0
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from metricore.core._arrays import float_array
from metricore.core.validation import check_number

__all__ = ["IMAGINARY_TOLERANCE", "feature_statistics", "fid_from_features", "frechet_distance"]

METRIC = "FID"
IMAGINARY_TOLERANCE = 1e-3
"""Largest absolute imaginary part allowed on the diagonal of ``sqrtm(S1 S2)`` (pytorch-fid)."""


def feature_statistics(features: Any, *, name: str = "features") -> tuple[np.ndarray, np.ndarray]:
    """Mean and unbiased covariance of a ``(samples, dims)`` feature matrix.

    As pytorch-fid's ``calculate_activation_statistics``: ``np.mean(axis=0)`` and
    ``np.cov(rowvar=False)`` (divisor ``n - 1``), in float64; the covariance is always 2-D,
    also for one feature dimension. ``name`` is the argument named in error messages.

    >>> mu, sigma = feature_statistics([[1.0, 0.0], [3.0, 2.0]])
    >>> mu.tolist(), sigma.tolist()
    ([2.0, 1.0], [[2.0, 2.0], [2.0, 2.0]])
    """
    x = float_array(features, METRIC, name, (2,))
    n, dims = x.shape
    if n < 2:
        raise ValueError(
            f"{METRIC}: `{name}` needs at least 2 rows (samples) to estimate a covariance, got {n}"
        )
    if dims < 1:
        raise ValueError(f"{METRIC}: `{name}` has no feature columns (shape {x.shape})")
    mu = x.mean(axis=0)
    sigma = np.atleast_2d(np.cov(x, rowvar=False))
    return mu, sigma


def _sqrtm(matrix: np.ndarray) -> np.ndarray:
    from scipy import linalg  # here, not at the top: scipy.linalg takes ~0.3 s to import

    with warnings.catch_warnings():
        # the reference passed disp=False, which kept SciPy quiet about singular products
        warnings.simplefilter("ignore", linalg.LinAlgWarning)
        return np.asarray(linalg.sqrtm(matrix))


def frechet_distance(mu1: Any, sigma1: Any, mu2: Any, sigma2: Any, eps: float = 1e-6) -> float:
    """Fréchet distance between N(mu1, sigma1) and N(mu2, sigma2), pytorch-fid's formula.

    Scalars are accepted for one dimension (as ``np.atleast_1d``/``np.atleast_2d`` do in the
    reference). ``eps`` is the diagonal offset used only when the plain square root is not
    finite.

    >>> frechet_distance(0.0, 1.0, 0.0, 4.0)
    1.0
    """
    m1 = np.atleast_1d(float_array(mu1, METRIC, "mu1", (0, 1)))
    m2 = np.atleast_1d(float_array(mu2, METRIC, "mu2", (0, 1)))
    s1 = np.atleast_2d(float_array(sigma1, METRIC, "sigma1", (0, 2)))
    s2 = np.atleast_2d(float_array(sigma2, METRIC, "sigma2", (0, 2)))
    eps = check_number(eps, METRIC, "eps", 0.0, np.inf)
    dims = m1.shape[0]
    if m2.shape != m1.shape:
        raise ValueError(f"{METRIC}: `mu1` and `mu2` have different lengths ({m1.shape[0]} vs {m2.shape[0]})")
    for name, s in (("sigma1", s1), ("sigma2", s2)):
        if s.shape != (dims, dims):
            raise ValueError(
                f"{METRIC}: `{name}` must be a {dims}x{dims} covariance matching the means, got shape {s.shape}"
            )

    covmean = _sqrtm(s1 @ s2)
    if not np.isfinite(covmean).all():
        warnings.warn(
            f"{METRIC}: sqrtm(sigma1 @ sigma2) is not finite (singular product); "
            f"adding {eps} to the diagonal of both covariances",
            RuntimeWarning,
            stacklevel=2,
        )
        offset = np.eye(dims) * eps
        covmean = _sqrtm((s1 + offset) @ (s2 + offset))
        if not np.isfinite(covmean).all():
            raise ValueError(
                f"{METRIC}: sqrtm(sigma1 @ sigma2) is not finite even with {eps} added to the "
                "diagonals; are `sigma1` and `sigma2` covariance matrices?"
            )
    if np.iscomplexobj(covmean):
        diagonal_imag = np.abs(np.diagonal(covmean).imag)
        if (diagonal_imag > IMAGINARY_TOLERANCE).any():
            worst = int(np.argmax(diagonal_imag))
            raise ValueError(
                f"{METRIC}: sqrtm(sigma1 @ sigma2) has an imaginary component "
                f"{diagonal_imag[worst]:.3g} on its diagonal (entry [{worst}, {worst}], largest "
                f"in the matrix {np.max(np.abs(covmean.imag)):.3g}; tolerance {IMAGINARY_TOLERANCE}); "
                "are `sigma1` and `sigma2` positive semi-definite covariance matrices?"
            )
        covmean = covmean.real

    diff = m1 - m2
    return float(diff @ diff + np.trace(s1) + np.trace(s2) - 2.0 * np.trace(covmean))


def fid_from_features(features_a: Any, features_b: Any) -> float:
    """FID between two ``(samples, dims)`` feature matrices (rows = images).

    The statistics of each side are :func:`feature_statistics`; the distance is
    :func:`frechet_distance`. It is symmetric in its two arguments (up to rounding). Both
    matrices must have the same number of columns; their numbers of rows may differ.

    >>> same = [[0.0, 0.0], [2.0, 0.0], [0.0, 2.0]]
    >>> round(fid_from_features(same, same), 12)
    0.0
    >>> round(fid_from_features(same, [[x + 3.0, y + 4.0] for x, y in same]), 12)
    25.0
    """
    mu_a, sigma_a = feature_statistics(features_a, name="features_a")
    mu_b, sigma_b = feature_statistics(features_b, name="features_b")
    if mu_a.shape != mu_b.shape:
        raise ValueError(
            f"{METRIC}: `features_a` and `features_b` have different feature dimensions "
            f"({mu_a.shape[0]} vs {mu_b.shape[0]} columns)"
        )
    return frechet_distance(mu_a, sigma_a, mu_b, sigma_b)
