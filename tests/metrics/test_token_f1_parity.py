"""Token F1 parity: metricore against oracles written from the official scripts.

* SQuAD v1.1 and v2.0 (``tests/oracles/squad_ref.py``; Hugging Face's ``squad``/``squad_v2``
  metrics embed the same functions): SPECS vectors, the HF examples, and >= 20,000 generated
  questions (~54,000 pairs) per version with empty, punctuation-only, Unicode-punctuation,
  article-in-word and multi-gold answers; v2 with no-answer probabilities (ties included) and
  three thresholds.
* MLQA (``tests/oracles/mlqa_ref.py``, from ``mlqa_evaluation_v1.py``): every language.
* QuAC (``tests/oracles/quac_ref.py``, from the QuAC scorer): SPECS vectors, a multi-dialog
  example computed by hand, and generated dialogs.
"""

from __future__ import annotations

import random

import pytest

from metricore import (
    MLQA_LANGUAGES,
    compute_quac,
    compute_question_level,
    compute_token_f1,
    token_scores,
)
from metricore.text.normalize import NORMALIZERS, squad_normalize
from tests.gen_token_f1 import mlqa_questions, quac_dialogs, questions
from tests.oracles import mlqa_ref, quac_ref, squad_ref

N_GENERATED = 20_000
TOL = 1e-9


# ------------------------------------------------------------------------------ SPECS vectors


@pytest.mark.parametrize(
    ("pred", "gold", "em", "f1"),
    [
        ("The Cat!", "cat", 1.0, 1.0),
        ("the big cat sat", "a cat sat down", 0.0, 2 / 3),
        ("cat cat cat", "cat", 0.0, 0.5),
        ("an apple-pie", "apple pie", 0.0, 0.0),
        ("Beyonce", "Beyoncé and Bruno Mars", 0.0, 0.0),
    ],
)
def test_specs_vectors(pred, gold, em, f1):
    for variant in ("squad", "squad_v2"):
        s = token_scores(pred, gold, variant=variant)
        assert s.exact_match == em
        assert s.f1 == pytest.approx(f1, abs=TOL)
        assert s.f1 == pytest.approx(squad_ref.f1_v1(pred, gold), abs=TOL)
    r = compute_token_f1([pred], [[gold]], percent=False)
    assert (r.exact_match, r.f1) == pytest.approx((em, f1), abs=TOL)


def test_empty_vs_empty_differs_between_v1_and_v2():
    # v1.1: the no-overlap branch returns 0 first; v2.0: both empty = 1
    assert squad_ref.f1_v1("", "") == 0 and squad_ref.f1_v2("", "") == 1
    assert compute_token_f1([""], [[""]]).as_dict()["f1"] == 0.0
    assert compute_token_f1([""], [[""]]).as_dict()["exact_match"] == 100.0
    assert compute_token_f1([""], [[""]], variant="squad_v2").as_dict()["f1"] == 100.0
    # punctuation-only gold: dropped in v2, the question keeps HasAns status
    v2 = compute_token_f1(["", "x"], [["..."], ["..."]], variant="squad_v2").as_dict()
    assert v2["f1"] == 50.0 and v2["HasAns_total"] == 2 and v2["NoAns_total"] == 0


def test_precision_recall_come_from_the_best_f1_gold_first_on_ties():
    r = compute_token_f1(["w x y z"], [["w x m n", "w x y z e f g h", "y z m n"]], percent=False)
    # golds 0 and 2 tie at F1 0.5 (P=R=0.5); gold 1 has P=1, R=0.5, F1=2/3 -> chosen
    assert r.closest == ["w x y z e f g h"]
    assert (r.precision_scores[0], r.recall_scores[0]) == (1.0, 0.5)
    r = compute_token_f1(["w x y z"], [["y z m n", "w x m n"]], percent=False)
    assert r.closest == ["y z m n"]
    assert (r.precision_scores[0], r.recall_scores[0], r.f1_scores[0]) == (0.5, 0.5, 0.5)


def test_hugging_face_examples():
    preds = [{"prediction_text": "1976", "id": "56e10a3be3433e1400422b22"}]
    refs = [{"answers": {"answer_start": [97], "text": ["1976"]}, "id": "56e10a3be3433e1400422b22"}]
    got = compute_token_f1(preds, refs).as_dict()
    assert (got["exact_match"], got["f1"]) == (100.0, 100.0)
    preds = [{"prediction_text": "1976", "id": "56e10a3be3433e1400422b22", "no_answer_probability": 0.0}]
    got = compute_token_f1(preds, refs, variant="squad_v2").as_dict()
    want = {
        "exact": 100.0,
        "f1": 100.0,
        "total": 1,
        "HasAns_exact": 100.0,
        "HasAns_f1": 100.0,
        "HasAns_total": 1,
        "best_exact": 100.0,
        "best_exact_thresh": 0.0,
        "best_f1": 100.0,
        "best_f1_thresh": 0.0,
    }
    assert {k: got[k] for k in want} == want
    # HF leaves out the empty NoAns group; it is always reported here
    assert got["NoAns_total"] == 0 and got["NoAns_f1"] != got["NoAns_f1"]  # NaN


