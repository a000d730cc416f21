"""ANLS parity: every variant against its reference implementation.

* ``docvqa``      vs :mod:`tests.oracles.rrc_anls` (the RRC DocVQA script, re-written here);
* ``stvqa_paper`` vs PyPI ``anls`` 0.0.2 ``anls.anls_score(prediction, gold_labels)``;
* ``anls_star``   vs PyPI ``anls-star`` 1.0.1 ``anls_star.anls_score(gt, pred)``;
* ``dude``        vs :mod:`tests.oracles.dude_anls` (DUDEeval ``evaluate_submission.py`` rules).

Every per-question score is compared with an absolute tolerance of 1e-9, and so is the mean.
The SPECS section 1 vectors come first. ``MAX_DIFF`` collects the largest difference seen per
sweep (read it when reporting).
"""

from __future__ import annotations

import contextlib
import math
import random
import warnings
from collections.abc import Sequence
from typing import Any

import anls as anls_pkg
import anls_star as anls_star_pkg
import pytest
from anls_star.anls_star import ANLSTree

from metricore import compute_anls
from tests import gen
from tests.oracles import dude_anls, rrc_anls

TOL = 1e-9
MAX_DIFF: dict[str, float] = {}
CHECKED: dict[str, int] = {}


def assert_scores_match(
    label: str,
    got: Sequence[float],
    expected: Sequence[float],
    inputs: Sequence[Any] | None = None,
    got_mean: float | None = None,
) -> None:
    assert len(got) == len(expected), f"{label}: {len(got)} scores, expected {len(expected)}"
    diffs = [abs(a - b) for a, b in zip(got, expected)]
    worst = max(diffs)
    MAX_DIFF[label] = max(MAX_DIFF.get(label, 0.0), worst)
    CHECKED[label] = CHECKED.get(label, 0) + len(got)
    bad = [i for i, d in enumerate(diffs) if not d <= TOL]
    if bad:
        lines = [f"{label}: {len(bad)} of {len(got)} scores differ (max {worst:.3g})"]
        for i in bad[:8]:
            shown = repr(inputs[i]) if inputs is not None else ""
            lines.append(f"  [{i}] got {got[i]!r} expected {expected[i]!r} {shown}")
        pytest.fail("\n".join(lines))
    if got_mean is not None:
        ref_mean = math.fsum(expected) / len(expected)
        assert abs(got_mean - ref_mean) <= TOL, f"{label}: mean {got_mean} vs {ref_mean}"


@contextlib.contextmanager
def star_threshold(value: float):
    """Temporarily set the anls-star package threshold (a class attribute)."""
    old = ANLSTree.THRESHOLD
    ANLSTree.THRESHOLD = value
    try:
        yield
    finally:
        ANLSTree.THRESHOLD = old


