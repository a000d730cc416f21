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

Computation (issue 17): the reference takes ``scipy.linalg.sqrtm`` of the non-symmetric
product ``S1 S2`` (a Schur decomposition, about 20 s at d = 2,048 on a 2-core machine) and
keeps only its trace. Here the trace comes from symmetric eigendecompositions: with
``S1 = V diag(w) V^T``, ``S1 S2`` is similar to the symmetric PSD matrix
``M = diag(sqrt w) V^T S2 V diag(sqrt w)``, so ``Tr sqrtm(S1 S2) = sum(sqrt(eigvalsh(M)))``.
:func:`fid_from_features` with fewer samples than dimensions uses the Gram form instead:
with the centred features ``A`` (n1 x d) and ``B`` (n2 x d), the non-zero eigenvalues of
``S1 S2`` are the squared singular values of ``A B^T / sqrt((n1 - 1)(n2 - 1))``, so the trace
is that matrix's nuclear norm, and no d x d matrix is ever built. Both agree with the
reference's sqrtm route within 1e-9 relative on full-rank statistics
(``tests/vision/test_fid.py``; on singular ones the reference's root is itself only accurate to
about 1e-7, and these routes give the exact trace). Arguments that are not symmetric PSD
matrices (only :func:`frechet_distance` can be given such) take the reference's sqrtm route
with its safeguards below, so its errors and warnings are unchanged. SciPy: ``sqrtm``'s
``disp`` argument and its error-estimate return value are deprecated since SciPy 1.16; that
route calls ``sqrtm(A)`` alone and silences SciPy's singular-matrix ``LinAlgWarning`` exactly
as the reference's ``disp=False`` did. ``benchmarks/bench_fid.py`` times both routes.

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

__all__ = ["IMAGINARY_TOLERANCE", "feature_statistics", "fid_flops", "fid_from_features", "frechet_distance"]

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
    mu, centred = _centred(features, name)
    sigma = np.atleast_2d(centred.T @ centred / (len(centred) - 1))
    return mu, sigma