# ------------------------------------------------------------------------------ SQuAD sweeps


@pytest.fixture(scope="module")
def generated():
    preds, refs = questions(N_GENERATED, seed=20240229)
    assert sum(map(len, refs)) >= N_GENERATED
    return preds, refs


def test_generated_corpus_has_the_hard_cases(generated):
    preds, refs = generated
    strings = preds + [g for gs in refs for g in gs]
    assert sum(s == "" for s in strings) > 500
    assert sum(bool(s) and not squad_normalize(s) for s in strings) > 500  # normalize to ""
    assert sum("«" in s or "·" in s or "—" in s for s in strings) > 500
    assert sum("theater" in s or "another" in s or "banana" in s for s in strings) > 500
    assert sum(len(gs) >= 3 for gs in refs) > 5000


def test_squad_normalizer_equals_official(generated):
    preds, refs = generated
    strings = list(dict.fromkeys(preds + [g for gs in refs for g in gs]))
    mismatches = [s for s in strings if squad_normalize(s) != squad_ref.normalize_answer(s)]
    assert mismatches == []
    norm = NORMALIZERS["squad"]
    assert norm.tokens_many(strings) == [squad_ref.normalize_answer(s).split() for s in strings]


def test_squad_v1_parity(generated):
    preds, refs = generated
    got = compute_token_f1(preds, refs)
    per_question: list = []
    want = squad_ref.evaluate_v1(
        [{"id": str(i), "answers": g} for i, g in enumerate(refs)],
        {str(i): p for i, p in enumerate(preds)},
        per_question,
    )
    assert got.exact_match == pytest.approx(want["exact_match"], abs=TOL)
    assert got.f1 == pytest.approx(want["f1"], abs=TOL)
    bad = [
        i
        for i, ((em, f1), e, f) in enumerate(zip(per_question, got.exact_match_scores, got.f1_scores))
        if abs(em - e) > TOL or abs(f1 - f) > TOL
    ]
    assert bad == [], f"{len(bad)} questions differ, first {bad[:5]}"
    # P and R are those of the first best-F1 gold, from the oracle's per-pair numbers
    for i in range(0, len(preds), 97):
        scores = [squad_ref.f1_v1(preds[i], g) for g in refs[i]]
        assert got.closest[i] == refs[i][scores.index(max(scores))]


def test_squad_v1_dict_format_equals_plain(generated):
    preds, refs = generated
    n = 3000
    rng = random.Random(1)
    ids = [f"q{i:05d}" for i in range(n)]
    order = list(range(n))
    rng.shuffle(order)
    hf_preds = [{"id": ids[i], "prediction_text": preds[i]} for i in order]
    hf_refs = [
        {"id": ids[i], "answers": {"text": refs[i], "answer_start": [0] * len(refs[i])}} for i in range(n)
    ]
    got = compute_token_f1(hf_preds, hf_refs)
    plain = compute_token_f1(preds[:n], refs[:n])
    assert got.f1_scores == plain.f1_scores and got.ids == ids
    assert (got.exact_match, got.f1) == (plain.exact_match, plain.f1)


@pytest.mark.parametrize("threshold", [1.0, 0.5, 0.0])
def test_squad_v2_parity(generated, threshold):
    preds, refs = generated
    rng = random.Random(7)
    refs = [gs if rng.random() < 0.6 else [] for gs in refs]
    probs = [rng.choice((0.0, 0.25, 0.5, 0.5, 1.0, round(rng.random(), 3))) for _ in preds]  # many ties
    ids = [str(i) for i in range(len(preds))]
    want = squad_ref.evaluate_v2(
        [{"id": q, "answers": g} for q, g in zip(ids, refs)],
        dict(zip(ids, preds)),
        dict(zip(ids, probs)),
        threshold,
    )
    got = compute_token_f1(
        preds, refs, variant="squad_v2", no_answer_probabilities=probs, no_answer_threshold=threshold
    )
    head = got.as_dict()
    for key, value in want.items():
        if not key.startswith("_"):
            assert head[key] == pytest.approx(value, abs=TOL), key
    for i, q in enumerate(ids):
        assert got.exact_match_scores[i] == want["_exact_per_question"][q]
        assert got.f1_scores[i] == pytest.approx(want["_f1_per_question"][q], abs=TOL)


