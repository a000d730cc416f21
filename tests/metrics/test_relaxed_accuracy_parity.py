"""Relaxed accuracy parity: metricore against ``tests/oracles/pix2struct_ref.py`` (pix2struct's
``relaxed_correctness`` and ``aggregate_metrics``; Qwen-VL's swapped call).

SPECS vectors; 50,000 generated ChartQA-like questions (``tests/gen_vqa.chart_answers``:
integers, decimals, percentages, zeros in every spelling, thousands separators, exponents,
``inf``/``nan``, whitespace, words; 1-3 golds; predictions at the 5% edges) under several
tolerances and every option; and hypothesis-drawn strings. Per question, exactly.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metricore.metrics.relaxed_accuracy import compute_relaxed_accuracy, relaxed_number
from tests.gen_vqa import chart_answers
from tests.oracles import pix2struct_ref

N_GENERATED = 50_000


def _pix2struct(preds, refs, tol=0.05):
    per: list[bool] = []
    total = pix2struct_ref.aggregate_metrics(
        refs, preds, lambda t, p: pix2struct_ref.relaxed_correctness(t, p, tol), per_question=per
    )
    return [float(x) for x in per], total


# restatements of the copies' variants, built on the reference function as the copies are
def _case_kept(target: str, prediction: str, tol: float = 0.05) -> bool:
    """``relaxed_correctness`` with ``prediction == target`` for text."""
    same_as_text = pix2struct_ref.relaxed_correctness(target, prediction, tol)
    numeric = _num(prediction) is not None and bool(_num(target))
    return same_as_text if numeric else prediction == target


def _num(text: str) -> float | None:
    try:
        return float(text.rstrip("%")) / 100.0 if text.endswith("%") else float(text)
    except ValueError:
        return None


def _commas_read(target: str, prediction: str, tol: float = 0.05) -> bool:
    """Numbers read with commas deleted; text compared as given."""
    t, p = _num(target.replace(",", "")), _num(prediction.replace(",", ""))
    if p is not None and t:
        return abs(p - t) / abs(t) <= tol
    return prediction.lower() == target.lower()


def test_specs_vectors():
    rc = pix2struct_ref.relaxed_correctness
    assert rc("0.125", "12.5%") and rc("0", "0") and not rc("0", "0.0")
    assert rc("10", "10.4") and not rc("10", "10.6") and rc("Brazil", "brazil")
    r = compute_relaxed_accuracy(
        ["12.5%", "0", "0.0", "10.4", "10.6", "brazil"], ["0.125", "0", "0", "10", "10", "Brazil"]
    )
    assert r.scores == [1.0, 1.0, 0.0, 1.0, 0.0, 1.0]


def test_several_golds_the_best_counts():
    r = compute_relaxed_accuracy(["9", "x", "5"], [["7", "9.2", "100"], ["a", "X"], ["1", "2"]])
    assert r.scores == [1.0, 1.0, 0.0]
    assert r.closest == ["9.2", "X", "1"]  # the first correct gold, else the first


@pytest.fixture(scope="module")
def generated():
    return chart_answers(N_GENERATED, seed=11)


@pytest.mark.parametrize("tol", [0.05, 0.0, 0.01, 0.1, 0.5])
def test_generated_pix2struct(generated, tol):
    preds, refs = generated
    want, total = _pix2struct(preds, refs, tol)
    r = compute_relaxed_accuracy(preds, refs, max_relative_change=tol)
    assert r.scores == want
    assert 100.0 * r.relaxed_accuracy == pytest.approx(total, abs=1e-9)
    assert 0.2 < r.relaxed_accuracy < 0.9  # the set exercises both outcomes


def test_generated_qwen_vl(generated):
    preds, refs = generated
    want, mean = pix2struct_ref.qwen_relaxed_accuracy(
        [{"answer": p, "annotation": r} for p, r in zip(preds, refs)]
    )
    r = compute_relaxed_accuracy(preds, refs, swapped=True, strip=True)
    assert r.scores == [float(x) for x in want] and r.relaxed_accuracy == mean
    assert r.scores != compute_relaxed_accuracy(preds, refs).scores


@pytest.mark.parametrize(
    ("options", "oracle"),
    [
        ({"lowercase": False}, _case_kept),
        ({"number_commas": True}, _commas_read),
        ({"swapped": True}, lambda t, p, tol=0.05: pix2struct_ref.relaxed_correctness(p, t, tol)),
    ],
    ids=["lowercase=False", "number_commas", "swapped"],
)
def test_generated_options(generated, options, oracle):
    preds, refs = generated
    want = [float(max(oracle(t, p) for t in golds)) for p, golds in zip(preds, refs)]
    got = compute_relaxed_accuracy(preds, refs, **options).scores
    assert got == want
    assert got != compute_relaxed_accuracy(preds, refs).scores


NUMBERISH = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(-(10**20), 10**20).map(str),
    st.decimals(allow_nan=False, allow_infinity=False, places=3).map(str),
    st.text(alphabet=st.sampled_from(list("0123456789.,%-+e _ nafiINF٣")), max_size=8),
    st.sampled_from(
        ["0", "-0", "0.0", "0%", "%", "5%%", "inf", "-Infinity", "NaN", " 7 ", "1_0", "Yes", "yes"]
    ),
)
ANY = st.one_of(NUMBERISH, st.text(max_size=6))


@settings(max_examples=800, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    pred=ANY,
    golds=st.lists(ANY, min_size=1, max_size=3),
    tol=st.sampled_from([0.0, 0.05, 0.2, 1.0]),
    swapped=st.booleans(),
)
def test_drawn_strings(pred, golds, tol, swapped):
    fn = pix2struct_ref.relaxed_correctness
    want = max(fn(p, t, tol) if swapped else fn(t, p, tol) for t, p in ((g, pred) for g in golds))
    got = compute_relaxed_accuracy([pred], [golds], max_relative_change=tol, swapped=swapped).scores
    assert got == [float(want)]


@settings(max_examples=800, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=ANY)
def test_number_reading_equals_float(text):
    """The pre-check that skips ``float`` never skips a text ``float`` reads."""
    want = _num(text)
    got = relaxed_number(text)
    assert (got is None) == (want is None)
    if want is not None:
        assert got == want or (got != got and want != want)
