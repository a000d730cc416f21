"""Bad input to the challenge score: every error names the spec or task and the field."""

from __future__ import annotations

import copy
import math

import pytest

from metricore.challenge import (
    WHOLE_SUBMISSION_EXAMPLE,
    load_challenge,
    score_challenge,
    score_submission,
    split_submission,
    submission_inputs,
)

MINI = {"name": "mini", "tasks": {"QA": {"metric": "token_f1", "config": "squad", "weight": 1}}}


def _spec(**task_fields):
    spec = copy.deepcopy(MINI)
    spec["tasks"]["QA"].update(task_fields)
    return spec


@pytest.mark.parametrize(
    "spec, error, pattern",
    [
        (
            [],
            TypeError,
            "`challenge` must be a built-in name, a path, spec text, a mapping or a ChallengeSpec, got list",
        ),
        ({"tasks": {}}, ValueError, "missing field `name`"),
        ({"name": "x"}, ValueError, r"spec 'x': missing field `tasks`"),
        ({"name": "x", "tasks": {}}, ValueError, r"spec 'x': field `tasks` is empty"),
        ({"name": "x", "tasks": 3}, TypeError, "field `tasks` must be a mapping"),
        ({"name": "", "tasks": {"a": {"weight": 1}}}, ValueError, "field `name` is empty"),
        ({"name": 3, "tasks": {}}, TypeError, "field `name` must be a str"),
        ({**MINI, "taks": {}}, ValueError, r"spec 'mini': unknown field\(s\) 'taks'"),
        (_spec(wieght=1), ValueError, r"spec 'mini', task 'QA': unknown field\(s\) 'wieght'"),
        (
            {"name": "x", "tasks": {"QA": {"metric": "score"}}},
            ValueError,
            r"task 'QA': missing field `weight`",
        ),
        ({"name": "x", "tasks": {"QA": 0.5}}, TypeError, r"task 'QA': must be a mapping of fields"),
        (
            _spec(metric="bleu"),
            ValueError,
            r"task 'QA': field `metric`: unknown metric 'bleu'; allowed: 'score', 'anls', 'meteor'",
        ),
        (
            _spec(config="squad3"),
            ValueError,
            r"task 'QA': field `config`: unknown config 'squad3' for metric 'token_f1'",
        ),
        (
            {"name": "x", "tasks": {"H": {"weight": 1, "config": "a"}}},
            ValueError,
            r"task 'H': field `config`: metric 'score' has no configs",
        ),
        (_spec(weight=-1), ValueError, r"task 'QA': field `weight` must be a finite number >= 0, got -1.0"),
        (_spec(weight="abc"), ValueError, r"task 'QA': field `weight` 'abc' is not a number or a fraction"),
        (_spec(weight="1/0"), ValueError, r"task 'QA': field `weight` '1/0'"),
        (
            _spec(weight=True),
            TypeError,
            r"task 'QA': field `weight` must be a number or a fraction string, got bool",
        ),
        (_spec(weight=math.inf), ValueError, r"task 'QA': field `weight` must be a finite number"),
        (_spec(threshold=1.5), ValueError, r"task 'QA': field `threshold` must be in \[0, 1\], got 1.5"),
        (_spec(threshold="0.2"), TypeError, r"task 'QA': field `threshold` must be a number"),
        (_spec(options=[1]), TypeError, r"task 'QA': field `options` must be a mapping, got list"),
        (
            _spec(options={"gamma": 0}),
            ValueError,
            r"task 'QA': field `options`: unknown option\(s\) 'gamma' for metric 'token_f1'",
        ),
        (
            _spec(options={"score": "em"}),
            ValueError,
            r"task 'QA': field `options`: option `score` must be one of 'f1', 'exact_match', got 'em'",
        ),
        (
            _spec(options={"language": "de"}),
            TypeError,
            r"task 'QA': field `options`: unknown option\(s\) 'language'; allowed: none",
        ),
        (_spec(task_id=[0]), TypeError, r"task 'QA': field `task_id` must be a str or an int"),
        (
            {"name": "x", "tasks": {"A": {"weight": 1, "task_id": 0}, "B": {"weight": 1, "task_id": "0"}}},
            ValueError,
            r"task 'B': field `task_id` '0' is also the task_id of 'A'",
        ),
        (
            {"name": "x", "tasks": [{"name": "A", "weight": 1}, {"name": "A", "weight": 1}]},
            ValueError,
            r"task 'A': duplicate task name",
        ),
        (
            {
                "name": "x",
                "tasks": {"G": {"metric": "image_generation", "weight": 1, "options": {"fid_cap": 0}}},
            },
            ValueError,
            r"task 'G': field `options`: `options.fid_cap` must be a positive finite number, got 0",
        ),
        (
            {
                "name": "x",
                "tasks": {"G": {"metric": "image_generation", "weight": 1, "options": {"clip": "ref"}}},
            },
            ValueError,
            r"task 'G': field `options`: option `clip` must be one of 'cosine', 'clip_score', got 'ref'",
        ),
    ],
)
def test_malformed_spec(spec, error, pattern):
    with pytest.raises(error, match=pattern):
        load_challenge(spec)


