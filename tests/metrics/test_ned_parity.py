"""1-NED and CER parity against the ICDAR 2019 / deep-text-recognition-benchmark rule.

References (:mod:`tests.oracles.ned_ref`): (a) ``editdistance.eval`` as the original code
uses, (b) a pure-Python dynamic program. Every per-item score is compared with an absolute
tolerance of 1e-9, distances and gold lengths exactly, and the mean and CER to 1e-9.
"""

from __future__ import annotations

import math

import pytest

from metricore import compute_one_minus_ned
from tests import gen
from tests.oracles import ned_ref

TOL = 1e-9
MAX_DIFF: dict[str, float] = {}
CHECKED: dict[str, int] = {}


def assert_close(label, got, expected, inputs=None):
    assert len(got) == len(expected)
    diffs = [abs(a - b) for a, b in zip(got, expected)]
    MAX_DIFF[label] = max(MAX_DIFF.get(label, 0.0), max(diffs))
    CHECKED[label] = CHECKED.get(label, 0) + len(got)
    bad = [i for i, d in enumerate(diffs) if not d <= TOL]
    if bad:
        lines = [f"{label}: {len(bad)} of {len(got)} differ"]
        for i in bad[:8]:
            lines.append(
                f"  [{i}] got {got[i]!r} expected {expected[i]!r} {inputs[i] if inputs is not None else ''!r}"
            )
        pytest.fail("\n".join(lines))


def check_against_reference(label, preds, golds, result, ed=ned_ref.ed_editdistance, **options):
    mean, cer, scores, dists, lengths, chosen = ned_ref.reference(preds, golds, ed=ed, **options)
    inputs = list(zip(preds, golds))
    assert_close(label, result.scores, scores, inputs)
    assert result.distances == dists, label
    assert result.reference_lengths == lengths, label
    assert result.closest == [g[k] for g, k in zip(golds, chosen)], label
    assert abs(result.one_minus_ned - mean) <= TOL, label
    assert abs(result.cer - cer) <= TOL, label


# ---------------------------------------------------------------------------------------
# SPECS section 5 vectors

NED_VECTORS = [
    ("хор", "хор", 1.0),
    ("abd", "abc", 0.6667),
    ("sitting", "kitten", 0.5714),
    ("", "", 0.0),
    ("", "abc", 0.0),
    ("Хор", "хор", 0.6667),
    ("ba", "ab", 0.0),
]


@pytest.mark.parametrize(("pred", "gold", "expected"), NED_VECTORS)
def test_specs_vectors(pred, gold, expected):
    result = compute_one_minus_ned([pred], [gold])
    assert result.scores[0] == pytest.approx(expected, abs=5e-5)
    assert abs(result.scores[0] - ned_ref.icdar_one_minus_ned([pred], [gold])[0]) <= TOL
    assert abs(result.scores[0] - ned_ref.dp_one_minus_ned([pred], [gold])[0]) <= TOL


def test_specs_vectors_together():
    preds = [p for p, _, _ in NED_VECTORS]
    golds = [g for _, g, _ in NED_VECTORS]
    result = compute_one_minus_ned(preds, golds)
    mean, _ = ned_ref.icdar_one_minus_ned(preds, golds)
    assert abs(result.one_minus_ned - mean) <= TOL
    # CER = sum of distances / sum of gold lengths: 0 + 1 + 3 + 0 + 3 + 1 + 2 over 3+3+6+0+3+3+2
    assert result.cer == pytest.approx(10 / 20)


def test_empty_pair_policy_vectors():
    assert compute_one_minus_ned([""], [""]).scores == [0.0]
    assert compute_one_minus_ned([""], [""], empty_pair="one").scores == [1.0]
    assert compute_one_minus_ned(["abc"], [""], empty_pair="one").scores == [0.0]
    assert compute_one_minus_ned([""], ["abc"], empty_pair="one").scores == [0.0]


def test_case_and_nfkc_vectors():
    assert compute_one_minus_ned(["Хор"], ["хор"], lowercase=True).scores == [1.0]
    assert compute_one_minus_ned(["ＡＢＣ１２３"], ["ABC123"], nfkc=True).scores == [1.0]
    assert compute_one_minus_ned(["ＡＢＣ"], ["abc"], nfkc=True, lowercase=True).scores == [1.0]
    assert compute_one_minus_ned(["ＡＢＣ"], ["ABC"]).scores == [0.0]


# ---------------------------------------------------------------------------------------
# generated sweeps


@pytest.fixture(scope="module")
def items():
    preds, golds = gen.ned_items(seed=601, n=20_000)
    return preds, [g[0] for g in golds]


