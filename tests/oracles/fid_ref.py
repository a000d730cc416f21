"""Test oracle for FID: pytorch-fid's formula (see :func:`pytorch_fid_formula`)."""

from __future__ import annotations

import warnings

import numpy as np
from scipy import linalg

__all__ = ["pytorch_fid_formula"]


def pytorch_fid_formula(a: np.ndarray, b: np.ndarray, eps: float = 1e-6) -> float:
    """pytorch-fid 0.3.0 ``calculate_activation_statistics`` + ``calculate_frechet_distance``
    (src/pytorch_fid/fid_score.py), transcribed step by step: sqrtm of the product, the eps
    offset when it is not finite, the 1e-3 imaginary-diagonal check, then the trace formula.
    (The package itself needs torchvision, which this environment does not install.)"""
    mu1, sigma1 = np.mean(a, axis=0), np.atleast_2d(np.cov(a, rowvar=False))
    mu2, sigma2 = np.mean(b, axis=0), np.atleast_2d(np.cov(b, rowvar=False))
    diff = mu1 - mu2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", linalg.LinAlgWarning)
        covmean = linalg.sqrtm(sigma1.dot(sigma2))
        if not np.isfinite(covmean).all():
            offset = np.eye(sigma1.shape[0]) * eps
            covmean = linalg.sqrtm((sigma1 + offset).dot(sigma2 + offset))
    if np.iscomplexobj(covmean):
        assert np.allclose(np.diagonal(covmean).imag, 0, atol=1e-3)
        covmean = covmean.real
    return float(diff.dot(diff) + np.trace(sigma1) + np.trace(sigma2) - 2 * np.trace(covmean))
