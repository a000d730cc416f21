"""``evaluate.load("metrics/coco_caption")`` offline: the same table as the core for every
config, streaming equal to one shot (BLEU and CIDEr-D are corpus numbers), errors naming
absolute rows, keyword checks."""

from __future__ import annotations

import copy

import evaluate
import pytest

from metricore.registry import get
from tests.gen_cider_captions import caption_corpus

CANDS, REFS = caption_corpus(60, seed=22)


@pytest.mark.parametrize("config", ["coco", "bleu", "rouge_l"])
def test_evaluate_equals_core(config):
    before = copy.deepcopy((CANDS, REFS))
    got = evaluate.load("metrics/coco_caption", config).compute(predictions=CANDS, references=REFS)
    want = get("coco_caption").run(config, CANDS, REFS)
    assert got == want.as_dict()
    assert (CANDS, REFS) == before, "the caller's inputs were modified"
    keys = {
        "coco": {"Bleu_1", "Bleu_4", "ROUGE_L", "CIDEr"},
        "bleu": {"Bleu_1", "Bleu_4"},
        "rouge_l": {"ROUGE_L"},
    }
    assert keys[config] <= set(got) and set(got["columns"]) == set(got) - {"scores", "columns", "signature"}
    assert got["scores"] == got["columns"][want.main]


def test_streaming_equals_one_shot():
    metric = evaluate.load("metrics/coco_caption")
    metric.add_batch(predictions=CANDS[:17], references=REFS[:17])
    metric.add(prediction=CANDS[17], reference=REFS[17])
    metric.add_batch(predictions=CANDS[18:], references=REFS[18:])
    assert (
        metric.compute(meteor=False) == get("coco_caption").run("coco", CANDS, REFS, meteor=False).as_dict()
    )


def test_errors_name_absolute_rows_and_options():
    metric = evaluate.load("metrics/coco_caption", "bleu")
    metric.add_batch(predictions=["a", "b"], references=[["a"], ["b"]])
    with pytest.raises(TypeError, match=r"coco_caption: `predictions\[3\]`"):
        metric.add_batch(predictions=["c", 4], references=[["c"], ["d"]])
    with pytest.raises(ValueError, match=r"`references\[2\]` has no reference caption"):
        metric.add_batch(predictions=["c"], references=[[]])
    with pytest.raises(TypeError, match=r"unknown option\(s\)"):
        metric.compute(meteor=False)  # a coco option, not a bleu one


def test_confidence_intervals_of_every_key():
    """``confidence=`` gives every key of the table an interval (BLEU-k and METEOR 1.5 from
    resampled summed counts, ROUGE-L a mean, CIDEr-D with the corpus's document frequencies),
    each holding its corpus number, the same as the core's intervals with the same seed."""
    from metricore.intervals import confidence_intervals

    got = evaluate.load("metrics/coco_caption").compute(
        predictions=CANDS, references=REFS, confidence=0.9, n_resamples=300, seed=4
    )
    core = get("coco_caption").run("coco", CANDS, REFS)
    want = confidence_intervals(core, confidence=0.9, n_resamples=300, seed=4)
    assert set(want) == set(core.table)
    for key, ci in want.items():
        assert got[f"{key}_ci_low"] == ci.low and got[f"{key}_ci_high"] == ci.high
        assert ci.low <= core.table[key] <= ci.high, key
        assert ci.low < ci.high, key
