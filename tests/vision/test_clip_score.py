"""CLIP cosine, CLIP-S and RefCLIP-S (metricore.vision.clip_score) on known vectors, against the
reference formulas written out here, properties and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metricore.vision.clip_score import clip_cosine, clip_score, ref_clip_score, template_mean

# ------------------------------------------------------------------ plain cosine


def test_known_angles():
    images = [[1.0, 0.0], [2.0, 0.0], [1.0, 0.0], [1.0, 0.0], [0.0, 3.0]]
    texts = [[0.0, 5.0], [7.0, 0.0], [-0.5, 0.0], [1.0, math.sqrt(3.0)], [0.0, 1e-6]]
    got = clip_cosine(images, texts)
    assert got.shape == (5,)
    assert got.dtype == np.float64
    assert got.tolist() == pytest.approx([0.0, 1.0, -1.0, 0.5, 1.0], abs=1e-15)


def test_cosine_is_not_scaled_or_clipped():
    # the challenge's CLIP score can be negative and is never multiplied by 2.5
    assert clip_cosine([[1.0, 1.0]], [[-1.0, 0.0]])[0] == pytest.approx(-math.sqrt(0.5))


def test_template_mean_averages_raw_embeddings_then_normalizes():
    # ruCLIP's Predictor: mean of raw encode_text outputs over templates, then / norm.
    # Templates [3, 0] and [0, 1] average to [1.5, 0.5]; against the image [0, 1] that is
    # 0.5 / sqrt(2.5). Normalizing each template first would give [0.5, 0.5] -> sqrt(0.5).
    texts = [[[3.0, 0.0], [0.0, 1.0]]]
    got = clip_cosine([[0.0, 1.0]], texts)[0]
    assert got == pytest.approx(0.5 / math.sqrt(2.5), abs=1e-15)
    assert got != pytest.approx(math.sqrt(0.5))
    assert template_mean(texts)[0].tolist() == pytest.approx([1.5 / math.sqrt(2.5), 0.5 / math.sqrt(2.5)])
    # one template is the plain 2-D case
    assert clip_cosine([[0.0, 1.0]], [[[3.0, 1.0]]])[0] == pytest.approx(
        clip_cosine([[0.0, 1.0]], [[3.0, 1.0]])[0]
    )


def test_matches_torch_style_computation_on_random_embeddings():
    rng = np.random.default_rng(0)
    images = rng.normal(size=(50, 32))
    texts = rng.normal(size=(50, 6, 32))
    mean = texts.mean(axis=1)
    expected = np.sum(images * mean, axis=1) / (np.linalg.norm(images, axis=1) * np.linalg.norm(mean, axis=1))
    assert np.allclose(clip_cosine(images, texts), expected, atol=1e-14)
    assert np.allclose(clip_score(images, texts), 2.5 * np.clip(expected, 0, None), atol=1e-14)


def test_empty_input_gives_empty_scores():
    assert clip_cosine(np.zeros((0, 4)), np.zeros((0, 4))).shape == (0,)
    assert clip_score(np.zeros((0, 4)), np.zeros((0, 3, 4))).shape == (0,)
    assert ref_clip_score(np.zeros((0, 4)), np.zeros((0, 4)), []).shape == (0,)


# ------------------------------------------------------------------ CLIP-S


def test_clip_s_known_vectors():
    images = [[1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [1.0, 0.0]]
    texts = [[1.0, 0.0], [1.0, math.sqrt(3.0)], [0.0, 1.0], [-1.0, 0.2]]
    assert clip_score(images, texts).tolist() == pytest.approx([2.5, 1.25, 0.0, 0.0], abs=1e-15)
    assert clip_score(images, texts, w=1.0).tolist() == pytest.approx([1.0, 0.5, 0.0, 0.0], abs=1e-15)


# ------------------------------------------------------------------ RefCLIP-S


def _hm(a: float, b: float) -> float:
    return 2 * a * b / (a + b)


def test_ref_clip_s_known_vectors():
    s3 = math.sqrt(3.0)
    images = [[1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [1.0, 0.0]]
    texts = [[1.0, 0.0], [1.0, s3], [1.0, 0.0], [0.0, 1.0]]
    refs = [
        [[0.0, 1.0], [4.0, 0.0]],  # best reference identical in direction: 1
        [[1.0, 0.0]],  # 60 degrees: 0.5
        [[-1.0, 0.0], [-1.0, -0.1]],  # all negative: clipped to 0 -> harmonic mean 0
        [[1.0, 0.0]],  # image side 0 and text side 0: 0, not NaN
    ]
    got = ref_clip_score(images, texts, refs)
    assert got.tolist() == pytest.approx([_hm(2.5, 1.0), _hm(1.25, 0.5), 0.0, 0.0], abs=1e-15)
    assert got[0] == pytest.approx(5 / 3.5)
    assert ref_clip_score(images[:2], texts[:2], refs[:2], w=1.0).tolist() == pytest.approx(
        [1.0, 0.5], abs=1e-15
    )


def test_ref_clip_s_reference_layouts():
    rng = np.random.default_rng(3)
    images, texts = rng.random((4, 8)), rng.random((4, 3, 8))
    refs = rng.random((4, 5, 8))
    from_array = ref_clip_score(images, texts, refs)
    from_list = ref_clip_score(images, texts, [r for r in refs])
    assert np.array_equal(from_array, from_list)
    # templated references: (n, refs, templates, d), averaged like the candidate's templates
    refs_t = rng.random((4, 2, 3, 8))
    assert np.allclose(
        ref_clip_score(images, texts, refs_t), ref_clip_score(images, texts, refs_t.mean(axis=2))
    )
    # a different number of references per item
    ragged = [rng.random((k, 8)) for k in (1, 2, 3, 4)]
    assert ref_clip_score(images, texts, ragged).shape == (4,)


def test_ref_clip_s_matches_clipscore_repo_formula_on_positive_embeddings():
    """jmhessel/clipscore: per = w * clip(cos(image, cand), 0); text = max over refs of
    cos(cand, ref) (unclipped, non-negative here); RefCLIP-S = 2 per text / (per + text)."""
    rng = np.random.default_rng(11)
    images, cands = rng.random((30, 16)), rng.random((30, 16))
    refs = [rng.random((int(k), 16)) for k in rng.integers(1, 6, size=30)]

    def unit(x):
        return x / np.sqrt(np.sum(x**2, axis=-1, keepdims=True))

    per = 2.5 * np.clip(np.sum(unit(images) * unit(cands), axis=1), 0, None)
    text = np.array([np.max(unit(c) @ unit(r).T) for c, r in zip(cands, refs)])
    expected = 2 * per * text / (per + text)
    assert np.allclose(ref_clip_score(images, cands, refs), expected, atol=1e-14)


# ------------------------------------------------------------------ properties

_vectors = st.lists(st.floats(-10.0, 10.0, allow_nan=False), min_size=3, max_size=3).filter(
    lambda v: math.sqrt(sum(x * x for x in v)) > 1e-3
)


@settings(max_examples=100, deadline=None)
@given(_vectors, _vectors, st.floats(0.01, 100.0))
def test_cosine_range_symmetry_and_scale_invariance(a, b, k):
    cos = clip_cosine([a], [b])[0]
    assert -1.0 <= cos <= 1.0
    assert clip_cosine([b], [a])[0] == pytest.approx(cos, abs=1e-12)
    assert clip_cosine([[k * x for x in a]], [b])[0] == pytest.approx(cos, abs=1e-12)
    assert clip_cosine([[-x for x in a]], [b])[0] == pytest.approx(-cos, abs=1e-12)
    assert clip_score([a], [b])[0] == pytest.approx(2.5 * max(cos, 0.0), abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(_vectors, _vectors, st.lists(_vectors, min_size=1, max_size=4), st.floats(0.1, 10.0))
def test_ref_clip_s_range(image, cand, refs, w):
    value = ref_clip_score([image], [cand], [refs], w=w)[0]
    clip_s = clip_score([image], [cand], w=w)[0]
    assert 0.0 <= value <= 2 * w / (w + 1) + 1e-12
    # a harmonic mean never exceeds twice its smaller side
    assert value <= 2 * clip_s + 1e-12


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("images", "texts", "error", "match"),
    [
        ([[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]], ValueError, "must pair one to one, got 1 and 2 rows"),
        ([[1.0, 0.0]], [[1.0, 0.0, 0.0]], ValueError, r"different dimensions \(2 vs 3\)"),
        (
            [[1.0, 0.0], [0.0, 0.0]],
            [[1.0, 0.0], [1.0, 0.0]],
            ValueError,
            r"`image_embeddings\[1\]` has zero norm",
        ),
        ([[1.0, 0.0]], [[[1.0, 0.0], [-1.0, 0.0]]], ValueError, r"`text_embeddings\[0\]` has zero norm"),
        ([1.0, 0.0], [1.0, 0.0], ValueError, r"`image_embeddings` must be 2-D, got shape \(2,\)"),
        ([[1.0, 0.0]], np.zeros((1, 1, 1, 2)), ValueError, "`text_embeddings` must be 2-D or 3-D"),
        ([[1.0, float("nan")]], [[1.0, 0.0]], ValueError, r"`image_embeddings\[0, 1\]` is not finite"),
        ([[1.0, 0.0]], np.zeros((1, 0, 2)), ValueError, "no prompt templates"),
        ("image", [[1.0]], TypeError, "numeric array"),
    ],
)
def test_clip_cosine_bad_input(images, texts, error, match):
    with pytest.raises(error, match=match) as info:
        clip_cosine(images, texts)
    assert str(info.value).startswith("CLIP: ")


def test_clip_s_and_ref_clip_s_bad_input():
    one, two = [[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]]
    with pytest.raises(ValueError, match="CLIP-S: `w` must be a positive finite number"):
        clip_score(one, one, w=0.0)
    with pytest.raises(TypeError, match="CLIP-S: `w` must be a number"):
        clip_score(one, one, w=True)
    with pytest.raises(ValueError, match="CLIP-S: `image_embeddings` and `text_embeddings` must pair"):
        clip_score(one, two)
    with pytest.raises(
        ValueError, match="RefCLIP-S: `reference_text_embeddings` has 1 items for 2 candidates"
    ):
        ref_clip_score(two, two, [[[1.0, 0.0]]])
    with pytest.raises(ValueError, match=r"RefCLIP-S: `reference_text_embeddings\[1\]` has no references"):
        ref_clip_score(two, two, [[[1.0, 0.0]], np.zeros((0, 2))])
    with pytest.raises(ValueError, match=r"RefCLIP-S: `reference_text_embeddings\[0\]` has dimension 3"):
        ref_clip_score(one, one, [[[1.0, 0.0, 0.0]]])
    with pytest.raises(ValueError, match=r"RefCLIP-S: `reference_text_embeddings\[0\]\[1\]` has zero norm"):
        ref_clip_score(one, one, [[[1.0, 0.0], [0.0, 0.0]]])
    with pytest.raises(ValueError, match=r"`reference_text_embeddings\[0\]` must be 2-D or 3-D"):
        ref_clip_score(one, one, [[1.0, 0.0]])
    with pytest.raises(TypeError, match="RefCLIP-S: `reference_text_embeddings` must be an array"):
        ref_clip_score(one, one, "refs")
    with pytest.raises(ValueError, match="RefCLIP-S: `reference_text_embeddings` must be 3-D or 4-D"):
        ref_clip_score(one, one, np.ones((1, 2)))


def test_package_exports_keep_the_submodules_reachable():
    import types

    import metricore
    from metricore.vision import clip_score as module

    # re-exporting the function clip_score would shadow the submodule of the same name
    assert isinstance(module, types.ModuleType)
    assert metricore.clip_cosine is clip_cosine and metricore.ref_clip_score is ref_clip_score