def test_spec_sources(tmp_path):
    with pytest.raises(ValueError, match=r"unknown challenge 'fbc3'; built-in: 'fbc2'"):
        load_challenge("fbc3")
    with pytest.raises(ValueError, match="no challenge spec file at"):
        load_challenge(str(tmp_path / "nope.yaml"))
    with pytest.raises(ValueError, match="not valid JSON"):
        (tmp_path / "bad.json").write_text("{name: x", "utf-8")
        load_challenge(tmp_path / "bad.json")
    with pytest.raises(ValueError, match="neither valid JSON nor valid YAML"):
        load_challenge("name: [x\ntasks: {")
    with pytest.raises(TypeError, match="`challenge` must be a built-in name"):
        load_challenge(3)
    with pytest.raises(TypeError, match="a challenge spec must be a mapping, got list"):
        load_challenge("- a\n- b\n")


@pytest.mark.parametrize(
    "inputs, error, pattern",
    [
        ({"TextQa": 1.0}, ValueError, r"unknown task\(s\) 'TextQa' for challenge 'fbc2'; tasks: 'TextQA'"),
        ({"TextQA": 1.5}, ValueError, r"task 'TextQA':.*`score` must be in \[0.0, 1.0\], got 1.5"),
        ({"Hidden1": -0.1}, ValueError, r"task 'Hidden1':.*`score` must be in \[0.0, 1.0\], got -0.1"),
        ({"Hidden1": math.nan}, ValueError, r"task 'Hidden1':.*`score` must be in \[0.0, 1.0\], got nan"),
        ({"Hidden1": {"score": "0.5"}}, TypeError, r"task 'Hidden1':.*`score` must be a number"),
        ({"Hidden1": True}, TypeError, r"task 'Hidden1': input must be a number .* got bool"),
        ({"Hidden1": "0.5"}, TypeError, r"task 'Hidden1': input must be a number"),
        ({"Hidden1": {}}, ValueError, r"task 'Hidden1': input is an empty mapping"),
        (
            {"Hidden1": {"predictions": ["a"]}},
            ValueError,
            r"task 'Hidden1': unknown input field\(s\) 'predictions' for metric 'score'",
        ),
        (
            {"TextQA": {"score": 0.5, "predictions": ["a"]}},
            ValueError,
            r"task 'TextQA': give either `score` or the raw inputs \('predictions'\)",
        ),
        (
            {"TextQA": {"predictions": ["a"]}},
            ValueError,
            r"task 'TextQA': needs `score` or `predictions` \+ `references` \(missing 'references'\)",
        ),
        (
            {"TextQA": {"predictions": ["a", "b"], "references": [["a"]]}},
            ValueError,
            r"task 'TextQA': mismatched lengths: 2 predictions but 1 references",
        ),
        (
            {"TextQA": {"predictions": [], "references": []}},
            ValueError,
            r"task 'TextQA': `predictions` is empty",
        ),
        (
            {"TextQA": {"predictions": {"0": "a", "1": "b"}, "references": {"0": ["a"], "2": ["c"]}}},
            ValueError,
            r"task 'TextQA': mismatched ids: no prediction for id\(s\) '2'; prediction id\(s\) '1' match no reference",
        ),
        (
            {"TextQA": {"predictions": {"0": "a"}, "references": [["a"]]}},
            TypeError,
            r"task 'TextQA': `predictions` and `references` must both be per-id dicts",
        ),
        (
            {"TextQA": {"predictions": [3], "references": [["a"]]}},
            TypeError,
            r"task 'TextQA': `predictions\[0\]` must be a str or a list of typed parts, got int",
        ),
        (
            {"TextQA": {"predictions": [[{"content": "a"}]], "references": [["a"]]}},
            TypeError,
            r"task 'TextQA': `predictions\[0\]\[0\]` must be a part",
        ),
        (
            {"TextQA": {"predictions": [[{"type": "text"}]], "references": [["a"]]}},
            ValueError,
            r"task 'TextQA': `predictions\[0\]\[0\]` has no 'content'",
        ),
        (
            {"TextQA": {"predictions": ["a"], "references": [[]]}},
            ValueError,
            r"task 'TextQA': `references\[0\]` has no gold answers",
        ),
        (
            {"TextQA": {"predictions": ["a"], "references": [[{"type": "image", "content": "x"}]]}},
            ValueError,
            r"task 'TextQA': `references\[0\]` has no 'text' part",
        ),
        (
            {"TextQA": {"predictions": ["a"], "references": [["a", 3]]}},
            TypeError,
            r"task 'TextQA': `references\[0\]\[1\]` must be a str",
        ),
        (
            {
                "VisualQA": {"predictions": ["a"], "references": [["a"]]},
                "TextQA": {"predictions": "a", "references": ["a"]},
            },
            TypeError,
            r"task 'TextQA': `predictions` must be a list or a per-id dict, got str",
        ),
        (
            {"ImageGeneration": {"clip": 0.3}},
            ValueError,
            r"task 'ImageGeneration': needs `fid` or `generated_features` \+ `real_features`",
        ),
        (
            {"ImageGeneration": {"fid": 3.0}},
            ValueError,
            r"task 'ImageGeneration': needs `clip` or `image_embeddings` \+ `text_embeddings`",
        ),
        (
            {"ImageGeneration": {"clip": 0.3, "fid": 1, "image_embeddings": [[1.0]]}},
            ValueError,
            r"task 'ImageGeneration': give either `clip` or `image_embeddings` \+ `text_embeddings`, not both",
        ),
        (
            {"ImageGeneration": {"fid": 1, "image_embeddings": [[1.0, 0.0]]}},
            ValueError,
            r"needs `clip` or .*\(missing `text_embeddings`\)",
        ),
        (
            {"ImageGeneration": {"clip": 1.2, "fid": 1}},
            ValueError,
            r"task 'ImageGeneration':.*`clip` must be in \[-1.0, 1.0\]",
        ),
        (
            {"ImageGeneration": {"clip": 0.3, "fid": -1}},
            ValueError,
            r"task 'ImageGeneration':.*`fid` must be in \[0.0, inf\]",
        ),
        (
            {"ImageGeneration": {"clip": 0.3, "fid": 1, "ids": "45"}},
            TypeError,
            r"task 'ImageGeneration': `ids` must be a list",
        ),
        (
            {
                "ImageGeneration": {
                    "fid": 1,
                    "ids": ["4", "5"],
                    "image_embeddings": {"4": [1.0, 0.0]},
                    "text_embeddings": {"4": [1.0, 0.0]},
                }
            },
            ValueError,
            r"task 'ImageGeneration': mismatched ids in `image_embeddings`: no row for id\(s\) '5'",
        ),
        (
            {
                "ImageCaptioning": {
                    "meteor": 0.5,
                    "image_embeddings": {"a": [1.0, 0.0]},
                    "text_embeddings": {"b": [1.0, 0.0]},
                }
            },
            ValueError,
            r"task 'ImageCaptioning': mismatched ids in `text_embeddings`",
        ),
        (
            {
                "ImageCaptioning": {
                    "predictions": ["кот"],
                    "references": [["кот"]],
                    "image_embeddings": [[1.0, 0.0]] * 2,
                    "text_embeddings": [[1.0, 0.0]] * 2,
                }
            },
            ValueError,
            r"task 'ImageCaptioning': mismatched lengths: 2 embedding pairs for 1 predictions",
        ),
        (
            {"ImageCaptioning": {"meteor": 1.5, "clip": 0.1}},
            ValueError,
            r"task 'ImageCaptioning':.*`meteor` must be in \[0.0, 1.0\]",
        ),
        (
            {"ImageCaptioning": {"meteor": 0.5, "clip": 0.1, "bleu": 1}},
            ValueError,
            r"task 'ImageCaptioning': unknown input field\(s\) 'bleu'",
        ),
        (
            {
                "ImageGeneration": {
                    "clip": 0.3,
                    "generated_features": [[1.0], [2.0]],
                    "real_features": [[1.0, 2.0], [3.0, 4.0]],
                }
            },
            ValueError,
            r"task 'ImageGeneration': ",
        ),
    ],
)
def test_bad_task_input(inputs, error, pattern):
    with pytest.raises(error, match=pattern):
        score_challenge(inputs, missing="zero")


