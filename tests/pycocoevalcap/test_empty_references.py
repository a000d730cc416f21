"""An image whose reference list is empty: one rule on every surface, the toolkit's.

What ``pycocoevalcap`` 1.2 does with such an image (checked here, with Java where it needs it):
``COCOEvalCap.evaluate()`` cannot score it (its ``PTBTokenizer`` emits no entry for an image
without captions, then ``Bleu`` asserts ``gts.keys() == res.keys()``), and ``Bleu``, ``Rouge``
and ``Cider`` assert ``len(ref) >= 1``. Only its ``Meteor`` scorer, called alone, has no such
assertion: the jar reads the empty field of ``SCORE |||  ||| hyp`` as one empty reference
and scores the image 0.

The rule: an image without references is a ``ValueError`` naming it, in the core (the
``coco_caption`` table and METEOR 1.5's ``compute_meteor_1_5``), the command line, the
``evaluate`` modules and ``COCOEvalCap``. The one exception is the drop-in
``metricore.pycocoevalcap.meteor.meteor.Meteor``, which returns what the toolkit's ``Meteor``
returns (0 for that image, its statistics in the corpus score).
"""

from __future__ import annotations

import json

import pytest

from metricore.cli.commands import EXIT_DATA, main
from metricore.metrics.coco_caption import (
    CaptionAnnotations,
    COCOEvalCap,
    compute_coco_caption,
    meteor_1_5_available,
)
from metricore.pycocoevalcap import eval as evaluation
from metricore.pycocoevalcap.meteor.meteor import Meteor
from tests.oracles import java_ptb

JAVA = pytest.mark.skipif(
    java_ptb.unavailable_reason() is not None, reason=str(java_ptb.unavailable_reason())
)
METEOR = pytest.mark.skipif(not meteor_1_5_available(), reason="METEOR 1.5 is not installed")
PREDS = ["a dog runs", "a cat", "a man rides a horse"]
REFS = [["a dog runs in a park"], [], ["a man riding a horse", "a horse"]]
NO_REFERENCE = r"`references\[1\]` (has no reference caption|is an empty list)"


# ---------------------------------------------------------------------- the toolkit's rule


def test_toolkit_scorers_assert_a_reference():
    toolkit = pytest.importorskip("pycocoevalcap.eval", reason="pycocoevalcap is not installed")
    gts, res = {1: ["a dog"], 2: []}, {1: ["a dog"], 2: ["a cat"]}
    for scorer in (toolkit.Bleu(4), toolkit.Rouge(), toolkit.Cider()):
        with pytest.raises(AssertionError):
            scorer.compute_score(gts, res)


class _Stub:
    def __init__(self) -> None:
        pass

    def compute_score(self, gts, res):
        return 0.0, [0.0] * len(gts)

    def method(self) -> str:
        return "stub"


@JAVA
def test_toolkit_coco_eval_cap_cannot_score_it(monkeypatch, capsys):
    """Its Java tokenizer drops the image, then Bleu's key assertion fails."""
    toolkit = pytest.importorskip("pycocoevalcap.eval")
    monkeypatch.setattr(toolkit, "Meteor", _Stub)
    monkeypatch.setattr(toolkit, "Spice", _Stub)
    coco = CaptionAnnotations.from_dataset(
        {"images": [{"id": 1}, {"id": 2}], "annotations": [{"image_id": 1, "caption": "a dog"}]}
    )
    res = coco.load_results([{"image_id": 1, "caption": "a dog"}, {"image_id": 2, "caption": "a cat"}])
    assert toolkit.PTBTokenizer().tokenize(coco.imgToAnns) == {1: ["a dog"]}
    with pytest.raises(AssertionError):
        toolkit.COCOEvalCap(coco, res).evaluate()
    capsys.readouterr()
    for cls in (COCOEvalCap, evaluation.COCOEvalCap):
        with pytest.raises(
            ValueError, match="image 2 has no reference caption; the toolkit needs at least one"
        ):
            cls(coco, res, meteor=False).evaluate()


@JAVA
@METEOR
@pytest.mark.slow  # the jar's JVM loads its paraphrase table
def test_toolkit_meteor_alone_scores_it_zero_and_so_does_the_drop_in():
    toolkit_meteor = pytest.importorskip("pycocoevalcap.meteor.meteor")
    gts = {i: refs for i, refs in enumerate(REFS)}
    res = {i: [p] for i, p in enumerate(PREDS)}
    theirs = toolkit_meteor.Meteor().compute_score(gts, res)
    assert theirs[1][1] == 0.0
    assert Meteor().compute_score(gts, res) == theirs


# ------------------------------------------------------------------------ every surface


def test_core_functions():
    from metricore.metrics.meteor15 import compute_meteor_1_5

    with pytest.raises(ValueError, match="coco_caption: " + NO_REFERENCE):
        compute_coco_caption(PREDS, REFS)
    with pytest.raises(ValueError, match="coco_caption: " + NO_REFERENCE):
        compute_coco_caption(PREDS, REFS, scorers=["bleu", "rouge_l", "cider"])
    if meteor_1_5_available():
        with pytest.raises(ValueError, match="meteor: " + NO_REFERENCE):
            compute_meteor_1_5(PREDS, REFS)
        with pytest.raises(ValueError, match="coco_caption: " + NO_REFERENCE):
            compute_coco_caption(PREDS, REFS, scorers=["meteor"])


@pytest.mark.parametrize(
    ("metric", "options"),
    [
        ("coco_caption", ["--option", "meteor=false"]),
        pytest.param("coco_caption", [], marks=METEOR),
        pytest.param("meteor", ["--config", "meteor_1_5"], marks=METEOR),
    ],
)
@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_command_line(metric, options, fmt, tmp_path, capsys):
    if fmt == "jsonl":
        path = tmp_path / "rows.jsonl"
        path.write_text(
            "".join(json.dumps({"prediction": p, "references": r}) + "\n" for p, r in zip(PREDS, REFS))
        )
    else:  # a references cell holding a JSON list
        path = tmp_path / "rows.csv"
        path.write_text(
            "prediction,references\n"
            + "".join(f'{p},"{json.dumps(r).replace(chr(34), 2 * chr(34))}"\n' for p, r in zip(PREDS, REFS))
        )
    code = main(["score", "--metric", metric, *options, "--predictions", str(path)])
    out, err = capsys.readouterr()
    assert code == EXIT_DATA and not out
    line = 2 if fmt == "jsonl" else 3  # the CSV's header is line 1
    assert f"{metric}: " in err and "references[1]" in err and f"{path} line {line}]" in err


@pytest.mark.parametrize(
    ("config", "kwargs"),
    [("coco", {"meteor": False}), pytest.param("coco", {}, marks=METEOR), ("bleu", {}), ("rouge_l", {})],
)
def test_evaluate_module(config, kwargs):
    evaluate = pytest.importorskip("evaluate")
    metric = evaluate.load("metrics/coco_caption", config)
    with pytest.raises(ValueError, match="coco_caption: " + NO_REFERENCE):
        metric.compute(predictions=PREDS, references=REFS, **kwargs)


@METEOR
def test_evaluate_module_meteor_1_5():
    evaluate = pytest.importorskip("evaluate")
    metric = evaluate.load("metrics/meteor", "meteor_1_5")
    with pytest.raises(ValueError, match=r"meteor: `references\[1\]` has no references"):
        metric.compute(predictions=PREDS, references=REFS)
