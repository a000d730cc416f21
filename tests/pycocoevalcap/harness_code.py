"""Evaluation code written against ``pycocoevalcap`` 1.2, in the style of the code bases that
call it. :mod:`tests.pycocoevalcap.test_harness_parity` loads this file twice: as written
(the toolkit, Java) and with every ``from pycocoevalcap.`` import turned into ``from
metricore.pycocoevalcap.``, the one change a code base makes to switch. Nothing else in this
file may name the toolkit (the loader checks it).

The functions restate the calling patterns, not any project's code:

* :func:`per_metric_aggregation`: lmms-eval's COCO caption task (``coco_cap/utils.py``): an
  aggregation call per metric key, each building a ``pycocotools`` ``COCO`` in memory,
  ``loadRes``, a ``COCOEvalCap`` for its ``params``, tokenizing ``gts`` and ``res``, creating
  all seven scorer objects (``Bleu(4)`` once per BLEU key, ``Meteor()``, ``Rouge()``,
  ``Cider()``) and running the one it needs;
* :func:`coco_eval_files`: the toolkit's own example, ``COCOEvalCap`` over an annotation file
  and a results file, ``params["image_id"] = cocoRes.getImgIds()``, ``evaluate()``;
* :func:`language_eval`: a training loop's validation step: ``PTBTokenizer`` then the four
  scorers (a new ``Meteor()`` every call), returning the corpus numbers and per-image scores;
* :func:`dense_video_scores`: dense video captioning evaluation: every (prediction,
  reference) pair of every video tokenized in one call, then each scorer called once per
  video on that video's few pairs (one reference each; some videos have a single pair), and
  the per-video scores averaged.
"""

from __future__ import annotations

import json
from typing import Any

COCO_KEYS = ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "METEOR", "ROUGE_L", "CIDEr"]


def per_metric_aggregation(results: list[dict[str, Any]], metric: str) -> dict[str, Any]:
    from pycocoevalcap.eval import Bleu, Cider, COCOEvalCap, Meteor, Rouge
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer
    from pycocotools.coco import COCO

    scorers = {
        "Bleu_1": Bleu(4),
        "Bleu_2": Bleu(4),
        "Bleu_3": Bleu(4),
        "Bleu_4": Bleu(4),
        "METEOR": Meteor(),
        "ROUGE_L": Rouge(),
        "CIDEr": Cider(),
    }
    dataset: dict[str, list[dict[str, Any]]] = {"annotations": [], "images": []}
    submission = []
    for item in results:
        submission.append({"image_id": int(item["image_id"]), "caption": item["pred"]})
        for answer in item["answer"]:
            dataset["annotations"].append(
                {"image_id": int(item["image_id"]), "caption": answer, "id": len(dataset["annotations"])}
            )
        dataset["images"].append({"id": item["image_id"]})
    coco = COCO()
    coco.dataset = dataset
    coco.createIndex()
    coco_result = coco.loadRes(submission)
    coco_eval = COCOEvalCap(coco, coco_result)
    gts, res = {}, {}
    for img in coco_eval.params["image_id"]:
        gts[img] = coco_eval.coco.imgToAnns[img]
        res[img] = coco_eval.cocoRes.imgToAnns[img]
    tokenizer = PTBTokenizer()
    gts = tokenizer.tokenize(gts)
    res = tokenizer.tokenize(res)
    score, scores = scorers[metric].compute_score(gts, res)
    if type(score) is list:
        score = score[int(metric.split("_")[-1]) - 1]
    return {"score": score, "scores": scores, "image_ids": list(gts)}


def coco_eval_files(annotation_file: str, results_file: str) -> dict[str, Any]:
    from pycocoevalcap.eval import COCOEvalCap
    from pycocotools.coco import COCO

    coco = COCO(annotation_file)
    coco_result = coco.loadRes(results_file)
    coco_eval = COCOEvalCap(coco, coco_result)
    coco_eval.params["image_id"] = coco_result.getImgIds()
    coco_eval.evaluate()
    out = {metric: score for metric, score in coco_eval.eval.items()}
    return {"eval": out, "imgToEval": coco_eval.imgToEval, "evalImgs": coco_eval.evalImgs}


def language_eval(predictions: list[dict[str, Any]], references: dict[Any, list[str]]) -> dict[str, Any]:
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.meteor.meteor import Meteor
    from pycocoevalcap.rouge.rouge import Rouge
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    gts = {p["image_id"]: [{"caption": c} for c in references[p["image_id"]]] for p in predictions}
    res = {p["image_id"]: [{"caption": p["caption"]}] for p in predictions}
    tokenizer = PTBTokenizer()
    gts = tokenizer.tokenize(gts)
    res = tokenizer.tokenize(res)
    scorers = [
        (Bleu(4), ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4"]),
        (Meteor(), "METEOR"),
        (Rouge(), "ROUGE_L"),
        (Cider(), "CIDEr"),
    ]
    out: dict[str, Any] = {}
    per_image: dict[str, Any] = {}
    for scorer, method in scorers:
        score, scores = scorer.compute_score(gts, res)
        if isinstance(method, list):
            for m, s, ss in zip(method, score, scores):
                out[m], per_image[m] = s, ss
        else:
            out[method], per_image[method] = score, scores
    return {"out": out, "per_image": per_image, "json": json.dumps({k: float(v) for k, v in out.items()})}


def dense_video_scores(videos: dict[str, list[tuple[str, str]]]) -> dict[str, Any]:
    import numpy as np
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.meteor.meteor import Meteor
    from pycocoevalcap.rouge.rouge import Rouge
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    tokenizer = PTBTokenizer()
    scorers = [
        (Bleu(4), ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4"]),
        (Meteor(), "METEOR"),
        (Rouge(), "ROUGE_L"),
        (Cider(), "CIDEr"),
    ]
    cur_res, cur_gts, vid2capid = {}, {}, {}
    unique_index = 0
    for vid, pairs in videos.items():
        vid2capid[vid] = []
        for pred, ref in pairs:
            cur_res[unique_index] = [{"caption": pred}]
            cur_gts[unique_index] = [{"caption": ref}]
            vid2capid[vid].append(unique_index)
            unique_index += 1
    tok_res = tokenizer.tokenize(cur_res)
    tok_gts = tokenizer.tokenize(cur_gts)
    output: dict[str, Any] = {}
    per_video: dict[str, Any] = {}
    for scorer, method in scorers:
        all_scores = {}
        for vid, ids in vid2capid.items():
            res = {i: tok_res[i] for i in ids}
            gts = {i: tok_gts[i] for i in ids}
            all_scores[vid] = scorer.compute_score(gts, res)
        per_video[scorer.method()] = all_scores
        if isinstance(method, list):
            means = np.mean([score for score, _ in all_scores.values()], axis=0)
            for m, value in zip(method, means):
                output[m] = value
        else:
            output[method] = np.mean([score for score, _ in all_scores.values()])
    return {"output": output, "per_video": per_video}
