#!/usr/bin/env python
"""COCO caption table speed, memory and agreement: metricore vs ``pycocoevalcap`` 1.2.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_coco.py [--n 5000] [--rounds 3] [--json out.json]

``run(n)`` returns rows in the format of ``bench_rows.bench_row`` (the interface
``benchmarks/run.py`` expects of its metric modules). Everything runs in one process on ``n``
generated images with 5 reference captions each (``tests/gen_cider_captions.py``: COCO-like
captions, half of them with tokenizer-hard fragments).

Cases, each against its ``pycocoevalcap`` counterpart on the same input:

* BLEU-1..4 on the PTB-tokenized strings: ``Bleu(4).compute_score`` vs
  ``compute_bleu(..., tokenize=False)``;
* ROUGE-L on the same strings: ``Rouge().compute_score`` vs ``compute_rouge_l(..., tokenize=False)``;
* the suite on raw captions: ``COCOEvalCap(coco, cocoRes).evaluate()`` (Java ``PTBTokenizer``
  twice, ``Bleu``, ``Rouge``, ``Cider``; its ``Meteor`` and ``Spice`` replaced by no-op
  scorers, SPICE needing a CoreNLP download) vs metricore's ``COCOEvalCap(...).evaluate()``
  with ``meteor=False`` (tokenize + BLEU + ROUGE-L + CIDEr-D);
* when METEOR 1.5 (``metricore.metrics.meteor15``) is installed, the same with METEOR on both
  sides (the toolkit's jar, JVM start included).

Every case runs ``rounds`` times round-robin and keeps its best wall time; ``max_abs_diff``
is the largest difference over every per-image number of the case; ``peak_mib`` is the
``tracemalloc`` peak of a separate untimed call (Python allocations only; the JVM's are not
counted).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_rows import bench_row, markdown_table, peak_mib

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

KEYS = ("Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "ROUGE_L", "CIDEr")


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    gc.collect()
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


class _NoScorer:
    """Stands in for the toolkit's Meteor and Spice in the timed suite."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def compute_score(self, gts: dict, res: dict) -> tuple[float, list[float]]:
        return 0.0, [0.0] * len(gts)

    def method(self) -> str:
        return "skipped"


class _Captions:
    """The two attributes of a pycocotools COCO object that COCOEvalCap reads."""

    def __init__(self, captions: dict[int, list[str]]) -> None:
        self.imgToAnns = {i: [{"image_id": i, "caption": c} for c in cs] for i, cs in captions.items()}

    def getImgIds(self) -> list[int]:  # noqa: N802 (the COCO API's name)
        return list(self.imgToAnns)


