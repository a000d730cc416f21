"""CLIP image-text agreement from precomputed embeddings: the plain cosine, CLIP-S, RefCLIP-S.

Three named variants, all per pair (callers average them):

- :func:`clip_cosine`: the cosine of the L2-normalized image and text embeddings, as the
  FusionBrain Challenge 2.0 scores ImageGeneration and ImageCaptioning
  (ai-forever/fbc2_aij2022 ``evaluation/generation/metrics/ruclip.py`` and
  ``evaluation/captioning/metrics/ruclip_score.py``: ``image_latents @ text_latents.T`` with
  ruCLIP's ``Predictor``). No scaling and no clipping at 0: it can be negative.
- :func:`clip_score`: CLIP-S of Hessel et al. 2021 ("CLIPScore: A Reference-free Evaluation
  Metric for Image Captioning", EMNLP), ``w * max(cos, 0)`` with ``w = 2.5`` (jmhessel/clipscore
  ``get_clip_score``).
- :func:`ref_clip_score`: RefCLIP-S of the same paper, the harmonic mean of CLIP-S and
  ``max(max_r cos(candidate, r), 0)`` over the item's reference texts (jmhessel/clipscore
  ``get_refonlyclipscore`` and ``main``). The text-text side is not scaled by ``w``.

Prompt templates: ``text_embeddings`` may be ``(n, d)`` or ``(n, templates, d)``. The text
embedding is then the mean of the raw (unnormalized) template embeddings, normalized after
averaging, as ruCLIP's ``Predictor.get_text_latents`` does (it averages ``encode_text``
outputs over its templates and only then divides by the norm); the templates are not
normalized one by one. :func:`template_mean` exposes that step.

Numbers: float64 throughout; cosines are clipped to [-1, 1] against rounding. A zero-norm
embedding (the cosine is undefined) is an error, not NaN.

>>> clip_cosine([[1.0, 0.0], [1.0, 1.0]], [[0.0, 2.0], [3.0, 3.0]]).tolist()
[0.0, 1.0]
>>> clip_score([[1.0, 0.0]], [[-1.0, 0.0]]).tolist()
[0.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from metricore.core._arrays import float_array
from metricore.core.validation import check_number

__all__ = ["CLIP_S_WEIGHT", "clip_cosine", "clip_score", "ref_clip_score", "template_mean"]

CLIP_S_WEIGHT = 2.5
"""Hessel et al.'s rescaling weight ``w`` of CLIP-S."""


def _unit_rows(x: np.ndarray, metric: str, name: str) -> np.ndarray:
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    zero = norms[..., 0] == 0.0
    if zero.any():
        index = "".join(f"[{int(i)}]" for i in np.argwhere(zero)[0])
        raise ValueError(f"{metric}: `{name}{index}` has zero norm; its cosine is undefined")
    return x / norms


def _texts(text_embeddings: Any, metric: str, name: str) -> np.ndarray:
    """(n, d) unit text embeddings from ``(n, d)`` or ``(n, templates, d)``."""
    t = float_array(text_embeddings, metric, name, (2, 3))
    if t.ndim == 3:
        if t.shape[1] == 0:
            raise ValueError(f"{metric}: `{name}` has no prompt templates (shape {t.shape})")
        t = t.mean(axis=1)
    return _unit_rows(t, metric, name)


def template_mean(text_embeddings: Any) -> np.ndarray:
    """Unit text embeddings ``(n, d)``: the template mean of ``(n, templates, d)`` raw
    embeddings (normalized after averaging, as ruCLIP), or the rows of ``(n, d)`` normalized.

    >>> template_mean([[[3.0, 0.0], [0.0, 1.0]]]).round(4).tolist()
    [[0.9487, 0.3162]]
    """
    return _texts(text_embeddings, "CLIP", "text_embeddings")


def _cosines(image_embeddings: Any, text_embeddings: Any, metric: str) -> tuple[np.ndarray, np.ndarray]:
    """(per-pair cosines, unit text embeddings)."""
    images = float_array(image_embeddings, metric, "image_embeddings", (2,))
    texts = float_array(text_embeddings, metric, "text_embeddings", (2, 3))
    if images.shape[0] != texts.shape[0]:
        raise ValueError(
            f"{metric}: `image_embeddings` and `text_embeddings` must pair one to one, "
            f"got {images.shape[0]} and {texts.shape[0]} rows"
        )
    if images.shape[-1] != texts.shape[-1]:
        raise ValueError(
            f"{metric}: `image_embeddings` and `text_embeddings` have different dimensions "
            f"({images.shape[-1]} vs {texts.shape[-1]})"
        )
    unit_texts = _texts(texts, metric, "text_embeddings")
    unit_images = _unit_rows(images, metric, "image_embeddings")
    cos = np.einsum("nd,nd->n", unit_images, unit_texts)
    return np.clip(cos, -1.0, 1.0), unit_texts


