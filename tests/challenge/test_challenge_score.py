"""The combined challenge score (``metricore.challenge``, ``metrics/challenge_score``): the
SPECS section 6 vectors, composition of the core metrics, the challenge's submission layout,
specs as data, properties and the evaluate module."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metricore import compute_meteor, compute_one_minus_ned, compute_token_f1
from metricore.challenge import (
    WHOLE_SUBMISSION_EXAMPLE,
    load_challenge,
    score_challenge,
    score_submission,
    split_submission,
    submission_inputs,
    task_rows,
    whole_submission_example,
)

FBC2 = load_challenge("fbc2")
OPEN = ("TextQA", "MathQA", "ImageGeneration", "ImageCaptioning", "VisualQA", "TRitW")
HIDDEN = tuple(f"Hidden{i}" for i in range(1, 7))


def _unit(v):
    v = np.asarray(v, dtype=np.float64)
    return v / np.linalg.norm(v)


def _pair_with_cosine(c, d=4, seed=0):
    """An (image, text) pair of unit vectors with cosine exactly ``c``."""
    rng = np.random.default_rng(seed)
    a = _unit(rng.normal(size=d))
    b = rng.normal(size=d)
    b = _unit(b - (b @ a) * a)
    return a, c * a + math.sqrt(1 - c * c) * b


# ----------------------------------------------------------------------------- the fbc2 spec


def test_fbc2_spec_is_the_published_rules():
    assert FBC2.task_names == OPEN + HIDDEN
    assert [t.weight for t in FBC2.tasks] == [1 / 15] * 6 + [1 / 10] * 6
    assert {t.name: t.threshold for t in FBC2.tasks if t.threshold is not None} == {
        "TextQA": 0.2,
        "MathQA": 0.25,
        "ImageGeneration": 0.21,
        "ImageCaptioning": 0.15,
        "VisualQA": 0.24,
        "TRitW": 0.13,
    }
    assert [t.task_id for t in FBC2.tasks[:6]] == ["0", "1", "2", "3", "4", "5"]
    assert {t.group for t in FBC2.tasks} == {"open", "hidden"}
    assert load_challenge(FBC2.as_dict()) == FBC2 and load_challenge(FBC2.as_dict()).digest == FBC2.digest


# ----------------------------------------------------------------------------- SPECS vectors


def test_integral_all_ones_and_open_only():
    r = score_challenge({t: 1.0 for t in OPEN + HIDDEN})
    assert r.integral == pytest.approx(1.0, abs=1e-15)
    assert (r.open_sum, r.hidden_sum, r.eligible) == (6.0, 6.0, True)
    only_open = score_challenge({t: 1.0 for t in OPEN}, missing="zero")
    assert only_open.integral == pytest.approx(0.4, abs=1e-15)
    assert {t.source for t in only_open.tasks.values()} == {"given", "missing"}
    zeros = score_challenge({**{t: 1.0 for t in OPEN}, **{t: 0.0 for t in HIDDEN}})
    assert zeros.integral == only_open.integral and zeros.signature != only_open.signature


@pytest.mark.parametrize(
    "clip, fid, want", [(0.3, 50, 0.525), (0.3, 250, 0.15), (0.3, 200, 0.15), (0.3, 0, 0.65)]
)
def test_image_generation_formula(clip, fid, want):
    r = score_challenge({"ImageGeneration": {"clip": clip, "fid": fid}}, missing="zero")
    assert r.task_scores["ImageGeneration"] == pytest.approx(want, abs=1e-12)
    assert r.tasks["ImageGeneration"].components == {"clip": clip, "fid": float(fid)}


def test_image_generation_from_embeddings_and_features():
    a, b = _pair_with_cosine(0.3)
    c, d = _pair_with_cosine(0.3, seed=1)
    real = np.array([[0.0, 0.0], [2.0, 1.0], [1.0, 3.0], [-1.0, 0.5]])
    generated = real + np.array([5.0, 5.0])  # same covariance, |mean shift|^2 = 50
    r = score_challenge(
        {
            "ImageGeneration": {
                "image_embeddings": [a, c],
                "text_embeddings": [b, d],
                "generated_features": generated,
                "real_features": real,
            }
        },
        missing="zero",
    )
    t = r.tasks["ImageGeneration"]
    assert t.components["fid"] == pytest.approx(50.0, abs=1e-6)
    assert t.components["clip"] == pytest.approx(0.3, abs=1e-12)
    assert t.score == pytest.approx(0.525, abs=1e-8)
    assert t.item_scores == pytest.approx([0.3, 0.3], abs=1e-12) and t.n == 2
    # prompt templates: (n, templates, d) text embeddings are averaged per image
    templated = r = score_challenge(
        {"ImageGeneration": {"image_embeddings": [a], "text_embeddings": [[b, b]], "fid": 0}}, missing="zero"
    )
    assert templated.tasks["ImageGeneration"].components["clip"] == pytest.approx(0.3, abs=1e-12)
    # Hessel et al.'s CLIPScore as an option: 2.5 max(cos, 0)
    spec = FBC2.as_dict()
    spec["tasks"]["ImageGeneration"]["options"] = {"clip": "clip_score", "fid_cap": 100}
    r = score_challenge(
        {"ImageGeneration": {"image_embeddings": [a], "text_embeddings": [b], "fid": 50}},
        spec,
        missing="zero",
    )
    assert r.tasks["ImageGeneration"].components["clip"] == pytest.approx(0.75, abs=1e-12)
    assert r.task_scores["ImageGeneration"] == pytest.approx((0.75 + 0.5) / 2, abs=1e-12)


def test_vqa_numeric_rule():
    r = score_challenge({"VisualQA": {"predictions": ["3"], "references": [["5"]]}}, missing="zero")
    assert r.task_scores["VisualQA"] == pytest.approx(0.6)
    assert r.tasks["VisualQA"].source == "computed"


def test_textqa_and_mathqa_vectors_through_the_challenge():
    r = score_challenge(
        {
            "TextQA": {
                "predictions": ["a) на 0,3 секунды", "A", "b) на секунду", "Авиаконструктора Сухого"],
                "references": [["a", "на 0,3 секунды", "a на 0,3 секунды"]] * 4,
            },
            "MathQA": {"predictions": ["d) -3", "3", "ответ: d"], "references": [["d", "-3", "d -3"]] * 3},
        },
        missing="zero",
    )
    assert [round(x, 4) for x in r.tasks["TextQA"].item_scores] == [1.0, 1.0, 0.6667, 0.0]
    assert r.tasks["MathQA"].item_scores == [1.0, 0.0, 1.0]
    assert r.task_scores["MathQA"] == pytest.approx(2 / 3)


# ----------------------------------------------------------------------------- composition


def test_tasks_compose_the_core_metrics():
    preds = ["Кот сидит на окне.", "Собака бежит по парку"]
    refs = [["Рыжий кот сидит на окне", "Кошка на подоконнике"], ["Собака бежит по зелёному парку"]]
    (a1, b1), (a2, b2) = _pair_with_cosine(0.25), _pair_with_cosine(0.35, seed=2)
    r = score_challenge(
        {
            "ImageCaptioning": {
                "predictions": preds,
                "references": refs,
                "image_embeddings": [a1, a2],
                "text_embeddings": [b1, b2],
            },
            "TRitW": {"predictions": ["хор", "kitten"], "references": [["хор"], ["sitting"]]},
            "TextQA": {"predictions": preds, "references": refs},
        },
        missing="zero",
    )
    meteor = compute_meteor(preds, refs, variant="fbc2_captioning")
    cap = r.tasks["ImageCaptioning"]
    assert cap.components == pytest.approx({"meteor": meteor.meteor, "clip": 0.3})
    assert cap.score == pytest.approx((meteor.meteor + 0.3) / 2)
    assert cap.item_scores == pytest.approx([(meteor.scores[0] + 0.25) / 2, (meteor.scores[1] + 0.35) / 2])
    assert cap.signatures["meteor"] == meteor.signature
    ned = compute_one_minus_ned(["хор", "kitten"], [["хор"], ["sitting"]])
    assert r.task_scores["TRitW"] == ned.one_minus_ned
    f1 = compute_token_f1(preds, refs, variant="fbc2_textqa", percent=False)
    assert r.task_scores["TextQA"] == f1.f1 and r.tasks["TextQA"].signatures["token_f1"] == f1.signature
    # sub-scores may be mixed: METEOR given, CLIP computed
    mixed = score_challenge(
        {"ImageCaptioning": {"meteor": 0.5, "image_embeddings": [a1], "text_embeddings": [b1]}},
        missing="zero",
    )
    assert mixed.task_scores["ImageCaptioning"] == pytest.approx((0.5 + 0.25) / 2)


# ----------------------------------------------------------------------------- layout


def test_whole_submission_example():
    r = score_submission(**WHOLE_SUBMISSION_EXAMPLE)
    assert set(r.task_scores) == set(OPEN + HIDDEN)
    assert r.tasks["TextQA"].item_scores == [1.0, 0.8] and r.tasks["TextQA"].ids == ["0", "1"]
    assert r.tasks["MathQA"].item_scores == [1.0, 0.0]  # "ответ: b" falls back to b, gold c
    assert r.tasks["VisualQA"].item_scores == [1.0, 0.6]  # "три" vs "5": 3/5
    assert r.tasks["TRitW"].item_scores == [1.0, 1 - 5 / 16]
    assert (
        r.tasks["ImageGeneration"].ids == ["4", "5"] and r.tasks["ImageGeneration"].components["fid"] == 61.5
    )
    assert r.hidden_sum == pytest.approx(1.81)
    want = math.fsum(s / 15 for s in (r.task_scores[t] for t in OPEN)) + math.fsum(
        r.task_scores[t] / 10 for t in HIDDEN
    )
    assert r.integral == pytest.approx(want, abs=1e-15)
    assert r.eligible
    # the example is not modified by scoring, and the copy is independent
    assert whole_submission_example() == WHOLE_SUBMISSION_EXAMPLE
    assert json.loads(json.dumps(WHOLE_SUBMISSION_EXAMPLE)) == WHOLE_SUBMISSION_EXAMPLE


def test_per_id_dicts_are_matched_by_id_and_parts_are_read_as_the_challenge():
    preds = {
        "b": [{"type": "image", "content": "x.jpg"}, {"type": "text", "content": "хор"}],
        "a": [{"type": "image", "content": "y.jpg"}],
    }  # no text part: ""
    refs = {"a": {"type": "text", "content": ["кот"]}, "b": [{"type": "text", "content": "хор"}]}
    r = score_challenge({"TRitW": {"predictions": preds, "references": refs}}, missing="zero")
    assert r.tasks["TRitW"].ids == ["a", "b"] and r.tasks["TRitW"].item_scores == [0.0, 1.0]
    # plain lists may hold parts too
    r2 = score_challenge(
        {"TRitW": {"predictions": [preds["a"], "хор"], "references": [["кот"], refs["b"]]}}, missing="zero"
    )
    assert r2.tasks["TRitW"].item_scores == [0.0, 1.0]


def test_split_submission():
    ex = whole_submission_example()
    split = split_submission(ex["predictions"], ex["references"], ex["task_ids"])
    assert list(split) == list(OPEN)
    assert split["TextQA"]["predictions"] == {"0": ex["predictions"]["0"], "1": ex["predictions"]["1"]}
    assert split["ImageGeneration"] == {"ids": ["4", "5"]}
    by_name = {k: FBC2.tasks[v].name for k, v in ex["task_ids"].items()}
    assert split_submission(ex["predictions"], ex["references"], by_name) == split
    # a given score replaces an image task's ids; more inputs join them
    inputs = submission_inputs(ex["predictions"], ex["references"], ex["task_ids"], {"ImageGeneration": 0.4})
    assert inputs["ImageGeneration"] == 0.4


def test_spec_files_json_and_yaml(tmp_path):
    spec = {
        "name": "mini",
        "tasks": {
            "QA": {"metric": "token_f1", "weight": "1/3", "threshold": 0.5},
            "Hidden": {"weight": 0.5, "group": "hidden"},
        },
    }
    (tmp_path / "mini.json").write_text(json.dumps(spec), "utf-8")
    yaml_text = "name: mini\ntasks:\n  QA: {metric: token_f1, weight: 1/3, threshold: 0.5}\n  Hidden: {weight: 0.5, group: hidden}\n"
    (tmp_path / "mini.yaml").write_text(yaml_text, "utf-8")
    specs = [
        load_challenge(spec),
        load_challenge(tmp_path / "mini.json"),
        load_challenge(str(tmp_path / "mini.yaml")),
        load_challenge(yaml_text),
        load_challenge(json.dumps(spec)),
    ]
    assert all(s == specs[0] and s.digest == specs[0].digest for s in specs)
    s = specs[0]
    assert s.task("QA").config == "squad" and s.task("QA").weight == 1 / 3 and s.task("QA").group == "main"
    assert s.task("Hidden").metric == "score"
    r = score_challenge({"QA": {"predictions": ["The Cat!"], "references": [["cat"]]}, "Hidden": 0.5}, s)
    assert r.integral == pytest.approx(1 / 3 + 0.25)
    assert r.group_sums == {"main": 1.0, "hidden": 0.5} and r.eligibility == {"QA": True}
    # the digest follows the scoring content, not the prose
    changed = dict(spec, title="A title")
    assert load_challenge(changed).digest == s.digest
    spec["tasks"]["QA"]["weight"] = 0.3
    assert load_challenge(spec).digest != s.digest


def test_eligibility_is_score_at_or_above_threshold():
    r = score_challenge({"TextQA": 0.2, "MathQA": 0.2499, "ImageGeneration": 0.21}, missing="zero")
    assert r.eligibility["TextQA"] is True and r.eligibility["MathQA"] is False
    assert r.tasks["Hidden1"].eligible is None and not r.eligible


# ----------------------------------------------------------------------------- properties

SCORES = st.floats(0.0, 1.0, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(st.lists(SCORES, min_size=12, max_size=12), st.randoms(use_true_random=False))
def test_integral_properties(values, rnd):
    inputs = dict(zip(OPEN + HIDDEN, values))
    r = score_challenge(inputs)
    assert -1e-12 <= r.integral <= 1.0 + 1e-12  # fbc2 weights sum to 1
    assert r.integral == pytest.approx(sum(values[:6]) / 15 + sum(values[6:]) / 10, abs=1e-12)
    items = list(inputs.items())
    rnd.shuffle(items)
    again = score_challenge(dict(items))
    assert (again.integral, again.task_scores, again.signature) == (r.integral, r.task_scores, r.signature)
    # raising one task's score raises the integral by weight * delta
    bumped = dict(inputs, Hidden3=1.0)
    assert score_challenge(bumped).integral == pytest.approx(
        r.integral + (1.0 - inputs["Hidden3"]) / 10, abs=1e-12
    )


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["хор", "кот", "a) хор", "", "kitten"]),
            st.sampled_from(["хор", "кот", "sitting"]),
        ),
        min_size=1,
        max_size=6,
    ),
    st.randoms(use_true_random=False),
)
def test_per_id_order_does_not_matter(pairs, rnd):
    preds = {str(i): p for i, (p, _) in enumerate(pairs)}
    refs = {str(i): [g] for i, (_, g) in enumerate(pairs)}
    r = score_challenge({"TRitW": {"predictions": preds, "references": refs}}, missing="zero")
    keys = list(preds)
    rnd.shuffle(keys)
    shuffled = score_challenge(
        {"TRitW": {"predictions": {k: preds[k] for k in keys}, "references": refs}}, missing="zero"
    )
    assert (
        shuffled.task_scores == r.task_scores
        and shuffled.tasks["TRitW"].item_scores == r.tasks["TRitW"].item_scores
    )
    assert 0.0 <= r.task_scores["TRitW"] <= 1.0


# ----------------------------------------------------------------------------- evaluate


def test_evaluate_module_equals_the_core_offline():
    import evaluate

    metric = evaluate.load("metrics/challenge_score")
    inputs = submission_inputs(**WHOLE_SUBMISSION_EXAMPLE)
    preds, refs = task_rows(inputs)
    got = metric.compute(predictions=preds, references=refs)
    want = score_challenge(inputs).as_dict()
    assert got == want
    # streaming rows one by one, with numpy arrays inside
    a, b = _pair_with_cosine(0.3)
    rows = [
        (
            {
                "task": "ImageGeneration",
                "image_embeddings": np.stack([a]),
                "text_embeddings": np.stack([b]),
                "fid": np.float64(50.0),
            },
            None,
        ),
        ({"task": "Hidden1", "score": np.float32(0.5)}, None),
    ]
    for p, r in rows:
        metric.add(prediction=p, reference=r)
    streamed = metric.compute(missing="zero")
    by_task = dict(zip(streamed["columns"]["id"], streamed["scores"]))
    assert by_task["ImageGeneration"] == pytest.approx(0.525)
    assert by_task["Hidden1"] == 0.5
    assert streamed["signature"].startswith("challenge_score|variant:fbc2|missing:zero|spec:")


def test_evaluate_custom_config():
    import evaluate

    custom = evaluate.load("metrics/challenge_score", "custom")
    spec = {"name": "one", "tasks": {"OCR": {"metric": "one_minus_ned", "weight": 1}}}
    r = custom.compute(
        predictions=[{"task": "OCR", "predictions": ["abc"]}], references=[[["abd"]]], spec=spec
    )
    assert r["integral"] == pytest.approx(2 / 3) and r["main_sum"] == pytest.approx(2 / 3)