def test_missing_task_and_policy():
    with pytest.raises(
        ValueError, match=r"challenge 'fbc2': missing task\(s\) 'Hidden1', 'Hidden2'.*missing='zero'"
    ):
        score_challenge({t: 1.0 for t in load_challenge("fbc2").task_names[:6]})
    with pytest.raises(
        ValueError, match=r"challenge_score: unknown missing 'skip'; allowed: 'error', 'zero'"
    ):
        score_challenge({}, missing="skip")
    with pytest.raises(TypeError, match="`inputs` must be a mapping"):
        score_challenge([1.0])


def test_option_errors_name_the_task_when_the_spec_is_read():
    # the metric's spec checks a task's options (MetricSpec.bind's check) before anything is scored
    spec = {"name": "x", "tasks": {"QA": {"metric": "token_f1", "config": "mlqa", "weight": 1}}}
    with pytest.raises(TypeError, match=r"task 'QA': field `options`: option `language` is required"):
        score_challenge({"QA": {"predictions": ["a"], "references": [["a"]]}}, spec)
    spec["tasks"]["QA"] = {"metric": "meteor", "options": {"gamma": 2}, "weight": 1}
    with pytest.raises(
        ValueError, match=r"task 'QA': field `options`: option `gamma` must be in \[0, 1\], got 2"
    ):
        score_challenge({"QA": {"predictions": ["a"], "references": [["a"]]}}, spec)