def _centred(features: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    """The checked ``(samples, dims)`` matrix's column means and its rows minus them."""
    x = float_array(features, METRIC, name, (2,))
    n, dims = x.shape
    if n < 2:
        raise ValueError(
            f"{METRIC}: `{name}` needs at least 2 rows (samples) to estimate a covariance, got {n}"
        )
    if dims < 1:
        raise ValueError(f"{METRIC}: `{name}` has no feature columns (shape {x.shape})")
    mu = x.mean(axis=0)
    return mu, x - mu


#: relative size of a negative eigenvalue still taken as rounding of a PSD matrix's zero
_PSD_TOLERANCE = 1e-9


def _symmetric(s: np.ndarray) -> np.ndarray | None:
    """``s`` symmetrised, or ``None`` when it is not symmetric up to rounding."""
    scale = float(np.abs(s).max(initial=0.0))
    if not np.allclose(s, s.T, rtol=0.0, atol=1e-12 * scale):
        return None
    return (s + s.T) / 2.0


def _nonnegative(w: np.ndarray) -> np.ndarray | None:
    """``w`` with rounding-sized eigenvalues set to 0; ``None`` if one is clearly negative.

    An eigensolver's error on a zero eigenvalue is about ``size * eps * max|w|``; left in, its
    square root would add ``sqrt(that)`` per dimension to the trace (1e-7 relative on rank-
    deficient covariances), hence the cut-off."""
    scale = max(float(np.abs(w).max(initial=0.0)), np.finfo(float).tiny)
    if w.size and w.min() < -_PSD_TOLERANCE * scale:
        return None
    return np.where(w > w.size * np.finfo(float).eps * scale, w, 0.0)


def _trace_sqrt_eigh(s1: np.ndarray, s2: np.ndarray) -> float | None:
    """``Tr sqrtm(s1 @ s2)`` by symmetric eigendecompositions, or ``None`` when ``s1`` or
    ``s2`` is not a symmetric PSD matrix (then only the reference's route defines it)."""
    a, b = _symmetric(s1), _symmetric(s2)
    if a is None or b is None:
        return None
    w, v = np.linalg.eigh(a)
    root_w = _nonnegative(w)
    if root_w is None:
        return None
    half = v * np.sqrt(root_w)  # V diag(sqrt w): M = half^T S2 half is similar to S1 S2
    m = half.T @ b @ half
    ev = _nonnegative(np.linalg.eigvalsh((m + m.T) / 2.0))
    if ev is None:
        return None
    return float(np.sqrt(ev).sum())


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

    diff = m1 - m2
    trace_root = _trace_sqrt_eigh(s1, s2)
    if trace_root is not None:
        return float(diff @ diff + np.trace(s1) + np.trace(s2) - 2.0 * trace_root)
    return float(diff @ diff + np.trace(s1) + np.trace(s2) - 2.0 * _trace_sqrtm(s1, s2, eps))


def _trace_sqrtm(s1: np.ndarray, s2: np.ndarray, eps: float) -> float:
    """``Tr sqrtm(s1 @ s2)`` as pytorch-fid takes it, with its safeguards (module docstring)."""
    dims = s1.shape[0]
    covmean = _sqrtm(s1 @ s2)
    if not np.isfinite(covmean).all():
        warnings.warn(
            f"{METRIC}: sqrtm(sigma1 @ sigma2) is not finite (singular product); "
            f"adding {eps} to the diagonal of both covariances",
            RuntimeWarning,
            stacklevel=3,
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
    return float(np.trace(covmean))


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
    mu_a, a = _centred(features_a, "features_a")
    mu_b, b = _centred(features_b, "features_b")
    if mu_a.shape != mu_b.shape:
        raise ValueError(
            f"{METRIC}: `features_a` and `features_b` have different feature dimensions "
            f"({mu_a.shape[0]} vs {mu_b.shape[0]} columns)"
        )
    (n_a, dims), n_b = a.shape, len(b)
    if _gram_is_cheaper(n_a, n_b, dims):
        return _fid_gram(mu_a, a, mu_b, b)
    sigma_a = np.atleast_2d(a.T @ a / (n_a - 1))
    sigma_b = np.atleast_2d(b.T @ b / (n_b - 1))
    return frechet_distance(mu_a, sigma_a, mu_b, sigma_b)


def _route_flops(n_a: int, n_b: int, dims: int) -> tuple[float, float]:
    """Floating-point operations of the two routes (LAPACK's usual counts): the Gram form's
    product and singular values, and two covariances, two products and two eigensolvers."""
    small, large = sorted((n_a, n_b))
    gram = 2.0 * n_a * n_b * dims + 4.0 * large * small**2
    covariance = (n_a + n_b) * dims**2 + 14.0 * dims**3
    return gram, covariance


def _gram_is_cheaper(n_a: int, n_b: int, dims: int) -> bool:
    gram, covariance = _route_flops(n_a, n_b, dims)
    return gram < covariance


def fid_flops(n_a: int, n_b: int, dims: int) -> float:
    """Floating-point operations :func:`fid_from_features` spends on ``n_a`` and ``n_b``
    samples of ``dims`` features (the cheaper route's count; a cost estimate)."""
    return min(_route_flops(n_a, n_b, dims))


def _fid_gram(mu_a: np.ndarray, a: np.ndarray, mu_b: np.ndarray, b: np.ndarray) -> float:
    """FID from centred features by the Gram form (module docstring); O(n1 n2 d) time, no
    d x d matrix."""
    scale = (len(a) - 1) * (len(b) - 1)
    singular = np.linalg.svd(a @ b.T, compute_uv=False)
    trace_root = float(singular.sum()) / np.sqrt(scale)
    diff = mu_a - mu_b
    trace_a = float(np.einsum("ij,ij->", a, a)) / (len(a) - 1)
    trace_b = float(np.einsum("ij,ij->", b, b)) / (len(b) - 1)
    return float(diff @ diff + trace_a + trace_b - 2.0 * trace_root)
