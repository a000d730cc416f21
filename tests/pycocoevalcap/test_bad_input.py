"""What the toolkit asserts (or fails on later, without saying where) is a ``ValueError`` or
``TypeError`` naming the scorer and the image id here; COCO-shaped input names the image's
position, the annotation or the result."""

from __future__ import annotations

import pytest

from metricore.metrics.coco_caption import CaptionAnnotations, meteor_1_5_available
from metricore.metrics.coco_caption import COCOEvalCap as CoreCOCOEvalCap
from metricore.pycocoevalcap import eval as evaluation
from metricore.pycocoevalcap.bleu.bleu import Bleu
from metricore.pycocoevalcap.cider.cider import Cider
from metricore.pycocoevalcap.meteor import meteor as meteor_module
from metricore.pycocoevalcap.meteor.meteor import Meteor
from metricore.pycocoevalcap.rouge.rouge import Rouge
from metricore.pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

METEOR = pytest.mark.skipif(not meteor_1_5_available(), reason="METEOR 1.5 is not installed")
SCORERS = [
    pytest.param(lambda: Bleu(4), "Bleu", id="Bleu"),
    pytest.param(Rouge, "Rouge", id="Rouge"),
    pytest.param(Cider, "CIDEr", id="Cider"),
    pytest.param(Meteor, "METEOR", id="Meteor", marks=METEOR),
]
GOOD = {"a.jpg": ["a dog runs", "a dog"], 7: ["a cat"]}
CASES = [
    (
        [],
        {7: ["a cat"]},
        TypeError,
        r"`gts` must be a dict of image id -> list of reference captions, got list",
    ),
    (GOOD, "a dog", TypeError, r"`res` must be a dict"),
    (GOOD, {7: ["a cat"]}, ValueError, r"same image ids .*1 only in gts \(first: 'a.jpg'\)"),
    (GOOD, {"a.jpg": ["x"], 7: ["y"], 8: ["z"]}, ValueError, r"1 only in res \(first: 8\)"),
    (
        GOOD,
        {"a.jpg": "a dog", 7: ["a cat"]},
        TypeError,
        r"res\['a.jpg'\] must be a list holding one candidate",
    ),
    (GOOD, {"a.jpg": ["a", "b"], 7: ["a cat"]}, ValueError, r"res\['a.jpg'\] holds 2 candidate captions"),
    (GOOD, {"a.jpg": [], 7: ["a cat"]}, ValueError, r"res\['a.jpg'\] holds 0 candidate captions"),
    (GOOD, {"a.jpg": [None], 7: ["a cat"]}, TypeError, r"res\['a.jpg'\]\[0\] must be a str, got NoneType"),
    (
        {"a.jpg": "a dog", 7: ["a cat"]},
        {"a.jpg": ["x"], 7: ["y"]},
        TypeError,
        r"gts\['a.jpg'\] must be a list",
    ),
    (
        {"a.jpg": ["a", 3], 7: ["a cat"]},
        {"a.jpg": ["x"], 7: ["y"]},
        TypeError,
        r"gts\['a.jpg'\]\[1\] must be a str",
    ),
]


@pytest.mark.parametrize(("make", "name"), SCORERS)
@pytest.mark.parametrize(("gts", "res", "error", "pattern"), CASES)
def test_scorers_name_the_image(make, name, gts, res, error, pattern):
    with pytest.raises(error, match=pattern) as err:
        make().compute_score(gts, res)
    assert str(err.value).startswith(f"{name}: ")


@pytest.mark.parametrize(("make", "name"), SCORERS[:3])
def test_an_image_without_references(make, name):
    with pytest.raises(
        ValueError, match=rf"{name}: gts\[7\] is an empty list; the toolkit needs at least one"
    ):
        make().compute_score({"a.jpg": ["a dog"], 7: []}, {"a.jpg": ["a dog"], 7: ["a cat"]})


@METEOR
def test_meteor_refuses_a_line_break_naming_the_image():
    with pytest.raises(ValueError, match=r"METEOR: a caption of image 7 contains a line break"):
        Meteor().compute_score({1: ["a dog"], 7: ["a cat\nsits"]}, {1: ["a dog"], 7: ["a cat"]})
    with pytest.raises(ValueError, match=r"image 1 contains a line break"):
        Meteor().compute_score({1: ["a dog"]}, {1: ["a\rdog"]})


def test_constructor_arguments():
    for value, error, pattern in [
        (0, ValueError, "`n` must be >= 1"),
        (2.5, TypeError, "`n` must be an int"),
        (True, TypeError, "`n` must be an int"),
    ]:
        with pytest.raises(error, match=pattern):
            Bleu(value)
    for kwargs, error, pattern in [
        ({"sigma": 0}, ValueError, "`sigma` must be a positive finite number"),
        ({"sigma": float("nan")}, ValueError, "`sigma` must be a positive finite number"),
        ({"sigma": "6"}, TypeError, "`sigma` must be a positive number"),
        ({"n": "4"}, TypeError, "`n` must be an int"),
    ]:
        with pytest.raises(error, match=pattern):
            Cider(**kwargs)
    assert Cider("ignored", "ignored", 4, 6).compute_score({1: ["a b"], 2: ["c"]}, {1: ["a b"], 2: ["d"]})