def test_squad_v2_dict_format_ties_follow_prediction_order():
    # best_f1's walk visits equal probabilities in prediction order (HF builds its dict from
    # the predictions); reordering the predictions can change the answer, as in the script
    refs = [
        {"id": "a", "answers": {"text": [], "answer_start": []}},
        {"id": "b", "answers": {"text": ["x"], "answer_start": [0]}},
    ]
    for order in (["a", "b"], ["b", "a"]):
        texts = {"a": "junk", "b": "x"}
        preds = [{"id": q, "prediction_text": texts[q], "no_answer_probability": 0.5} for q in order]
        want = squad_ref.evaluate_v2(
            [{"id": r["id"], "answers": r["answers"]["text"]} for r in refs],
            {p["id"]: p["prediction_text"] for p in preds},
            {p["id"]: 0.5 for p in preds},
        )
        got = compute_token_f1(preds, refs, variant="squad_v2").as_dict()
        for key in ("best_exact", "best_exact_thresh", "best_f1", "best_f1_thresh"):
            assert got[key] == want[key], (order, key)


# ------------------------------------------------------------------------------ MLQA


@pytest.mark.parametrize("lang", MLQA_LANGUAGES)
def test_mlqa_parity(lang):
    preds, refs = mlqa_questions(lang, 1500, seed=11)
    strings = list(dict.fromkeys(preds + [g for gs in refs for g in gs]))
    norm = NORMALIZERS[f"mlqa_{lang}"]
    assert [norm(s) for s in strings] == [mlqa_ref.normalize_answer(s, lang) for s in strings]
    got = compute_token_f1(preds, refs, variant="mlqa", language=lang)
    want = mlqa_ref.evaluate(preds, refs, lang)
    assert got.exact_match == pytest.approx(want["exact_match"], abs=TOL)
    assert got.f1 == pytest.approx(want["f1"], abs=TOL)
    for i in range(0, len(preds), 7):
        f1 = max(mlqa_ref.f1_score(preds[i], g, lang) for g in refs[i])
        assert got.f1_scores[i] == pytest.approx(f1, abs=TOL)


def test_mlqa_rules_by_hand():
    zh = compute_token_f1(["我爱北京"], [["北京"]], variant="mlqa", language="zh", percent=False)
    assert zh.f1 == pytest.approx(2 / 3)  # 我 爱 北 京 vs 北 京: P 2/4, R 2/2
    assert token_scores("el gato", "gato", variant="mlqa", language="es").exact_match == 1.0
    assert token_scores("el gato", "gato", variant="squad").exact_match == 0.0
    assert token_scores("«Katze»", "die Katze", variant="mlqa", language="de").exact_match == 1.0
    assert token_scores("الكتاب", "كتاب", variant="mlqa", language="ar").exact_match == 1.0  # every "ال"
    assert token_scores("the cat—", "cat", variant="mlqa", language="en").exact_match == 1.0
    assert token_scores("the cat—", "cat", variant="squad").exact_match == 0.0  # — is not ASCII


# ------------------------------------------------------------------------------ QuAC


SPECS_REFS = ["the cat sat on the mat", "cat sat on the mat", "a cat on a mat"]


def test_quac_specs_vectors():
    r = compute_quac(
        ["cat sat on the mat", "cat", "red"],
        [SPECS_REFS, SPECS_REFS, ["red", "blue", "green"]],
        ["d1", "d2", "d3"],
        percent=False,
    )
    assert r.human_f1_scores[0] == pytest.approx(0.9524, abs=1e-4)
    assert r.f1_scores[:2] == pytest.approx([1.0, 0.4667], abs=1e-4)
    assert r.heq_scores[:2] == [1.0, 0.0]
    assert r.human_f1_scores[2] == 0.0 and r.counted == [True, True, False]  # excluded
    assert r.human_f1_scores[0] == pytest.approx(quac_ref.human_f1(SPECS_REFS), abs=TOL)