def test_core_errors_name_the_task():
    spec = {"name": "x", "tasks": {"QA": {"metric": "anls", "config": "anls_star", "weight": 1}}}
    with pytest.raises(ValueError, match=r"challenge_score: task 'QA': anls: `predictions\[0\]` is a tuple"):
        score_challenge({"QA": {"predictions": [("a", "b")], "references": ["a"]}}, spec)


def test_submission_errors():
    ex = copy.deepcopy(WHOLE_SUBMISSION_EXAMPLE)
    with pytest.raises(ValueError, match=r"`task_ids\['0'\]` is 9, not a task of 'fbc2'"):
        split_submission(ex["predictions"], ex["references"], {**ex["task_ids"], "0": 9})
    preds = dict(ex["predictions"])
    del preds["3"]
    with pytest.raises(ValueError, match=r"task 'MathQA': mismatched ids: no prediction for id '3'"):
        split_submission(preds, ex["references"], ex["task_ids"])
    refs = dict(ex["references"])
    del refs["10"]
    with pytest.raises(
        ValueError, match=r"task 'TRitW': mismatched ids: sample '10' has no entry in `references`"
    ):
        split_submission(ex["predictions"], refs, ex["task_ids"])
    with pytest.raises(ValueError, match=r"mismatched ids: `predictions` has id\(s\) '99' without a task"):
        split_submission({**ex["predictions"], "99": "x"}, ex["references"], ex["task_ids"])
    with pytest.raises(TypeError, match="`task_ids` must be a dict"):
        split_submission(ex["predictions"], ex["references"], list(ex["task_ids"]))
    with pytest.raises(ValueError, match=r"task 'TextQA': input field\(s\) 'predictions' given both"):
        submission_inputs(
            ex["predictions"], ex["references"], ex["task_ids"], {"TextQA": {"predictions": {}}}
        )
    with pytest.raises(ValueError, match=r"task 'TextQA': has answers in the submission files"):
        submission_inputs(ex["predictions"], ex["references"], ex["task_ids"], {"TextQA": 0.5})
    with pytest.raises(ValueError, match=r"unknown task 'Hidden7'"):
        score_submission(ex["predictions"], ex["references"], ex["task_ids"], {"Hidden7": 0.5})
    extra = {k: v for k, v in ex["extra"].items() if k != "Hidden6"}
    with pytest.raises(ValueError, match=r"missing task\(s\) 'Hidden6'"):
        score_submission(ex["predictions"], ex["references"], ex["task_ids"], extra)


def test_evaluate_bad_input():
    import evaluate

    metric = evaluate.load("metrics/challenge_score")
    with pytest.raises(
        TypeError, match=r"challenge_score: `predictions\[1\]` must be a dict with a str 'task'"
    ):
        metric.compute(
            predictions=[{"task": "Hidden1", "score": 0.5}, {"score": 0.5}], references=[None, None]
        )
    with pytest.raises(TypeError, match=r"unknown option\(s\) 'spec'"):
        metric.compute(predictions=[{"task": "Hidden1", "score": 0.5}], references=[None], spec={})
    with pytest.raises(ValueError, match=r"task 'Hidden1' appears twice"):
        metric.compute(
            predictions=[{"task": "Hidden1", "score": 0.5}] * 2, references=[None] * 2, missing="zero"
        )
    with pytest.raises(ValueError, match=r"got 1 predictions but 2 references"):
        metric.compute(predictions=[{"task": "Hidden1", "score": 0.5}], references=[None, None])
    custom = evaluate.load("metrics/challenge_score", "custom")
    with pytest.raises(TypeError, match=r"option `spec` is required: the challenge spec"):
        custom.compute(predictions=[{"task": "QA", "score": 0.5}], references=[None])
    with pytest.raises(ValueError, match=r"unknown config 'fbc3'"):
        evaluate.load("metrics/challenge_score", "fbc3").compute(predictions=[], references=[])
