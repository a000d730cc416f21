"""BLEU, ROUGE-L, the COCO caption table and COCOEvalCap: typed errors naming the argument,
the row or the image."""

from __future__ import annotations

import json
import math

import pytest

from metricore.metrics.bleu import compute_bleu
from metricore.metrics.caption_text import check_caption_inputs
from metricore.metrics.coco_caption import CaptionAnnotations, COCOEvalCap, compute_coco_caption
from metricore.metrics.rouge import compute_rouge_l

OK = {"predictions": ["a dog runs", "a cat"], "references": [["a dog runs"], ["a cat sits"]]}
SHARED = [
    ({"predictions": ["a", "b"], "references": [["a"]]}, ValueError, "2 predictions but 1 references"),
    ({"predictions": [], "references": []}, ValueError, "empty"),
    ({"predictions": "a dog", "references": [["a dog"]]}, TypeError, "`predictions` must be a list"),
    ({"predictions": ["a dog"], "references": "a dog"}, TypeError, "`references` must be a list"),
    ({"predictions": None, "references": [["a"]]}, TypeError, "`predictions` must be a list"),
    ({"predictions": ["a", None], "references": [["a"], ["b"]]}, TypeError, r"predictions\[1\]"),
    ({"predictions": ["a", 3], "references": [["a"], ["b"]]}, TypeError, r"predictions\[1\]"),
    (
        {"predictions": ["a", "b"], "references": [["a"], []]},
        ValueError,
        r"references\[1\]` has no reference",
    ),
    ({"predictions": ["a"], "references": [["a", 3]]}, TypeError, r"references\[0\]\[1\]"),
    ({"predictions": ["a"], "references": [{"a": 1}]}, TypeError, r"references\[0\]"),
    ({"predictions": ["a"], "references": [None]}, TypeError, r"references\[0\]"),
    ({**OK, "tokenize": "yes"}, TypeError, "`tokenize` must be a bool"),
]


@pytest.mark.parametrize(
    "fn,name", [(compute_bleu, "bleu"), (compute_rouge_l, "rouge_l"), (compute_coco_caption, "coco_caption")]
)
@pytest.mark.parametrize(("kwargs", "error", "pattern"), SHARED)
def test_bad_rows(fn, name, kwargs, error, pattern):
    with pytest.raises(error, match=pattern) as err:
        fn(**kwargs)
    assert str(err.value).startswith(f"{name}: ")


@pytest.mark.parametrize(
    ("fn", "kwargs", "error", "pattern"),
    [
        (compute_bleu, {"n": 0}, ValueError, "`n` must be >= 1"),
        (compute_bleu, {"n": 2.5}, TypeError, "`n` must be an int"),
        (compute_bleu, {"n": True}, TypeError, "`n` must be an int"),
        (compute_rouge_l, {"beta": 0}, ValueError, "`beta` must be a positive"),
        (compute_rouge_l, {"beta": math.nan}, ValueError, "`beta` must be a positive"),
        (compute_rouge_l, {"beta": "1.2"}, TypeError, "`beta` must be a positive number"),
        (
            compute_coco_caption,
            {"scorers": ["bleu", "spice"]},
            ValueError,
            r"`scorers\[1\]` is 'spice'; allowed",
        ),
        (compute_coco_caption, {"scorers": "bleu"}, TypeError, "`scorers` must be a list"),
        (compute_coco_caption, {"scorers": []}, ValueError, "`scorers` is empty"),
    ],
)
def test_bad_options(fn, kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        fn(**OK, **kwargs)


def test_batch_check_names_absolute_rows():
    with pytest.raises(TypeError, match=r"predictions\[12\]"):
        check_caption_inputs(["a", 1], [["a"], ["b"]], "coco_caption", start=11)
    with pytest.raises(ValueError, match=r"references\[11\]"):
        check_caption_inputs(["a"], [[]], "coco_caption", start=11)
    assert check_caption_inputs((), [], "coco_caption") == ([], [])  # an empty streamed batch
    assert check_caption_inputs(("a",), ["one"], "coco_caption") == (["a"], [["one"]])


def test_coco_eval_cap_refuses_what_the_toolkit_asserts(tmp_path):
    coco = CaptionAnnotations.from_dataset(
        {"images": [{"id": 1}, {"id": 2}], "annotations": [{"image_id": 1, "caption": "a dog"}]}
    )
    with pytest.raises(ValueError, match="result 0 names image 9"):
        coco.load_results([{"image_id": 9, "caption": "a cat"}])
    with pytest.raises(ValueError, match="result 1 must be an object with `image_id` and `caption`"):
        coco.load_results([{"image_id": 1, "caption": "a"}, {"image_id": 1}])
    with pytest.raises(ValueError, match="non-empty list"):
        coco.load_results({"image_id": 1})
    e = COCOEvalCap(
        coco, coco.load_results([{"image_id": 1, "caption": "a"}, {"image_id": 1, "caption": "b"}])
    )
    with pytest.raises(ValueError, match="image 1 has 2 result captions"):
        e.evaluate()
    e = COCOEvalCap(coco, coco.load_results([{"image_id": 1, "caption": "a"}]))
    with pytest.raises(ValueError, match="image 2 has 0 result captions"):
        e.evaluate()  # params default to every annotated image, as in the toolkit
    e = COCOEvalCap(coco, coco.load_results([{"image_id": 2, "caption": "a"}]))
    e.params["image_id"] = [2]
    with pytest.raises(ValueError, match="image 2 has no reference caption"):
        e.evaluate()
    bad = CaptionAnnotations([1], [{"image_id": 1, "caption": 3}])
    with pytest.raises(TypeError, match="annotation of image 1 has no str `caption`"):
        COCOEvalCap(bad, coco.load_results([{"image_id": 1, "caption": "a"}]), meteor=False).evaluate()
    e.params["image_id"] = []
    with pytest.raises(ValueError, match="params\\['image_id'\\] is empty"):
        e.evaluate()
    with pytest.raises(TypeError, match="`meteor` must be a bool"):
        COCOEvalCap(coco, coco, meteor="no")
    path = tmp_path / "a.json"
    path.write_text(json.dumps({"images": []}), encoding="utf-8")
    with pytest.raises(ValueError, match="must hold"):
        COCOEvalCap.from_files(path, path)