def test_quac_multi_dialog_by_hand():
    refs = {
        "span": ["Paris", "Paris", "in Paris"],  # human F1 (1 + 1 + 2/3) / 3 = 8/9
        "cannot": ["CANNOTANSWER", "CANNOTANSWER", "Paris"],  # -> ["CANNOTANSWER"], human 1
        "mixed": ["CANNOTANSWER", "red car", "blue car"],  # -> ["red car", "blue car"], human 0.5
        "low": ["red", "blue"],  # human 0 -> not counted
    }
    rows = [
        ("d1", "Paris", refs["span"]),  # model (1 + 1 + 1) / 3 = 1 >= 8/9: pass
        ("d1", "CANNOTANSWER", refs["cannot"]),  # 1 >= 1: pass
        ("d2", "car", refs["mixed"]),  # F1 2/3 vs each: mean of leave-one-out max = 2/3 >= 0.5: pass
        ("d2", "Paris", refs["cannot"]),  # 0 < 1: fail -> dialog d2 fails
        ("d3", "anything", refs["low"]),  # not counted; d3 passes vacuously
        ("d1", "in", refs["span"]),  # not adjacent to d1's other turns; F1s 0, 0, 2/3:
        # (2/3 + 2/3 + 0) / 3 = 4/9 < 8/9: fail
    ]
    r = compute_quac([p for _, p, _ in rows], [g for _, _, g in rows], [d for d, _, _ in rows], percent=False)
    model = [1.0, 1.0, 2 / 3, 0.0, None, 4 / 9]
    human = [8 / 9, 1.0, 0.5, 1.0, 0.0, 8 / 9]
    for i in (0, 1, 2, 3, 5):
        assert r.f1_scores[i] == pytest.approx(model[i], abs=TOL)
    assert r.human_f1_scores == pytest.approx(human, abs=TOL)
    assert r.heq_scores == [1.0, 1.0, 1.0, 0.0, 0.0, 0.0]
    assert r.counted_questions == 5 and r.total_dialogs == 3
    assert r.f1 == pytest.approx((1 + 1 + 2 / 3 + 0 + 4 / 9) / 5, abs=TOL)
    assert r.heq_q == pytest.approx(3 / 5)
    assert r.heq_d == pytest.approx(1 / 3)  # d1 fails (last turn), d2 fails, d3 passes
    want = quac_ref.evaluate([[t[1:] for t in rows if t[0] == d] for d in ("d1", "d2", "d3")])
    assert (r.f1, r.heq_q, r.heq_d) == pytest.approx((want["f1"], want["heq"], want["dheq"]), abs=TOL)


def test_quac_generated_dialogs():
    dialogs = quac_dialogs(1500, seed=3)
    want = quac_ref.evaluate(dialogs)
    rows = [(str(d), p, refs) for d, turns in enumerate(dialogs) for p, refs in turns]
    rng = random.Random(5)
    rng.shuffle(rows)  # dialogs are groups of equal ids, not runs of rows
    r = compute_quac([p for _, p, _ in rows], [g for _, _, g in rows], [d for d, _, _ in rows], percent=False)
    assert r.f1 == pytest.approx(want["f1"], abs=TOL)
    assert r.heq_q == pytest.approx(want["heq"], abs=TOL)
    assert r.heq_d == pytest.approx(want["dheq"], abs=TOL)
    for i in range(0, len(rows), 11):
        golds = quac_ref.handle_cannot(rows[i][2])
        assert r.f1_scores[i] == pytest.approx(quac_ref.model_f1(rows[i][1], golds), abs=TOL)
        assert r.human_f1_scores[i] == pytest.approx(quac_ref.human_f1(golds), abs=TOL)


# ------------------------------------------------------------------------------ question level


def test_question_level_by_hand():
    r = compute_question_level(
        [["Paris", "the Lyon", "Nice"], [], ["Rome"], [], ["x", "x", "y"]],
        [["paris", "Lyon"], [], ["Milan"], ["Oslo"], ["X"]],
        percent=False,
    )
    # q0: TP 2 (paris, lyon), FP 1 (nice), FN 0 -> P 2/3, R 1, F1 0.8
    # q1: nothing vs nothing -> 1, 1, 1; q2: 0; q3: nothing predicted, one missed -> 0
    # q4: {x, y} vs {x}: P 1/2, R 1, F1 2/3
    assert r.true_positives == [2, 0, 0, 0, 1]
    assert r.false_positives == [1, 0, 1, 0, 1]
    assert r.false_negatives == [0, 0, 1, 1, 0]
    assert r.precision_scores == pytest.approx([2 / 3, 1, 0, 0, 0.5])
    assert r.recall_scores == pytest.approx([1, 1, 0, 0, 1])
    assert r.f1_scores == pytest.approx([0.8, 1, 0, 0, 2 / 3])
    assert r.exact_match_scores == [0, 1, 0, 0, 0]
    assert r.micro_precision == pytest.approx(3 / 6)
    assert r.micro_recall == pytest.approx(3 / 5)
    assert r.micro_f1 == pytest.approx(2 * 0.5 * 0.6 / 1.1)
    assert r.f1 == pytest.approx((0.8 + 1 + 2 / 3) / 5)
