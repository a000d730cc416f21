"""The ``clovaai`` config of 1-NED against deep-text-recognition-benchmark's evaluation loop
(:func:`tests.oracles.ned_ref.clovaai_case_insensitive`): accuracy, per-item 1-NED and the
mean, on generated OCR strings (mixed case, punctuation, non-ASCII letters, empty strings)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metricore import compute_one_minus_ned
from metricore.registry import get
from tests import gen
from tests.oracles import ned_ref


def _noisy(rng: random.Random, s: str) -> str:
    extra = rng.choice(["", "!", ".", " ", "É", "ß", "İ", "-", "'", "ｱ", "Ⅻ", "²"])
    s = s.upper() if rng.random() < 0.3 else s
    return s + extra if rng.random() < 0.5 else extra + s


@pytest.fixture(scope="module")
def items():
    preds, golds = gen.ned_items(seed=733, n=6_000)
    rng = random.Random(7)
    return [_noisy(rng, p) for p in preds], [_noisy(rng, g[0]) for g in golds]


def test_matches_the_benchmark_loop(items):
    preds, golds = items
    accuracy, mean, scores, correct = ned_ref.clovaai_case_insensitive(preds, golds)
    r = compute_one_minus_ned(preds, golds, variant="clovaai")
    assert max(abs(a - b) for a, b in zip(r.scores, scores)) <= 1e-12
    assert r.correct == [float(c) for c in correct]
    assert abs(r.one_minus_ned - mean) <= 1e-12 and abs(r.accuracy - accuracy) <= 1e-9
    assert 0 < sum(correct) < len(correct)  # the sweep has both outcomes
    assert any(not ned_ref.clovaai_case_insensitive([p], [g])[2][0] for p, g in zip(preds, golds))


def test_icdar2019_is_unchanged_and_has_no_accuracy(items):
    preds, golds = items
    r = compute_one_minus_ned(preds, golds)
    assert r.accuracy is None and "accuracy" not in r.as_dict()
    assert r.scores == pytest.approx(ned_ref.icdar_one_minus_ned(preds, golds)[1], abs=1e-12)


def test_several_golds_count_any_exact_match():
    r = compute_one_minus_ned(["W0rld", "abc"], [["xyz", "w0rld!"], ["abd", "ABD"]], variant="clovaai")
    assert r.correct == [1.0, 0.0] and r.accuracy == 50.0
    assert r.closest == ["w0rld!", "abd"]


def test_vectors():
    r = compute_one_minus_ned(["Hello!", "café", "!!", ""], ["HELLO", "cafe", "..", "a"], variant="clovaai")
    # café -> caf (é deleted); !! and .. are both empty: equal (accuracy) but 1-NED 0 (ICDAR 2019)
    assert r.correct == [1.0, 0.0, 1.0, 0.0] and r.scores == [1.0, 0.75, 0.0, 0.0]
    assert r.signature == "one_minus_ned|variant:clovaai|version:" + r.signature.rsplit(":", 1)[1]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=12), st.text(max_size=12)), min_size=1, max_size=8))
def test_property_equals_the_loop(pairs):
    preds, golds = [p for p, _ in pairs], [g for _, g in pairs]
    accuracy, mean, scores, _ = ned_ref.clovaai_case_insensitive(preds, golds)
    r = get("one_minus_ned").run("clovaai", preds, golds)
    assert r.scores == pytest.approx(scores, abs=1e-12)
    assert r.accuracy == pytest.approx(accuracy, abs=1e-9) and 0.0 <= r.accuracy <= 100.0