def run(n: int = 5000, rounds: int = 3) -> list[dict[str, Any]]:
    import numpy as np
    import pycocoevalcap.eval as toolkit
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.rouge.rouge import Rouge

    from metricore.metrics.bleu import compute_bleu
    from metricore.metrics.coco_caption import COCOEvalCap, meteor_1_5_available
    from metricore.metrics.rouge import compute_rouge_l
    from metricore.text.ptb_tokenize import coco_tokenize
    from tests.gen_cider_captions import caption_corpus, fingerprint

    cands, refs = caption_corpus(n)
    corpus = f"{n} images x 5 refs, corpus {fingerprint(cands, refs)}"
    coco_tokenize(["A warm-up caption."])  # the scanner's tables: once per process, not timed
    tok_cands = coco_tokenize(cands)
    flat = coco_tokenize([c for rs in refs for c in rs])
    tok_refs = [flat[5 * i : 5 * i + 5] for i in range(n)]
    gts = {i: tok_refs[i] for i in range(n)}
    res = {i: [tok_cands[i]] for i in range(n)}
    coco, coco_res = _Captions(dict(enumerate(refs))), _Captions({i: [c] for i, c in enumerate(cands)})

    def their_suite(meteor: bool = False) -> dict:
        saved = toolkit.Meteor, toolkit.Spice
        toolkit.Spice = _NoScorer  # type: ignore[misc]
        if not meteor:
            toolkit.Meteor = _NoScorer  # type: ignore[misc]
        try:
            e = toolkit.COCOEvalCap(coco, coco_res)
            with contextlib.redirect_stdout(io.StringIO()):
                e.evaluate()
        finally:
            toolkit.Meteor, toolkit.Spice = saved
        return e.imgToEval

    def our_suite(meteor: bool = False) -> dict:
        e = COCOEvalCap(coco, coco_res, meteor=meteor)
        e.evaluate()
        return e.imgToEval

    cases: dict[str, Callable[[], Any]] = {
        "their_bleu": lambda: Bleu(4).compute_score(gts, res, verbose=0)[1],
        "our_bleu": lambda: compute_bleu(tok_cands, tok_refs, tokenize=False).per_order,
        "their_rouge": lambda: Rouge().compute_score(gts, res)[1],
        "our_rouge": lambda: compute_rouge_l(tok_cands, tok_refs, tokenize=False).scores,
        "their_suite": their_suite,
        "our_suite": our_suite,
    }
    with_meteor = meteor_1_5_available()
    if with_meteor:
        # METEOR 1.5's first call in a process loads its data: that round counts too (best of rounds)
        cases["their_suite_meteor"] = lambda: their_suite(True)
        cases["our_suite_meteor"] = lambda: our_suite(True)
    runs: dict[str, list[tuple[Any, float]]] = {k: [] for k in cases}
    for _ in range(rounds):
        for name, fn in cases.items():
            runs[name].append(_timed(fn))

    def best(name: str) -> tuple[Any, float]:
        return runs[name][0][0], min(r[1] for r in runs[name])

    def diff(a: Any, b: Any) -> float:
        return float(np.max(np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float))))

    (tb, tb_s), (ob, ob_s) = best("their_bleu"), best("our_bleu")
    (tr, tr_s), (orr, or_s) = best("their_rouge"), best("our_rouge")
    (ts, ts_s), (os_, os_s) = best("their_suite"), best("our_suite")
    suite_diff = max(diff([ts[i][k] for i in range(n)], [os_[i][k] for i in range(n)]) for k in KEYS)
    extra: list[dict[str, Any]] = []
    if with_meteor:
        (tm, tm_s), (om, om_s) = best("their_suite_meteor"), best("our_suite_meteor")
        keys = (*KEYS, "METEOR")
        meteor_diff = max(diff([tm[i][k] for i in range(n)], [om[i][k] for i in range(n)]) for k in keys)
        extra = [
            bench_row(
                "coco suite + METEOR",
                "pycocoevalcap COCOEvalCap.evaluate() with its METEOR 1.5 jar (Spice skipped)",
                n,
                tm_s,
                None,
                None,
                0.0,
                corpus + "; JVM starts included",
            ),
            bench_row(
                "coco suite + METEOR",
                "metricore COCOEvalCap.evaluate() (PTB x2 + BLEU + METEOR 1.5 + ROUGE-L + CIDEr-D)",
                n,
                om_s,
                tm_s,
                None,
                meteor_diff,
                f"max_abs_diff over every per-image number of the 7 keys; slowest round {max(r[1] for r in runs['our_suite_meteor']):.2f} s (first call loads METEOR data)",
            ),
        ]
    return [
        bench_row(
            "bleu",
            "pycocoevalcap Bleu(4).compute_score (tokenized input)",
            n,
            tb_s,
            None,
            peak_mib(cases["their_bleu"]),
            0.0,
            corpus,
        ),
        bench_row(
            "bleu",
            "metricore compute_bleu(tokenize=False)",
            n,
            ob_s,
            tb_s,
            peak_mib(cases["our_bleu"]),
            diff(ob, tb),
            "Bleu_1..4, per image",
        ),
        bench_row(
            "rouge_l",
            "pycocoevalcap Rouge().compute_score (tokenized input)",
            n,
            tr_s,
            None,
            peak_mib(cases["their_rouge"]),
            0.0,
            corpus,
        ),
        bench_row(
            "rouge_l",
            "metricore compute_rouge_l(tokenize=False)",
            n,
            or_s,
            tr_s,
            peak_mib(cases["our_rouge"]),
            diff(orr, tr),
            "per image",
        ),
        bench_row(
            "coco suite",
            "pycocoevalcap COCOEvalCap.evaluate() (Java PTB x2 + Bleu + Rouge + Cider; Meteor/Spice skipped)",
            n,
            ts_s,
            None,
            None,
            0.0,
            corpus + "; JVM start included",
        ),
        bench_row(
            "coco suite",
            "metricore COCOEvalCap.evaluate(meteor=False) (PTB x2 + BLEU + ROUGE-L + CIDEr-D)",
            n,
            os_s,
            ts_s,
            peak_mib(our_suite),
            suite_diff,
            "max_abs_diff over every per-image number of the 6 keys",
        ),
        *extra,
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3, help="round-robin repetitions, best time kept")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args(argv)
    rows = run(args.n, rounds=args.rounds)
    print(markdown_table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