def test_rouge_calc_score_arguments():
    with pytest.raises(ValueError, match="Rouge: `candidate` must be a list holding one caption, got str"):
        Rouge().calc_score("a dog", ["a dog"])
    with pytest.raises(ValueError, match="Rouge: `refs` must be a non-empty list of captions"):
        Rouge().calc_score(["a dog"], [])


@pytest.mark.parametrize(
    ("captions", "error", "pattern"),
    [
        ([{"caption": "a"}], TypeError, r"`captions_for_image` must be a dict"),
        (
            {1: "a dog"},
            TypeError,
            r"captions_for_image\[1\] must be a list of \{'caption': str\} dicts, got str",
        ),
        (
            {1: [{"caption": "a"}, "b"]},
            TypeError,
            r"captions_for_image\[1\]\[1\] must be a dict with a 'caption'",
        ),
        (
            {"x": [{"id": 3}]},
            ValueError,
            r"captions_for_image\['x'\]\[0\] has no 'caption' \(its keys: 'id'\)",
        ),
        ({1: [{"caption": None}]}, TypeError, r"captions_for_image\[1\]\[0\]\['caption'\] must be a str"),
    ],
)
def test_ptb_tokenizer_names_the_image_and_caption(captions, error, pattern):
    with pytest.raises(error, match=pattern) as err:
        PTBTokenizer().tokenize(captions)
    assert str(err.value).startswith("PTBTokenizer: ")


# ----------------------------------------------------------------- COCO-shaped input


def test_an_image_without_id_names_its_position(tmp_path):
    dataset = {"images": [{"id": 1}, {"id": 2}, {"file_name": "x.jpg"}], "annotations": []}
    with pytest.raises(ValueError, match=r"coco_caption: images\[2\] has no `id` \(its keys: 'file_name'\)"):
        CaptionAnnotations.from_dataset(dataset)
    with pytest.raises(TypeError, match=r"coco_caption: images\[0\] must be an object with an `id`, got int"):
        CaptionAnnotations.from_dataset({"images": [3], "annotations": []})
    with pytest.raises(ValueError, match='"images" must be a list'):
        CaptionAnnotations.from_dataset({"images": {"id": 1}, "annotations": []})


@pytest.mark.parametrize(
    ("build", "pattern"),
    [
        (
            lambda c: c.load_results([{"image_id": 1, "caption": "a"}, {"image_id": [1], "caption": "b"}]),
            r"result 1 ",
        ),
        (
            lambda c: CaptionAnnotations.from_dataset(
                {
                    "images": [{"id": 1}],
                    "annotations": [{"image_id": 1, "caption": "a"}, {"image_id": {}, "caption": "b"}],
                }
            ),
            r"annotation 1 ",
        ),
        (
            lambda c: CaptionAnnotations.from_dataset(
                {"annotations": [{"image_id": [1, 2], "caption": "a"}]}
            ),
            r"annotation 0 ",
        ),
        (
            lambda c: CaptionAnnotations.from_dataset({"images": [{"id": [1]}], "annotations": []}),
            r"images\[0\] ",
        ),
    ],
)
def test_an_unhashable_image_id_names_the_item(build, pattern):
    coco = CaptionAnnotations.from_dataset(
        {"images": [{"id": 1}], "annotations": [{"image_id": 1, "caption": "x"}]}
    )
    with pytest.raises(TypeError, match=pattern + r"has an image id of type (list|dict) .*must be hashable"):
        build(coco)


@pytest.mark.parametrize("cls", [CoreCOCOEvalCap, evaluation.COCOEvalCap])
def test_params_with_an_unhashable_image_id(cls, capsys):
    coco = CaptionAnnotations.from_dataset(
        {"images": [{"id": 1}], "annotations": [{"image_id": 1, "caption": "x"}]}
    )
    e = cls(coco, coco.load_results([{"image_id": 1, "caption": "x"}]), meteor=False)
    e.params["image_id"] = [1, [2]]
    with pytest.raises(TypeError, match=r"params\['image_id'\]\[1\] has an image id of type list"):
        e.evaluate()


@pytest.mark.filterwarnings("error")
def test_coco_eval_cap_without_meteor_1_5_says_what_to_install(monkeypatch, capsys):
    coco = CaptionAnnotations.from_dataset(
        {"images": [{"id": 1}], "annotations": [{"image_id": 1, "caption": "x"}]}
    )
    res = coco.load_results([{"image_id": 1, "caption": "x"}])
    monkeypatch.setattr(meteor_module, "meteor_1_5_available", lambda: False)
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'metricore\[coco\]'"):
        evaluation.COCOEvalCap(coco, res).evaluate()
    with pytest.raises(ModuleNotFoundError, match="pycocoevalcap package"):
        Meteor()
    e = evaluation.COCOEvalCap(coco, res, meteor=False)  # the addition to the toolkit's signature
    e.evaluate()
    assert "METEOR" not in e.eval and "computing METEOR" not in capsys.readouterr().out