def clip_cosine(image_embeddings: Any, text_embeddings: Any) -> np.ndarray:
    """Per-pair plain cosine of image and text embeddings (the FusionBrain CLIP score).

    ``image_embeddings``: ``(n, d)``; ``text_embeddings``: ``(n, d)`` or ``(n, templates, d)``
    (template mean, see :func:`template_mean`). Returns ``n`` values in [-1, 1].

    >>> clip_cosine([[1.0, 0.0]], [[[1.0, 1.0], [1.0, -1.0]]]).tolist()
    [1.0]
    """
    return _cosines(image_embeddings, text_embeddings, "CLIP")[0]


def _weight(w: Any, metric: str) -> float:
    value = check_number(w, metric, "w", 0.0, np.inf)
    if value == 0.0 or np.isinf(value):
        raise ValueError(f"{metric}: `w` must be a positive finite number, got {value}")
    return value


def clip_score(image_embeddings: Any, text_embeddings: Any, w: float = CLIP_S_WEIGHT) -> np.ndarray:
    """Per-pair CLIP-S (Hessel et al. 2021): ``w * max(cos, 0)``, in ``[0, w]``.

    >>> clip_score([[1.0, 0.0]], [[1.0, 1.0]]).round(6).tolist()
    [1.767767]
    """
    metric = "CLIP-S"
    weight = _weight(w, metric)
    cos, _ = _cosines(image_embeddings, text_embeddings, metric)
    return weight * np.maximum(cos, 0.0)


def _references(value: Any, n: int, metric: str) -> list[np.ndarray]:
    """Per item, its ``(k, d)`` reference embeddings (template means when ``(k, templates, d)``)."""
    name = "reference_text_embeddings"
    if isinstance(value, np.ndarray):
        arr = float_array(value, metric, name, (3, 4))
        rows: Sequence[Any] = list(arr)
    else:
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            raise TypeError(
                f"{metric}: `{name}` must be an array (n, refs, d) or a list with one "
                f"(refs, d) array per item, got {type(value).__name__}"
            )
        rows = value
    if len(rows) != n:
        raise ValueError(f"{metric}: `{name}` has {len(rows)} items for {n} candidates")
    out = []
    for i, row in enumerate(rows):
        where = f"{name}[{i}]"
        refs = float_array(row, metric, where, (2, 3))
        if refs.shape[0] == 0:
            raise ValueError(f"{metric}: `{where}` has no references")
        out.append(_texts(refs, metric, where))
    return out


def ref_clip_score(
    image_embeddings: Any,
    text_embeddings: Any,
    reference_text_embeddings: Any,
    w: float = CLIP_S_WEIGHT,
) -> np.ndarray:
    """Per-pair RefCLIP-S (Hessel et al. 2021): harmonic mean of CLIP-S and the best
    reference similarity ``max(max_r cos(candidate text, r), 0)``.

    ``reference_text_embeddings``: an array ``(n, refs, d)`` (or ``(n, refs, templates, d)``),
    or a list of ``n`` arrays ``(refs_i, d)`` (or ``(refs_i, templates, d)``) when items have
    different numbers of references. Templates are averaged as for the candidate text.

    As in jmhessel/clipscore, CLIP-S enters with its ``w`` (so the result lies in
    ``[0, 2w/(w+1)]``) and the text-text cosine without it. Two choices where that code is
    silent: the text-text side is clipped at 0 as the paper's definition writes (the code
    takes the raw maximum; they agree whenever it is non-negative, as it is for CLIP text
    embeddings in practice), and a pair whose two sides are both 0 scores 0 (the code's
    ``0/0`` gives NaN).

    >>> ref_clip_score([[1.0, 0.0]], [[1.0, 0.0]], [[[0.0, 1.0], [1.0, 0.0]]]).round(6).tolist()
    [1.428571]
    """
    metric = "RefCLIP-S"
    weight = _weight(w, metric)
    cos, candidates = _cosines(image_embeddings, text_embeddings, metric)
    refs = _references(reference_text_embeddings, len(cos), metric)
    dims = candidates.shape[1] if len(cos) else None
    text_side = np.empty(len(cos))
    for i, r in enumerate(refs):
        if r.shape[1] != dims:
            raise ValueError(
                f"{metric}: `reference_text_embeddings[{i}]` has dimension {r.shape[1]}, "
                f"the candidates {dims}"
            )
        text_side[i] = max(float(np.max(r @ candidates[i])), 0.0)
    text_side = np.minimum(text_side, 1.0)
    image_side = weight * np.maximum(cos, 0.0)
    total = image_side + text_side
    safe = np.where(total > 0.0, total, 1.0)
    return np.where(total > 0.0, 2.0 * image_side * text_side / safe, 0.0)
