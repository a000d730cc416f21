"""``pycocoevalcap.eval.COCOEvalCap`` (1.2) without Java, and the scorer classes it imports.

``COCOEvalCap(coco, cocoRes)`` over ``pycocotools`` ``COCO`` objects (``coco.loadRes(...)`` for
the results), ``params["image_id"]``, ``evaluate()``, ``eval``, ``imgToEval`` and ``evalImgs`` as
in the toolkit: the evaluation is :class:`metricore.metrics.coco_caption.COCOEvalCap`'s (PTB
tokens of the references in one call and of the candidates in another, then BLEU-1..4, METEOR
1.5, ROUGE-L and CIDEr-D on them); this class adds what the toolkit's shows:

* the values' types: ``Bleu_1``..``Bleu_4`` and ``METEOR`` are floats, ``ROUGE_L`` and
  ``CIDEr`` NumPy float64 (the toolkit's ``np.mean`` and array elements), corpus and per image;
* the printed progress, line for line on stdout: ``tokenization...``, ``setting up
  scorers...``, then per scorer ``computing <method> score...`` and ``<key>: <score:.3f>``, with
  BLEU's summed counts and ``ratio:`` line (its ``verbose=1``) before the ``Bleu_k`` lines. The
  lines come after the computation rather than between its steps (the text is the same).
  Not printed: the Java programs' own stderr lines (no Java runs).

SPICE is left out: ``eval`` has no ``SPICE`` key and nothing about SPICE is printed
(:class:`~metricore.pycocoevalcap.spice.spice.Spice` says what SPICE needs). METEOR 1.5 needs
the ``pycocoevalcap`` package's language data: without it, ``evaluate()`` raises
``ModuleNotFoundError`` (``meteor=False``, an addition to the toolkit's signature, leaves METEOR
out instead). :class:`~metricore.metrics.coco_caption.CaptionAnnotations` is importable from here
too: COCO-shaped objects from a dataset dict or a results list, without ``pycocotools``.

>>> coco = CaptionAnnotations.from_dataset({"images": [{"id": 1}, {"id": 2}], "annotations": [
...     {"image_id": 1, "caption": "A cat sits on a mat."}, {"image_id": 1, "caption": "A cat on a mat"},
...     {"image_id": 2, "caption": "A dog runs in the park."}, {"image_id": 2, "caption": "A dog in a park"}]})
>>> e = COCOEvalCap(coco, coco.load_results([{"image_id": 1, "caption": "a cat sits on a mat"},
...                                          {"image_id": 2, "caption": "a dog runs"}]))
>>> e.evaluate()
tokenization...
setting up scorers...
computing Bleu score...
{'testlen': 9, 'reflen': 11, 'guess': [9, 7, 5, 3], 'correct': [9, 7, 5, 3]}
ratio: 0.8181818181074382
Bleu_1: 0.801
Bleu_2: 0.801
Bleu_3: 0.801
Bleu_4: 0.801
computing METEOR score...
METEOR: 0.501
computing Rouge score...
ROUGE_L: 0.814
computing CIDEr score...
CIDEr: 5.049
>>> type(e.eval["CIDEr"]).__name__, type(e.imgToEval[2]["Bleu_4"]).__name__
('float64', 'float')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from metricore.metrics.bleu import bleu_keys
from metricore.metrics.coco_caption import CaptionAnnotations
from metricore.metrics.coco_caption import COCOEvalCap as _COCOEvalCap
from metricore.pycocoevalcap.bleu.bleu import Bleu, print_totals
from metricore.pycocoevalcap.cider.cider import Cider, one_image_silently
from metricore.pycocoevalcap.meteor.meteor import Meteor, require_meteor_1_5
from metricore.pycocoevalcap.rouge.rouge import Rouge
from metricore.pycocoevalcap.spice.spice import Spice
from metricore.pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

__all__ = ["COCOEvalCap", "CaptionAnnotations", "Bleu", "Meteor", "Rouge", "Cider", "Spice", "PTBTokenizer"]

#: the toolkit's scorers in its order: (method() it prints, the keys the scorer fills)
_STEPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (Bleu.method(), tuple(bleu_keys(4))),
    (Meteor.method(), ("METEOR",)),
    (Rouge.method(), ("ROUGE_L",)),
    (Cider.method(), ("CIDEr",)),
)
#: keys whose toolkit scorer returns NumPy values (np.mean of an array, and its elements)
_NUMPY_KEYS = frozenset({"ROUGE_L", "CIDEr"})


class COCOEvalCap(_COCOEvalCap):
    """``COCOEvalCap(coco, cocoRes)``: the toolkit's evaluator (module docstring)."""

    def evaluate(self) -> None:
        print("tokenization...")
        print("setting up scorers...")
        if self.meteor:
            require_meteor_1_5()
        with one_image_silently():
            img_ids, result = self._score()
        table: dict[str, Any] = {}
        per_image: dict[str, list[Any]] = {}
        for key, value in result.table.items():
            if key in _NUMPY_KEYS:
                values = np.asarray(result.per_image[key], dtype=np.float64)
                table[key], per_image[key] = np.mean(values), list(values)
            else:
                table[key], per_image[key] = value, list(result.per_image[key])
        for method, keys in _STEPS:
            if keys[0] not in table:
                continue
            print(f"computing {method} score...")
            if method == Bleu.method():
                print_totals(result.parts["bleu"].statistics)
            for key in keys:
                print("%s: %0.3f" % (key, table[key]))  # noqa: UP031 (the toolkit's format)
        self._record(img_ids, table, per_image)
        self.result = result
