"""Evaluation code written against ``pycocoevalcap`` (``harness_code.py``: lmms-eval's
per-metric aggregation, the toolkit's ``COCOEvalCap`` example over files, a training loop's
``language_eval``, dense video captioning's per-video scorer calls) run twice: with the toolkit
and Java, and with only its import prefix changed to ``metricore.pycocoevalcap``.

Every number, type, shape, key order and printed line must be the same: BLEU and ROUGE-L bit
for bit, CIDEr-D within 1e-12, METEOR equal to the jar's. The toolkit's side of each harness
runs once per module (each of its ``Meteor()`` objects starts a JVM that loads the paraphrase
table); SPICE, which needs a CoreNLP download, is replaced by a stub on the toolkit's side of
``COCOEvalCap`` and left out on ours.
"""

from __future__ import annotations

import contextlib
import io
import random
import re
import string
import subprocess
import types
from typing import Any

import pytest

from metricore.metrics.coco_caption import meteor_1_5_available
from tests.oracles import java_ptb
from tests.pycocoevalcap.compare import CIDER_TOL, assert_same, printed
from tests.pycocoevalcap.data import captions, coco_files
from tests.pycocoevalcap.switch import SWITCHED, load_harness

pytest.importorskip("pycocoevalcap", reason="pycocoevalcap is not installed")
pytest.importorskip("pycocotools", reason="pycocotools is not installed")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(java_ptb.unavailable_reason() is not None, reason=str(java_ptb.unavailable_reason())),
    pytest.mark.skipif(not meteor_1_5_available(), reason="METEOR 1.5 is not installed"),
]

KEYS = ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "METEOR", "ROUGE_L", "CIDEr"]


def run(fn: Any, *args: Any) -> tuple[Any, str]:
    """``fn(*args)`` and what it printed on stdout; the switched harness may start no process
    (no JVM: the toolkit starts one per ``Meteor()`` and per ``tokenize``)."""
    out = io.StringIO()
    with contextlib.ExitStack() as stack:
        stack.enter_context(contextlib.redirect_stdout(out))
        if fn.__module__ == SWITCHED:
            mp = stack.enter_context(pytest.MonkeyPatch.context())
            mp.setattr(subprocess, "Popen", _no_process)
        result = fn(*args)
    return result, printed(out.getvalue())


def _no_process(*args: Any, **kwargs: Any) -> None:
    raise AssertionError(f"metricore.pycocoevalcap started a process: {args[:1]}")


class _SpiceStub:
    """The toolkit's Spice without its CoreNLP download: a score of 0 per image."""

    def __init__(self) -> None:
        pass

    def compute_score(self, gts: dict, res: dict) -> tuple[float, list[float]]:
        return 0.0, [0.0] * len(gts)

    def method(self) -> str:
        return "SPICE"


@pytest.fixture(scope="module")
def toolkit() -> types.ModuleType:
    return load_harness(switched=False)


@pytest.fixture(scope="module")
def metricore_harness() -> types.ModuleType:
    return load_harness(switched=True)


# ------------------------------------------------------------------ lmms-eval: one call per key


@pytest.fixture(scope="module")
def lmms_results() -> list[dict[str, Any]]:
    ids, cands, refs = captions(240, seed=31)
    return [{"image_id": i, "pred": c, "answer": rs} for i, c, rs in zip(ids, cands, refs)]


@pytest.fixture(scope="module")
def lmms_toolkit(toolkit, lmms_results) -> dict[str, tuple[Any, str]]:
    return {key: run(toolkit.per_metric_aggregation, lmms_results, key) for key in KEYS}


@pytest.mark.parametrize("key", KEYS)
def test_per_metric_aggregation(key, lmms_toolkit, metricore_harness, lmms_results):
    theirs, their_print = lmms_toolkit[key]
    ours, our_print = run(metricore_harness.per_metric_aggregation, lmms_results, key)
    assert_same(theirs, ours, key, CIDER_TOL if key == "CIDEr" else 0.0)
    assert our_print == their_print
    assert len(ours["image_ids"]) == len(lmms_results)


# ------------------------------------------------------------- COCOEvalCap over two files


@pytest.fixture(scope="module")
def coco_eval_files(tmp_path_factory) -> tuple[str, str, list[int]]:
    ann_file, res_file, ids = coco_files(tmp_path_factory.mktemp("coco"), 300, seed=8)
    return str(ann_file), str(res_file), ids


