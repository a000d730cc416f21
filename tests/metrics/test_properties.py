"""Property tests (hypothesis) for ANLS (every variant) and 1-NED.

Properties: scores in [0, 1]; identity (a prediction equal to a gold scores 1, except
1-NED on empty strings under the default ICDAR policy, which scores 0); the order of gold
alternatives does not matter; results are deterministic; inputs are never mutated; the
reported mean is the mean of the per-item scores; a higher threshold never raises a score;
1-NED is symmetric in (prediction, gold) for a single gold.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from metricore import compute_anls, compute_one_minus_ned
from tests import gen

# database=None: nothing is written under the repository (.hypothesis/)
SETTINGS = settings(
    max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
STRING_VARIANTS = ("docvqa", "stvqa_paper", "anls_star", "dude")

# characters that stress the normalizers (upper/lower changing lengths, non-ASCII spaces,
# combining marks, full-width forms), plus anything hypothesis likes
_chars = st.one_of(
    st.sampled_from([c for c in list("abcAB xyz01") + gen.TRICKY_CHARS + gen.WHITESPACE if len(c) == 1]),
    st.characters(exclude_categories=("Cs",)),
)
text = st.text(alphabet=_chars, max_size=12)
golds_st = st.lists(text, min_size=1, max_size=4)
thresholds = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@st.composite
def string_questions(draw, min_size=1, max_size=5):
    n = draw(st.integers(min_size, max_size))
    golds = [draw(golds_st) for _ in range(n)]
    preds = []
    for g in golds:
        # half of the predictions are near a gold, half are anything
        if draw(st.booleans()):
            base = draw(st.sampled_from(g))
            preds.append(draw(st.sampled_from([base, base.upper(), base[:-1], base + "x", " " + base])))
        else:
            preds.append(draw(text))
    return preds, golds


_leaf = st.one_of(
    text,
    st.integers(-1000, 1000),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.booleans(),
    st.none(),
)
_keys = st.sampled_from(["a", "b", "name", "total", "items", "date"])


def _containers(children, with_tuples):
    options = [
        st.lists(children, max_size=3),
        st.dictionaries(_keys, children, max_size=3),
    ]
    if with_tuples:
        options.append(st.lists(children, min_size=1, max_size=3).map(tuple))
    return st.one_of(*options)


star_gold = st.recursive(_leaf, lambda c: _containers(c, True), max_leaves=6)
star_pred = st.recursive(_leaf, lambda c: _containers(c, False), max_leaves=6)
star_plain = st.recursive(_leaf, lambda c: _containers(c, False), max_leaves=6)  # no tuples


def _has_tuple(obj: Any) -> bool:
    if isinstance(obj, tuple):
        return True
    if isinstance(obj, list):
        return any(_has_tuple(x) for x in obj)
    if isinstance(obj, dict):
        return any(_has_tuple(x) for x in obj.values())
    return False


def _star_ok(gold: Any, pred: Any) -> bool:
    # a gold [] against a string prediction has no alternative: refused by design
    return not (isinstance(gold, list) and not gold and isinstance(pred, str))


@st.composite
def dude_questions(draw, min_size=1, max_size=5):
    n = draw(st.integers(min_size, max_size))
    preds, golds, types = [], [], []
    for _ in range(n):
        t = draw(st.sampled_from(gen.DUDE_TYPES))
        if t == "not-answerable":
            golds.append([])
            preds.append(draw(st.one_of(st.just([]), text, st.lists(text, max_size=2))))
        elif t.startswith("list"):
            golds.append(draw(st.lists(text, min_size=1, max_size=4)))
            preds.append(draw(st.lists(text, max_size=4)))
        else:
            golds.append(draw(golds_st))
            preds.append(draw(st.one_of(text, st.lists(text, max_size=3))))
        types.append(t)
    return preds, golds, types


def _check_result(result, n):
    assert len(result.scores) == n
    for s in result.scores:
        assert 0.0 <= s <= 1.0
    assert result.anls == pytest.approx(math.fsum(result.scores) / n, abs=1e-12)


# ---------------------------------------------------------------------------------------
# ANLS, string variants


@pytest.mark.parametrize("variant", STRING_VARIANTS)
@SETTINGS
@given(data=string_questions(), threshold=thresholds)
def test_anls_strings_range_mean_determinism_no_mutation(variant, data, threshold):
    preds, golds = data
    before = copy.deepcopy((preds, golds))
    r1 = compute_anls(preds, golds, variant=variant, threshold=threshold)
    r2 = compute_anls(preds, golds, variant=variant, threshold=threshold)
    assert (preds, golds) == before
    _check_result(r1, len(preds))
    assert r1 == r2


@pytest.mark.parametrize("variant", STRING_VARIANTS)
@SETTINGS
@given(golds=st.lists(golds_st, min_size=1, max_size=4), data=st.data())
def test_anls_identity(variant, golds, data):
    preds = [data.draw(st.sampled_from(g)) for g in golds]
    assert compute_anls(preds, golds, variant=variant).scores == [1.0] * len(golds)
    assert compute_anls(preds, golds, variant=variant, threshold=1.0).scores == (
        [0.0] * len(golds) if variant == "stvqa_paper" else [1.0] * len(golds)
    )  # stvqa_paper zeroes when LD/len >= 1 - tau, and 0 >= 0


@pytest.mark.parametrize("variant", STRING_VARIANTS)
@SETTINGS
@given(data=string_questions(), threshold=thresholds, rnd=st.randoms(use_true_random=False))
def test_anls_gold_order_irrelevant(variant, data, threshold, rnd):
    preds, golds = data
    shuffled = [rnd.sample(g, len(g)) for g in golds]
    a = compute_anls(preds, golds, variant=variant, threshold=threshold)
    b = compute_anls(preds, shuffled, variant=variant, threshold=threshold)
    assert a.scores == b.scores


@pytest.mark.parametrize("variant", STRING_VARIANTS)
@SETTINGS
@given(data=string_questions(), t1=thresholds, t2=thresholds)
def test_anls_threshold_monotone(variant, data, t1, t2):
    lo, hi = min(t1, t2), max(t1, t2)
    preds, golds = data
    s_lo = compute_anls(preds, golds, variant=variant, threshold=lo).scores
    s_hi = compute_anls(preds, golds, variant=variant, threshold=hi).scores
    assert all(h <= low for h, low in zip(s_hi, s_lo))
    # below the threshold a score is 0; at or above it, the score is kept
    for s in s_hi:
        assert s == 0.0 or s >= hi


# ---------------------------------------------------------------------------------------
# ANLS*, structures


@SETTINGS
@given(gold=star_gold, pred=star_pred, threshold=thresholds)
def test_anls_star_structures_range_determinism_no_mutation(gold, pred, threshold):
    assume(_star_ok(gold, pred))
    preds, golds = [pred, pred], [gold, gold]
    before = copy.deepcopy((preds, golds))
    r1 = compute_anls(preds, golds, variant="anls_star", threshold=threshold)
    r2 = compute_anls(preds, golds, variant="anls_star", threshold=threshold)
    assert (preds, golds) == before
    assert [type(x) for x in golds] == [type(gold)] * 2
    _check_result(r1, 2)
    assert r1.scores[0] == r1.scores[1]
    assert r1 == r2


@SETTINGS
@given(gold=star_plain)
def test_anls_star_identity(gold):
    pred = copy.deepcopy(gold)
    assert compute_anls([pred], [gold], variant="anls_star").scores == [1.0]


@SETTINGS
@given(
    alternatives=st.lists(star_gold, min_size=1, max_size=4),
    pred=star_pred,
    rnd=st.randoms(use_true_random=False),
)
def test_anls_star_alternative_order_irrelevant(alternatives, pred, rnd):
    # top-level alternatives: the best mean wins whatever their order
    shuffled = rnd.sample(alternatives, len(alternatives))
    a = compute_anls([pred], [tuple(alternatives)], variant="anls_star").scores
    b = compute_anls([pred], [tuple(shuffled)], variant="anls_star").scores
    assert a == pytest.approx(b, abs=1e-12)
    # a prediction equal to one tuple-free alternative scores 1
    plain = [x for x in alternatives if not _has_tuple(x)]
    if plain:
        assert compute_anls([copy.deepcopy(plain[0])], [tuple(shuffled)], variant="anls_star").scores == [1.0]


@SETTINGS
@given(
    gold=st.lists(text, max_size=4), pred=st.lists(text, max_size=4), rnd=st.randoms(use_true_random=False)
)
def test_anls_star_flat_list_order_irrelevant(gold, pred, rnd):
    a = compute_anls([pred], [gold], variant="anls_star").scores
    b = compute_anls([rnd.sample(pred, len(pred))], [rnd.sample(gold, len(gold))], variant="anls_star").scores
    assert a == pytest.approx(b, abs=1e-12)


@SETTINGS
@given(
    gold=st.lists(_leaf, max_size=4) | st.dictionaries(_keys, _leaf, max_size=4),
    pred=st.lists(_leaf, max_size=4) | st.dictionaries(_keys, _leaf, max_size=4),
    t1=thresholds,
    t2=thresholds,
)
def test_anls_star_threshold_monotone(gold, pred, t1, t2):
    # flat lists and flat dicts: every leaf score and so the optimal matching can only drop
    # when the threshold rises (nested lists are matched on means, see the parity tests)
    lo, hi = min(t1, t2), max(t1, t2)
    s_lo = compute_anls([pred], [gold], variant="anls_star", threshold=lo).scores[0]
    s_hi = compute_anls([pred], [gold], variant="anls_star", threshold=hi).scores[0]
    assert s_hi <= s_lo + 1e-12


def test_anls_star_threshold_monotone_nested_tie():
    gold, pred = ["abcd", "abxy"], [["abcd", "abxy"], {}, "abcd"]
    s_lo = compute_anls([pred], [gold], variant="anls_star", threshold=0.5).scores[0]
    s_hi = compute_anls([pred], [gold], variant="anls_star", threshold=0.7).scores[0]
    assert s_hi <= s_lo


# ---------------------------------------------------------------------------------------
# DUDE, mixed question types


@SETTINGS
@given(data=dude_questions(), threshold=thresholds)
def test_dude_range_determinism_no_mutation(data, threshold):
    preds, golds, types = data
    refs = [{"answers": g, "answer_type": t} for g, t in zip(golds, types)]
    before = copy.deepcopy((preds, golds, types, refs))
    r1 = compute_anls(preds, golds, variant="dude", answer_types=types, threshold=threshold)
    r2 = compute_anls(preds, refs, variant="dude", threshold=threshold)
    assert (preds, golds, types, refs) == before
    _check_result(r1, len(preds))
    assert r1.scores == r2.scores
    assert r1 == compute_anls(preds, golds, variant="dude", answer_types=types, threshold=threshold)


@SETTINGS
@given(data=dude_questions(), rnd=st.randoms(use_true_random=False))
def test_dude_identity_and_gold_order(data, rnd):
    _, golds, types = data
    preds = [list(g) if "list" in t else (rnd.choice(g) if g else []) for g, t in zip(golds, types)]
    assert compute_anls(preds, golds, variant="dude", answer_types=types).scores == [1.0] * len(golds)
    others = data[0]
    shuffled = [rnd.sample(g, len(g)) for g in golds]
    a = compute_anls(others, golds, variant="dude", answer_types=types).scores
    b = compute_anls(others, shuffled, variant="dude", answer_types=types).scores
    assert a == pytest.approx(b, abs=1e-12)


@SETTINGS
@given(data=dude_questions(), t1=thresholds, t2=thresholds)
def test_dude_threshold_monotone(data, t1, t2):
    preds, golds, types = data
    lo, hi = min(t1, t2), max(t1, t2)
    s_lo = compute_anls(preds, golds, variant="dude", answer_types=types, threshold=lo).scores
    s_hi = compute_anls(preds, golds, variant="dude", answer_types=types, threshold=hi).scores
    assert all(h <= low + 1e-12 for h, low in zip(s_hi, s_lo))


# ---------------------------------------------------------------------------------------
# 1-NED

ned_options = st.fixed_dictionaries(
    {"empty_pair": st.sampled_from(["zero", "one"]), "lowercase": st.booleans(), "nfkc": st.booleans()}
)


@SETTINGS
@given(preds=st.lists(text, min_size=1, max_size=5), data=st.data(), options=ned_options)
def test_ned_range_mean_determinism_no_mutation(preds, data, options):
    golds = [data.draw(st.one_of(text, golds_st)) for _ in preds]
    before = copy.deepcopy((preds, golds))
    r1 = compute_one_minus_ned(preds, golds, **options)
    r2 = compute_one_minus_ned(preds, golds, **options)
    assert (preds, golds) == before
    assert r1 == r2
    for s in r1.scores:
        assert 0.0 <= s <= 1.0
    assert r1.one_minus_ned == pytest.approx(math.fsum(r1.scores) / len(preds), abs=1e-12)
    assert r1.cer >= 0.0
    if sum(r1.reference_lengths):
        assert r1.cer == pytest.approx(sum(r1.distances) / sum(r1.reference_lengths))


@SETTINGS
@given(golds=st.lists(golds_st, min_size=1, max_size=5), data=st.data(), options=ned_options)
def test_ned_identity(golds, data, options):
    preds = [data.draw(st.sampled_from(g)) for g in golds]
    result = compute_one_minus_ned(preds, golds, **options)
    for p, s in zip(preds, result.scores):
        if p:
            assert s == 1.0
        elif options["empty_pair"] == "one":
            assert s == 1.0
        else:  # ICDAR: an empty string scores 0, against every gold
            assert s == 0.0
    assert result.one_minus_ned <= 1.0


@SETTINGS
@given(
    preds=st.lists(text, min_size=1, max_size=5),
    data=st.data(),
    options=ned_options,
    rnd=st.randoms(use_true_random=False),
)
def test_ned_gold_order_irrelevant(preds, data, options, rnd):
    golds = [data.draw(golds_st) for _ in preds]
    shuffled = [rnd.sample(g, len(g)) for g in golds]
    a = compute_one_minus_ned(preds, golds, **options)
    b = compute_one_minus_ned(preds, shuffled, **options)
    assert a.scores == b.scores
    assert a.distances == b.distances  # the best gold's distance (ties: the smallest)


@SETTINGS
@given(preds=st.lists(text, min_size=1, max_size=5), data=st.data(), options=ned_options)
def test_ned_symmetric_single_gold(preds, data, options):
    golds = [data.draw(text) for _ in preds]
    a = compute_one_minus_ned(preds, golds, **options)
    b = compute_one_minus_ned(golds, preds, **options)
    assert a.scores == b.scores
    assert a.distances == b.distances
