"""Invariants of the token-F1 family (hypothesis), and agreement with the oracles on
arbitrary Unicode text."""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metricore import (
    MLQA_LANGUAGES,
    compute_quac,
    compute_question_level,
    compute_token_f1,
    token_scores,
)
from metricore.text.normalize import NORMALIZERS
from tests.oracles import mlqa_ref, quac_ref, squad_ref

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# text built from pieces that matter: articles, punctuation, case traps, odd whitespace
PIECES = st.sampled_from(
    [
        "the",
        "a",
        "an",
        "The",
        "cat",
        "cats",
        "sat",
        "theater",
        "another",
        "x",
        "1976",
        "-",
        ".",
        ",",
        "'s",
        "«",
        "»",
        "·",
        "—",
        "é",
        "e\u0301",
        "Σ",
        "ΟΔΟΣ",
        "İ",
        "ß",
        "北京",
        "😀",
        "_",
        "\x00",
        "\x01",
        "\x7f",
    ]
)
SEP = st.sampled_from([" ", " ", "", "\t", "\n", "\u00a0", "\u3000", "\x1c", "\x85"])
TEXT = st.one_of(
    st.lists(st.tuples(PIECES, SEP), max_size=8).map(lambda xs: "".join(a + b for a, b in xs)),
    st.text(max_size=20),
)
GOLDS = st.lists(TEXT, min_size=1, max_size=4)


@SETTINGS
@given(st.lists(TEXT, min_size=1, max_size=40))
def test_tokens_many_equals_one_by_one(texts):
    for name in ("squad",) + tuple(f"mlqa_{lang}" for lang in MLQA_LANGUAGES):
        norm = NORMALIZERS[name]
        one = [norm(t).split() for t in texts]
        assert [norm.tokens(t) for t in texts] == one
        assert norm.tokens_many(texts) == one
        assert norm.tokens_many(texts * 20) == one * 20  # the bulk path (16+ texts)
        assert norm.many(texts * 20) == [norm(t) for t in texts] * 20


@SETTINGS
@given(TEXT)
def test_normalizers_equal_the_official_functions(text):
    assert NORMALIZERS["squad"](text) == squad_ref.normalize_answer(text)
    for lang in MLQA_LANGUAGES:
        assert NORMALIZERS[f"mlqa_{lang}"](text) == mlqa_ref.normalize_answer(text, lang)


@SETTINGS
@given(TEXT, GOLDS)
def test_question_equals_oracle_v1_and_v2(pred, golds):
    r = compute_token_f1([pred], [golds], percent=False)
    em, f1 = squad_ref.question_v1(pred, golds)
    assert (r.exact_match_scores[0], r.f1_scores[0]) == (float(em), pytest.approx(f1, abs=1e-12))
    v2 = compute_token_f1([pred], [golds], variant="squad_v2", percent=False)
    exact, f1_v2 = squad_ref.raw_scores_v2([{"id": "q", "answers": golds}], {"q": pred})
    assert v2.exact_match_scores[0] == exact["q"]
    assert v2.f1_scores[0] == pytest.approx(f1_v2["q"], abs=1e-12)


@SETTINGS
@given(TEXT, TEXT)
def test_pair_bounds_and_symmetry(a, b):
    for variant in ("squad", "squad_v2"):
        s = token_scores(a, b, variant=variant)
        assert 0.0 <= s.precision <= 1.0 and 0.0 <= s.recall <= 1.0 and 0.0 <= s.f1 <= 1.0
        assert s.f1 <= max(s.precision, s.recall) + 1e-12
        t = token_scores(b, a, variant=variant)
        assert t.f1 == s.f1 and t.exact_match == s.exact_match
        assert (t.precision, t.recall) == (s.recall, s.precision)
        if s.f1 > 0:
            assert s.f1 == pytest.approx(2 * s.precision * s.recall / (s.precision + s.recall))
    v1 = token_scores(a, b)
    if v1.exact_match and NORMALIZERS["squad"](a):
        assert v1.f1 == 1.0
    assert token_scores(a, a, variant="squad_v2").f1 == 1.0


@SETTINGS
@given(TEXT, GOLDS, st.randoms(use_true_random=False))
def test_token_order_does_not_change_f1(pred, golds, rnd):
    words = pred.split(" ")
    rnd.shuffle(words)
    shuffled = " ".join(words)
    a = compute_token_f1([pred], [golds], percent=False)
    b = compute_token_f1([shuffled], [golds], percent=False)
    assert a.f1_scores == pytest.approx(b.f1_scores, abs=1e-12)


@SETTINGS
@given(TEXT, GOLDS, TEXT, st.randoms(use_true_random=False))
def test_more_golds_never_lower_and_order_of_golds_only_picks_the_tie(pred, golds, extra, rnd):
    base = compute_token_f1([pred], [golds], percent=False)
    more = compute_token_f1([pred], [golds + [extra]], percent=False)
    assert more.f1_scores[0] >= base.f1_scores[0] and more.exact_match_scores[0] >= base.exact_match_scores[0]
    shuffled = list(golds)
    rnd.shuffle(shuffled)
    again = compute_token_f1([pred], [shuffled], percent=False)
    assert (again.f1_scores, again.exact_match_scores) == (base.f1_scores, base.exact_match_scores)
    best = [g for g in shuffled if token_scores(pred, g).f1 == again.f1_scores[0]][0]
    assert again.closest == [best]