def test_coco_eval_cap_over_files(toolkit, metricore_harness, coco_eval_files):
    import pycocoevalcap.eval as toolkit_eval

    ann_file, res_file, ids = coco_eval_files
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(toolkit_eval, "Spice", _SpiceStub)
        theirs, their_print = run(toolkit.coco_eval_files, ann_file, res_file)
    ours, our_print = run(metricore_harness.coco_eval_files, ann_file, res_file)
    # SPICE: the toolkit's stub scored it; ours leaves the key and its two lines out
    assert their_print.endswith("computing SPICE score...\nSPICE: 0.000\n")
    assert our_print == their_print[: -len("computing SPICE score...\nSPICE: 0.000\n")]
    del theirs["eval"]["SPICE"]
    for row in theirs["imgToEval"].values():
        del row["SPICE"]
    assert list(ours["eval"]) == KEYS
    assert_same(theirs, ours)
    assert list(ours["imgToEval"]) == ids  # loadRes keeps the annotation file's image order
    assert ours["evalImgs"][0] is ours["imgToEval"][ids[0]]


# --------------------------------------------------------- a training loop's language_eval


@pytest.fixture(scope="module")
def epochs() -> tuple[dict[int, list[str]], list[list[dict[str, Any]]]]:
    """The same validation references, three epochs of predictions (each a new call)."""
    ids, _, refs = captions(90, seed=77)
    references = dict(zip(ids, refs))
    runs = []
    for epoch in range(3):
        _, cands, _ = captions(90, seed=100 + epoch)
        runs.append([{"image_id": i, "caption": c} for i, c in zip(ids, cands)])
    return references, runs


@pytest.fixture(scope="module")
def language_eval_toolkit(toolkit, epochs) -> list[tuple[Any, str]]:
    references, runs = epochs
    return [run(toolkit.language_eval, preds, references) for preds in runs]


@pytest.mark.parametrize("epoch", range(3))
def test_language_eval_in_a_validation_loop(epoch, language_eval_toolkit, metricore_harness, epochs):
    references, runs = epochs
    theirs, their_print = language_eval_toolkit[epoch]
    ours, our_print = run(metricore_harness.language_eval, runs[epoch], references)
    assert_same(theirs, ours)
    assert our_print == their_print


# ------------------------------------------------------------ dense video: per-video calls


def _junk(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(10, 20)))


@pytest.fixture(scope="module")
def videos() -> dict[str, list[tuple[str, str]]]:
    """Videos of 1-4 (prediction, reference) pairs: generated captions, document text with
    numbers, tabs, line breaks, Cyrillic and CJK (``benchmarks/corpus.py``), empty predictions
    and the random-letter references dense captioning uses for unmatched predictions."""
    from benchmarks.corpus import qa_pairs

    _, cands, refs = captions(120, seed=5)
    qa_preds, qa_golds, _ = qa_pairs(120, seed=5)
    breaks = re.compile("[\r\x0b\x0c\u2028\u2029]")  # the tokenizer's one known divergence
    rng = random.Random(5)
    out: dict[str, list[tuple[str, str]]] = {}
    k = 0
    for v in range(70):
        pairs = []
        for _ in range(1 if v % 4 == 0 else rng.randint(2, 4)):
            r = rng.random()
            if r < 0.5:
                pairs.append((cands[k % 120], refs[k % 120][k % 5]))
            elif r < 0.85:
                pred, gold = qa_preds[k % 120], qa_golds[k % 120][0]
                pairs.append((breaks.sub(" ", pred), breaks.sub(" ", gold)))
            else:
                pairs.append((cands[k % 120], _junk(rng)))
            k += 1
        out[f"v_{v:03d}"] = pairs
    return out


def test_dense_video_per_video_calls(toolkit, metricore_harness, videos):
    theirs, their_print = run(toolkit.dense_video_scores, videos)
    ours, our_print = run(metricore_harness.dense_video_scores, videos)
    assert_same(theirs, ours)
    assert our_print == their_print
    single = [v for v, pairs in videos.items() if len(pairs) == 1]
    assert len(single) >= 10 and all(float(ours["per_video"]["CIDEr"][v][0]) == 0.0 for v in single)