def test_single_gold_parity_editdistance(items):
    preds, golds = items
    result = compute_one_minus_ned(preds, golds)
    mean, scores = ned_ref.icdar_one_minus_ned(preds, golds)
    assert_close("ned-editdistance", result.scores, scores, list(zip(preds, golds)))
    assert abs(result.one_minus_ned - mean) <= TOL
    dists = [ned_ref.ed_editdistance(p, g) for p, g in zip(preds, golds)]
    assert result.distances == dists
    assert result.reference_lengths == [len(g) for g in golds]
    assert abs(result.cer - ned_ref.cer(dists, [len(g) for g in golds])) <= TOL
    assert result.closest == golds


def test_single_gold_parity_dp(items):
    preds, golds = items
    result = compute_one_minus_ned(preds, golds)
    mean, scores = ned_ref.dp_one_minus_ned(preds, golds)
    assert_close("ned-dp", result.scores, scores, list(zip(preds, golds)))
    assert abs(result.one_minus_ned - mean) <= TOL
    dists = [ned_ref.ed_dp(p, g) for p, g in zip(preds, golds)]
    assert result.distances == dists
    assert abs(result.cer - ned_ref.cer(dists, [len(g) for g in golds])) <= TOL


def test_sweep_has_empty_strings(items):
    preds, golds = items
    assert sum(p == "" for p in preds) > 100
    assert sum(g == "" for g in golds) > 100
    assert sum(p == g == "" for p, g in zip(preds, golds)) > 0


@pytest.mark.parametrize(
    "options",
    [
        {"empty_pair": "one"},
        {"lowercase": True},
        {"nfkc": True},
        {"nfkc": True, "lowercase": True},
        {"empty_pair": "one", "lowercase": True, "nfkc": True},
    ],
    ids=lambda o: "+".join(f"{k}={v}" for k, v in o.items()),
)
def test_option_parity(items, options):
    preds, golds = items[0][:8000], items[1][:8000]
    singles = [[g] for g in golds]
    result = compute_one_minus_ned(preds, golds, **options)
    check_against_reference("ned-" + "+".join(options), preds, singles, result, **options)
    if options.get("nfkc") or options.get("lowercase"):
        # the options change something on this data, or the test proves nothing
        assert result.scores != compute_one_minus_ned(preds, golds).scores


def test_option_parity_dp(items):
    preds, golds = items[0][:3000], [[g] for g in items[1][:3000]]
    options = {"empty_pair": "one", "lowercase": True, "nfkc": True}
    result = compute_one_minus_ned(preds, golds, **options)
    check_against_reference("ned-dp-options", preds, golds, result, ed=ned_ref.ed_dp, **options)


def test_empty_pair_one_on_many_empty_pairs():
    preds = ["", "", "a", "", "ab", "Ａ"] * 50
    golds = ["", "a", "", "", "ab", "A"] * 50
    for options in ({}, {"empty_pair": "one"}, {"empty_pair": "one", "nfkc": True}):
        result = compute_one_minus_ned(preds, golds, **options)
        check_against_reference("ned-empties", preds, [[g] for g in golds], result, **options)


@pytest.fixture(scope="module")
def multi_items():
    return gen.ned_items(seed=602, n=10_000, max_golds=4)


@pytest.mark.parametrize("options", [{}, {"empty_pair": "one"}, {"lowercase": True, "nfkc": True}])
def test_several_golds_parity(multi_items, options):
    preds, golds = multi_items
    assert sum(len(g) > 1 for g in golds) > 5000
    result = compute_one_minus_ned(preds, golds, **options)
    check_against_reference("ned-multi-" + "+".join(options), preds, golds, result, **options)


def test_several_golds_cer_tie_breaks():
    # equal similarity (0.5), distances 2 and 1: the smaller distance feeds CER
    r = compute_one_minus_ned(["ab"], [["abcd", "aX"]])
    assert r.scores == [0.5]
    assert r.distances == [1] and r.reference_lengths == [2] and r.closest == ["aX"]
    # an empty prediction scores 0 against every gold: the nearest gold still feeds CER
    r = compute_one_minus_ned([""], [["abc", "a", "ab"]])
    assert r.distances == [1] and r.closest == ["a"]
    # equal similarity 0.8 and equal distance 1, gold lengths 4 and 5: the first gold wins
    for golds in (["abcd", "abcdf"], ["abcdf", "abcd"]):
        r = compute_one_minus_ned(["abcde"], [golds])
        assert r.closest == [golds[0]]
        assert r.reference_lengths == [len(golds[0])]
        check_against_reference("ned-ties", ["abcde"], [golds], r)
    # a better similarity wins over a smaller distance
    r = compute_one_minus_ned(["abcdefghij"], [["abcdefghiX", "a"]])
    assert r.closest == ["abcdefghiX"]


def test_cer_edge_cases():
    assert compute_one_minus_ned([""], [""]).cer == 0.0
    assert math.isinf(compute_one_minus_ned(["a"], [""]).cer)
    assert compute_one_minus_ned(["abc", ""], ["abc", "abcd"]).cer == pytest.approx(4 / 7)