def star_reference(golds: Sequence[Any], preds: Sequence[Any]) -> list[float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [float(anls_star_pkg.anls_score(g, p)) for g, p in zip(golds, preds)]


# ---------------------------------------------------------------------------------------
# SPECS section 1 vectors

COCA = ["Coca Cola", "Coca Cola Company"]
ALL = ("docvqa", "stvqa_paper", "anls_star", "dude")

VECTORS: list[tuple[str, Any, Any, float]] = []
for _v in ALL:
    VECTORS += [
        (_v, COCA, "The Coca", 0.0),
        (_v, COCA, "CocaCola", 0.8889),
        (_v, COCA, "Coca cola", 1.0),
        (_v, COCA, "Cola", 0.0),
        (_v, COCA, "Cat", 0.0),
        (_v, ["Hello World"], "Hello Wrld", 0.9091),
    ]
VECTORS += [
    ("docvqa", ["ab"], "ac", 0.5),
    ("stvqa_paper", ["ab"], "ac", 0.0),
    ("anls_star", ["ab"], "ac", 0.5),
    ("docvqa", ["ab"], "ac   ", 0.8),
    ("anls_star", ["ab"], "ac   ", 0.5),
    ("stvqa_paper", ["ab"], "ac   ", 0.0),
    ("docvqa", ["  Thomas  Moore "], "Thomas More", 0.9375),
    ("anls_star", ["  Thomas  Moore "], "Thomas More", 0.9167),
    ("stvqa_paper", ["  Thomas  Moore "], "Thomas More", 0.9167),
]
for _v in ("dude", "anls_star"):
    VECTORS += [
        (_v, ["one", "two", "three"], ["one", "to", "three"], 0.8889),
        (_v, ["one", "two", "three"], ["one", "to"], 0.5556),
        (_v, ["one", "two", "three"], ["one", "to", "three", "four"], 0.6667),
    ]
VECTORS += [
    ("dude", ["a", "a"], ["a"], 1.0),
    ("anls_star", ["a", "a"], ["a"], 0.5),
    ("dude", [], [], 1.0),
    ("dude", [], "foo", 0.0),
    ("anls_star", {"a": "b", "c": "d"}, {"a": "b", "c": "e"}, 0.5),
    ("anls_star", {"a": "b", "c": "d"}, {"a": "b", "e": "d"}, 1 / 3),
    ("anls_star", {"a": ["a", "b", "c"]}, {"a": ["b", "c"]}, 2 / 3),
]


@pytest.mark.parametrize(("variant", "gold", "pred", "expected"), VECTORS)
def test_specs_vectors(variant, gold, pred, expected):
    result = compute_anls([pred], [gold], variant=variant)
    assert result.scores[0] == pytest.approx(expected, abs=5e-5)
    assert result.anls == result.scores[0]
    # ... and the vector agrees with the reference of that variant, to 1e-9.
    if variant == "docvqa":
        ref = rrc_anls.question_score(gold, pred)
    elif variant == "stvqa_paper":
        ref = anls_pkg.anls_score(pred, gold)
    elif variant == "anls_star":
        ref = star_reference([gold], [pred])[0]
    else:
        answer_type = "list/extractive" if isinstance(pred, list) and pred else None
        if gold == []:
            answer_type = "not-answerable"
        ref = dude_anls.question_score_dude(gold, pred, answer_type)
    assert abs(result.scores[0] - ref) <= TOL


def test_specs_vectors_dude_with_answer_types():
    g = ["one", "two", "three"]
    preds = [
        ["one", "to", "three"],
        ["one", "to"],
        ["one", "to", "three", "four"],
        ["a"],
        [],
        "foo",
        "CocaCola",
    ]
    refs = [g, g, g, ["a", "a"], [], [], COCA]
    types = ["list/extractive"] * 4 + ["not-answerable"] * 2 + ["extractive"]
    got = compute_anls(preds, refs, variant="dude", answer_types=types).scores
    assert got == pytest.approx([0.8889, 0.5556, 0.6667, 1.0, 1.0, 0.0, 0.8889], abs=5e-5)
    # the DUDE ground-truth dict form gives the same scores
    dict_refs = [{"answers": r, "answer_type": t} for r, t in zip(refs, types)]
    assert compute_anls(preds, dict_refs, variant="dude").scores == got


# ---------------------------------------------------------------------------------------
# docvqa vs the RRC script


@pytest.fixture(scope="module")
def questions():
    return gen.string_questions(seed=101, n=20_000)


def test_docvqa_parity(questions):
    preds, golds = questions
    result = compute_anls(preds, golds, variant="docvqa")
    expected = [rrc_anls.question_score(g, p) for p, g in zip(preds, golds)]
    assert_scores_match("docvqa", result.scores, expected, list(zip(golds, preds)), result.anls)
    # closest = the first gold with the smallest normalized distance (before thresholding)
    for p, g, c in zip(preds, golds, result.closest):
        values = rrc_anls.normalized_values(g, p)
        assert c == g[values.index(min(values))]


@pytest.mark.parametrize("threshold", [0.3, 0.75, 0.0, 1.0])
def test_docvqa_parity_thresholds(questions, threshold):
    preds, golds = questions[0][:5000], questions[1][:5000]
    result = compute_anls(preds, golds, variant="docvqa", threshold=threshold)
    expected = [rrc_anls.question_score(g, p, threshold) for p, g in zip(preds, golds)]
    assert_scores_match(f"docvqa@{threshold}", result.scores, expected, list(zip(golds, preds)), result.anls)


def test_docvqa_unicode_length_corner_cases():
    # upper() lengthens "ß"/ligatures (bigger divisor); lower() lengthens "İ" (bigger distance)
    golds = [["Straße"], ["ﬁnance"], ["İzmir"], ["ΐ"], ["İİİ"], ["a\u3000b"], ["x\x1cy"], [""]]
    preds = ["Strasse", "finance", "izmir", "", "", "A B", "x y", "\u00a0"]
    for threshold in (0.0, 0.5):
        result = compute_anls(preds, golds, threshold=threshold)
        expected = [rrc_anls.question_score(g, p, threshold) for p, g in zip(preds, golds)]
        assert_scores_match(f"docvqa-corner@{threshold}", result.scores, expected, list(zip(golds, preds)))


# ---------------------------------------------------------------------------------------
# stvqa_paper vs PyPI anls


@pytest.fixture(scope="module")
def questions_st():
    return gen.string_questions(seed=202, n=20_000)


def test_stvqa_paper_parity(questions_st):
    preds, golds = questions_st
    result = compute_anls(preds, golds, variant="stvqa_paper")
    expected = [anls_pkg.anls_score(p, g) for p, g in zip(preds, golds)]
    assert_scores_match("stvqa_paper", result.scores, expected, list(zip(golds, preds)), result.anls)


@pytest.mark.parametrize("threshold", [0.3, 0.75, 0.0, 1.0])
def test_stvqa_paper_parity_thresholds(questions_st, threshold):
    preds, golds = questions_st[0][:5000], questions_st[1][:5000]
    result = compute_anls(preds, golds, variant="stvqa_paper", threshold=threshold)
    # PyPI anls takes a *distance* threshold: similarity tau <=> distance 1 - tau
    expected = [anls_pkg.anls_score(p, g, threshold=1 - threshold) for p, g in zip(preds, golds)]
    assert_scores_match(
        f"stvqa_paper@{threshold}", result.scores, expected, list(zip(golds, preds)), result.anls
    )


# ---------------------------------------------------------------------------------------
# anls_star vs PyPI anls-star


@pytest.fixture(scope="module")
def questions_star():
    preds, golds = gen.string_questions(seed=303, n=20_000)
    # a single gold is sometimes given as a bare string (a leaf, not an alternatives list)
    golds = [g[0] if len(g) == 1 and i % 3 == 0 else g for i, g in enumerate(golds)]
    return preds, golds


@pytest.fixture(scope="module")
def structures():
    return gen.star_pairs(seed=404, n=5_000)


def test_anls_star_flat_parity(questions_star):
    preds, golds = questions_star
    result = compute_anls(preds, golds, variant="anls_star")
    expected = star_reference(golds, preds)
    assert_scores_match("anls_star-flat", result.scores, expected, list(zip(golds, preds)), result.anls)


def test_anls_star_structure_parity(structures):
    golds = [g for g, _ in structures]
    preds = [p for _, p in structures]
    result = compute_anls(preds, golds, variant="anls_star")
    expected = star_reference(golds, preds)
    assert_scores_match("anls_star-struct", result.scores, expected, structures, result.anls)


def test_anls_star_structure_sweep_is_varied(structures):
    # guard against a generator that only produces trivial pairs
    kinds = {type(g).__name__ for g, _ in structures}
    assert {"dict", "list", "tuple", "str"} <= kinds
    scores = compute_anls([p for _, p in structures], [g for g, _ in structures], variant="anls_star").scores
    assert sum(s == 1.0 for s in scores) > 300
    assert sum(s == 0.0 for s in scores) > 300
    assert sum(0.0 < s < 1.0 for s in scores) > 1500


@pytest.mark.parametrize("threshold", [0.3, 0.75])
def test_anls_star_parity_thresholds(questions_star, structures, threshold):
    preds, golds = questions_star[0][:5000], questions_star[1][:5000]
    sgolds = [g for g, _ in structures[:2000]]
    spreds = [p for _, p in structures[:2000]]
    flat = compute_anls(preds, golds, variant="anls_star", threshold=threshold)
    nested = compute_anls(spreds, sgolds, variant="anls_star", threshold=threshold)
    with star_threshold(threshold):
        expected_flat = star_reference(golds, preds)
        expected_nested = star_reference(sgolds, spreds)
    assert ANLSTree.THRESHOLD == 0.5
    assert_scores_match(f"anls_star-flat@{threshold}", flat.scores, expected_flat, list(zip(golds, preds)))
    assert_scores_match(
        f"anls_star-struct@{threshold}", nested.scores, expected_nested, list(zip(sgolds, spreds))
    )


def test_anls_star_long_flat_lists_parity():
    # lists of >= 64 element pairs are scored through one distance matrix, shorter ones pair
    # by pair: both paths against the package, on lists with typos, repeats and extras
    rng = random.Random(505)
    words = ["total", "Tax", "invoice 12", "net amount", "VAT", "due date", "", "  spaced  out "]
    golds, preds = [], []
    for _ in range(300):
        gold = [rng.choice(words) + rng.choice(["", "s", " 2"]) for _ in range(rng.randint(1, 14))]
        pred = [w if rng.random() < 0.6 else w[::-1].upper() for w in gold if rng.random() < 0.85]
        pred += [rng.choice(words) for _ in range(rng.randint(0, 4))]
        rng.shuffle(pred)
        golds.append(gold)
        preds.append(pred)
    assert sum(len(g) * len(p) >= 64 for g, p in zip(golds, preds)) > 50
    result = compute_anls(preds, golds, variant="anls_star")
    expected = star_reference(golds, preds)
    assert_scores_match("anls_star-long-lists", result.scores, expected, list(zip(golds, preds)), result.anls)


# Hungarian ties: anls-star matches list elements on the *mean* NLS of each pair (munkres on
# make_cost_matrix), then adds up numerators and lengths of the chosen pairs. When several
# matchings tie on the means but pair elements of different lengths (an empty container has
# length 0, a leaf 1, a nested list its leaf count), the score depends on which optimal
# matching is picked; scipy's linear_sum_assignment breaks such ties unlike munkres, so
# metricore matches every list as munkres does (metricore.text.matching.munkres_pairs). Found by the
# generator (depth 4), minimised by exhaustive search; the comments give the scipy choice.
TIE_CASES = [
    (["a", "a"], ["b", [], "a"]),  # anls-star 0.5, scipy 1/3
    (["", ""], ["a", {}, ""]),  # anls-star 0.5, scipy 1/3
    (["a", "a"], [[], "b", "a"]),  # anls-star 1/3, scipy 0.5
    ([None, {}, None], [{}, "n/a", ""]),  # anls-star 2/3, scipy 0.5
    ([["a", "b"], ["a"]], ["a", {"k": "a", "j": "b"}, ["a"]]),  # anls-star 0.2, scipy 0.25
    (["abcd", "abxy"], [["abcd", "abxy"], {}, "abcd"]),  # anls-star 1/3, scipy 0.25
]


@pytest.mark.parametrize(("gold", "pred"), TIE_CASES)
def test_anls_star_hungarian_tie_parity(gold, pred):
    got = compute_anls([pred], [gold], variant="anls_star").scores
    assert_scores_match("anls_star-ties", got, star_reference([gold], [pred]), [(gold, pred)])


# ---------------------------------------------------------------------------------------
# dude vs the DUDEeval rules


@pytest.fixture(scope="module")
def dude_qs():
    return gen.dude_questions(seed=505, n=20_500)


def _empty_list_answer(pred, answer_type):
    return "list" in answer_type and pred == []


def test_dude_parity(dude_qs):
    preds, golds, types = dude_qs
    result = compute_anls(preds, golds, variant="dude", answer_types=types)
    # list questions answered with an empty list: see test_dude_empty_list_prediction_parity
    keep = [i for i, (p, t) in enumerate(zip(preds, types)) if not _empty_list_answer(p, t)]
    assert len(keep) >= 20_000
    got = [result.scores[i] for i in keep]
    _, expected = dude_anls.anls([preds[i] for i in keep], [golds[i] for i in keep], [types[i] for i in keep])
    inputs = [(golds[i], preds[i], types[i]) for i in keep]
    assert_scores_match("dude", got, expected, inputs)
    assert abs(result.anls - math.fsum(result.scores) / len(preds)) <= TOL
    # the ground-truth dict form ({"answers", "answer_type"}) is the same thing
    refs = [{"answers": g, "answer_type": t} for g, t in zip(golds[:3000], types[:3000])]
    assert compute_anls(preds[:3000], refs, variant="dude").scores == result.scores[:3000]


def test_dude_empty_list_prediction_parity_where_it_holds(dude_qs):
    # an empty predicted list scores 0 in DUDEeval; metricore agrees whenever no gold item
    # reaches NLS >= 0.5 against "" (test_dude_empty_list_prediction_parity covers the rest)
    cases = [(g, p, t) for p, g, t in zip(*dude_qs) if _empty_list_answer(p, t)]
    assert len(cases) > 200
    got = compute_anls(
        [p for _, p, _ in cases],
        [g for g, _, _ in cases],
        variant="dude",
        answer_types=[t for _, _, t in cases],
    ).scores
    expected = [dude_anls.question_score_dude(g, p, t) for g, p, t in cases]
    agree = [k for k, (g, _, _) in enumerate(cases) if all(rrc_anls.question_score([x], "") == 0 for x in g)]
    assert len(agree) > 200
    assert_scores_match("dude-emptylist", [got[k] for k in agree], [expected[k] for k in agree])


@pytest.mark.parametrize("gold", [[""], ["ΐ"], ["", "a"], ["ß"]])
def test_dude_empty_list_prediction_parity(gold):
    got = compute_anls([[]], [gold], variant="dude", answer_types=["list/extractive"]).scores
    expected = [dude_anls.question_score_dude(gold, [], "list/extractive")]
    assert_scores_match("dude-emptylist", got, expected, [gold])


def test_dude_sweep_is_varied(dude_qs):
    preds, golds, types = dude_qs
    for t in gen.DUDE_TYPES:
        assert types.count(t) > 1000
    assert sum(isinstance(p, list) and not t.startswith("list") for p, t in zip(preds, types)) > 1000
    assert sum(len(set(g)) < len(g) for g, t in zip(golds, types) if t.startswith("list")) > 200


@pytest.mark.parametrize("threshold", [0.3, 0.75])
def test_dude_parity_thresholds_non_list(dude_qs, threshold):
    keep = [i for i, t in enumerate(dude_qs[2]) if "list" not in t][:8000]
    preds = [dude_qs[0][i] for i in keep]
    golds = [dude_qs[1][i] for i in keep]
    types = [dude_qs[2][i] for i in keep]
    result = compute_anls(preds, golds, variant="dude", answer_types=types, threshold=threshold)
    _, expected = dude_anls.anls(preds, golds, types, threshold)
    assert_scores_match(f"dude-nonlist@{threshold}", result.scores, expected, list(zip(golds, preds)))


@pytest.mark.parametrize(
    ("threshold", "gold", "pred"),
    [(0.3, "abcde", "abxyz"), (0.75, "abcd", "abxy")],  # NLS 0.4 and 0.5
)
def test_dude_parity_thresholds_list(threshold, gold, pred):
    got = compute_anls(
        [[pred]], [[gold]], variant="dude", answer_types=["list/extractive"], threshold=threshold
    ).scores
    expected = [dude_anls.question_score_dude([gold], [pred], "list/extractive", threshold)]
    assert_scores_match(f"dude-list@{threshold}", got, expected)
