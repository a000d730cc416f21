"""``pycocoevalcap.meteor.meteor.Meteor`` (1.2) without Java: METEOR 1.5 as the toolkit's
``meteor-1.5.jar - - -stdio -l en -norm`` computes it, from :mod:`metricore.metrics.meteor15`.

The toolkit's ``Meteor()`` starts a JVM (2 GB heap) that loads the paraphrase table, one per
object, and ``compute_score`` talks to it line by line. Here ``Meteor()`` starts nothing: the
language data (the files the ``pycocoevalcap`` package ships, read without Java) is loaded
once per process, at the first ``compute_score``, and shared by every ``Meteor`` object.

>>> gts = {1: ["a man rides a horse", "a horse"], 2: ["a dog runs in the park"]}
>>> res = {1: ["a man riding a horse"], 2: ["a dog is running"]}
>>> score, scores = Meteor().compute_score(gts, res)
>>> round(score, 4), [round(s, 4) for s in scores]
(0.4335, [0.8909, 0.2874])
"""

from __future__ import annotations

from typing import Any

from metricore.metrics.coco_caption import meteor_1_5_available
from metricore.pycocoevalcap._inputs import scorer_inputs

__all__ = ["Meteor", "require_meteor_1_5"]


def require_meteor_1_5() -> None:
    """``ModuleNotFoundError`` saying what to install when METEOR 1.5 cannot run here."""
    if not meteor_1_5_available():
        raise ModuleNotFoundError(
            "METEOR: metricore computes METEOR 1.5 without Java from the language data that the "
            "pycocoevalcap package ships (its meteor-1.5.jar's paraphrase table, synonyms and "
            "function words); install it with: pip install 'metricore[coco]'"
        )


class Meteor:
    """``Meteor()``: ``compute_score(gts, res)`` returns the corpus METEOR 1.5 (a float: the jar's
    score of the statistics summed over the images) and the per-image scores (a list of floats,
    ``gts`` order), as the toolkit's jar returns them. As the toolkit, an image may have no
    reference (the jar reads the empty field as one empty reference: its score is 0)."""

    def __init__(self) -> None:
        require_meteor_1_5()

    def compute_score(self, gts: Any, res: Any) -> tuple[float, list[float]]:
        captions = scorer_inputs(gts, res, "METEOR", reference_required=False)
        if not captions.image_ids:
            raise ValueError(
                "METEOR: `gts` and `res` hold no image, there is nothing to score (the toolkit's jar answers "
                "'Error: specify Meteor stats')"
            )
        for img, hyp, refs in zip(captions.image_ids, captions.candidates, captions.references):
            for text in (hyp, *refs):
                if "\n" in text or "\r" in text:
                    raise ValueError(
                        f"METEOR: a caption of image {img!r} contains a line break, which the toolkit's jar "
                        "would read as the end of its input line; tokenize the captions first (PTBTokenizer)"
                    )
        from metricore.metrics.meteor15 import compute_meteor_1_5

        # what the jar reads from the toolkit's "SCORE ||| refs ||| hyp" line for an image
        # without references: one empty reference
        references = [refs if refs else [""] for refs in captions.references]
        result = compute_meteor_1_5(captions.candidates, references)
        return float(result.meteor), [float(s) for s in result.scores]

    @staticmethod
    def method() -> str:
        return "METEOR"