@SETTINGS
@given(st.lists(st.tuples(TEXT, GOLDS), min_size=1, max_size=30))
def test_corpus_is_the_mean_and_percent_scales(rows):
    preds = [p for p, _ in rows]
    refs = [g for _, g in rows]
    before = copy.deepcopy((preds, refs))
    r = compute_token_f1(preds, refs)
    unit = compute_token_f1(preds, refs, percent=False)
    assert (preds, refs) == before, "inputs were modified"
    assert r.f1 == pytest.approx(100 * sum(unit.f1_scores) / len(rows))
    assert unit.f1 == pytest.approx(r.f1 / 100) and unit.exact_match == pytest.approx(r.exact_match / 100)
    assert unit.precision == pytest.approx(r.precision / 100) and unit.recall == pytest.approx(r.recall / 100)
    # batches scored apart give the same per-question numbers
    half = len(rows) // 2
    if half:
        parts = (
            compute_token_f1(preds[:half], refs[:half]).f1_scores
            + compute_token_f1(preds[half:], refs[half:]).f1_scores
        )
        assert parts == r.f1_scores


@SETTINGS
@given(
    st.lists(st.tuples(TEXT, GOLDS, st.floats(0, 1), st.booleans()), min_size=1, max_size=25),
    st.sampled_from([0.0, 0.5, 1.0]),
    st.randoms(use_true_random=False),
)
def test_squad_v2_dict_format_equals_oracle(rows, threshold, rnd):
    preds = [
        {"id": f"q{i}", "prediction_text": p, "no_answer_probability": x}
        for i, (p, _, x, _) in enumerate(rows)
    ]
    refs = [
        {"id": f"q{i}", "answers": {"text": g if keep else [], "answer_start": []}}
        for i, (_, g, _, keep) in enumerate(rows)
    ]
    rnd.shuffle(preds)
    got = compute_token_f1(preds, refs, variant="squad_v2", no_answer_threshold=threshold).as_dict()
    want = squad_ref.evaluate_v2(
        [{"id": r["id"], "answers": r["answers"]["text"]} for r in refs],
        {p["id"]: p["prediction_text"] for p in preds},
        {p["id"]: p["no_answer_probability"] for p in preds},
        threshold,
    )
    for key, value in want.items():
        if not key.startswith("_"):
            assert got[key] == pytest.approx(value, abs=1e-9), key


@SETTINGS
@given(
    st.lists(st.tuples(st.lists(TEXT, max_size=4), st.lists(TEXT, max_size=4)), min_size=1, max_size=20),
    st.randoms(use_true_random=False),
)
def test_question_level_invariants(rows, rnd):
    preds = [p for p, _ in rows]
    refs = [g for _, g in rows]
    r = compute_question_level(preds, refs, percent=False)
    for p, rc, f, tp, fp, fn in zip(
        r.precision_scores,
        r.recall_scores,
        r.f1_scores,
        r.true_positives,
        r.false_positives,
        r.false_negatives,
    ):
        assert 0 <= p <= 1 and 0 <= rc <= 1 and 0 <= f <= 1 and min(tp, fp, fn) >= 0
    shuffled = [rnd.sample(p, len(p)) + p[:1] for p in preds]  # order and duplicates do not matter
    assert compute_question_level(shuffled, refs, percent=False).f1_scores == r.f1_scores
    swapped = compute_question_level(refs, preds, percent=False)  # P and R swap
    assert swapped.precision_scores == r.recall_scores and swapped.f1_scores == pytest.approx(r.f1_scores)


@SETTINGS
@given(
    st.lists(
        st.lists(
            st.tuples(
                st.one_of(TEXT, st.just("CANNOTANSWER")),
                st.lists(st.one_of(TEXT, st.just("CANNOTANSWER")), min_size=1, max_size=4),
            ),
            min_size=1,
            max_size=4,
        ),
        min_size=1,
        max_size=6,
    )
)
def test_quac_equals_oracle(dialogs):
    rows = [(str(d), p, refs) for d, turns in enumerate(dialogs) for p, refs in turns]
    random.Random(0).shuffle(rows)
    r = compute_quac([p for _, p, _ in rows], [g for _, _, g in rows], [d for d, _, _ in rows], percent=False)
    want = quac_ref.evaluate(dialogs)
    assert (r.f1, r.heq_q, r.heq_d) == pytest.approx((want["f1"], want["heq"], want["dheq"]), abs=1e-9)
    for f, h, c, ok in zip(r.f1_scores, r.human_f1_scores, r.counted, r.heq_scores):
        assert 0 <= f <= 1 and 0 <= h <= 1
        assert ok == float(c and f >= h)
