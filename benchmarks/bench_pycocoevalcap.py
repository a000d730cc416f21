#!/usr/bin/env python
"""A harness's COCO caption evaluation, written against ``pycocoevalcap`` 1.2, run with the
toolkit (Java) and with only its import prefix switched to ``metricore.pycocoevalcap``.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_pycocoevalcap.py [--n 5000] [--rounds 2] [--json out.json]

``run(n)`` returns rows in the format of ``bench_rows.bench_row`` (the interface
``benchmarks/run.py`` expects of its metric modules). The harness is lmms-eval's COCO caption
aggregation (``per_metric_aggregation`` in ``tests/pycocoevalcap/harness_code.py``): one call
per key of the table (``Bleu_1`` .. ``Bleu_4``, ``METEOR``, ``ROUGE_L``, ``CIDEr``), each
building a ``pycocotools`` ``COCO`` in memory, ``loadRes``, a ``COCOEvalCap`` for its image
ids, tokenizing the references and the candidates with ``PTBTokenizer``, creating the seven
scorer objects (``Bleu(4)`` once per BLEU key, ``Meteor()``, ``Rouge()``, ``Cider()``) and
running the one it reports. With the toolkit that is 14 Java tokenizer runs and 7 METEOR JVMs
(each ``Meteor()`` starts one, which loads the paraphrase table; one of them scores).

Input: ``n`` generated images with 5 references each (``tests/gen_cider_captions.py``:
COCO-like captions, half with tokenizer-hard fragments). The two sides alternate for
``rounds`` rounds; each keeps its best wall time (the whole evaluation: all seven calls).
``max_abs_diff`` is the largest difference over every number the seven calls return (each
key's corpus score and per-image scores); ``peak_mib`` is the ``tracemalloc`` peak of a
separate untimed run (Python allocations only, so it is left out for the toolkit, whose
JVMs hold most of its memory). ``metricore.pycocoevalcap``'s ``PTBTokenizer`` keeps the tokens
of the last caption lists it saw: each timed evaluation starts with that cache empty, so its
first call tokenizes and the other six reuse the tokens, as in one run of the harness;
METEOR 1.5's language data stays loaded after the first round (once per process).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import json
import sys
import time
from pathlib import Path
from typing import Any
from unittest import mock

from bench_rows import bench_row, markdown_table, peak_mib

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from metricore.pycocoevalcap.tokenizer import ptbtokenizer  # noqa: E402
from tests.pycocoevalcap.switch import SWITCHED, load_harness  # noqa: E402

KEYS = ("Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "METEOR", "ROUGE_L", "CIDEr")


def _evaluation(harness: Any, results: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, float]]:
    """The seven aggregation calls: key -> what the call returned, key -> its seconds."""
    out: dict[str, Any] = {}
    seconds: dict[str, float] = {}
    with contextlib.ExitStack() as stack:
        stack.enter_context(contextlib.redirect_stdout(io.StringIO()))  # pycocotools' and BLEU's prints
        if harness.__name__ == SWITCHED:  # the claim of the row: no JVM, no process at all
            stack.enter_context(
                mock.patch("subprocess.Popen", side_effect=AssertionError("a process started"))
            )
            # each evaluation starts without the tokens an earlier round left (its first call
            # tokenizes, the six others find the same caption lists, as in one harness run)
            ptbtokenizer._tokenized.cache_clear()
        for key in KEYS:
            t0 = time.perf_counter()
            out[key] = harness.per_metric_aggregation(results, key)
            seconds[key] = time.perf_counter() - t0
    return out, seconds


def _diffs(theirs: dict[str, Any], ours: dict[str, Any]) -> dict[str, float]:
    """Key -> the largest difference over its corpus score and per-image scores."""
    import numpy as np

    out: dict[str, float] = {}
    for key in KEYS:
        a, b = theirs[key], ours[key]
        scores_a, scores_b = a["scores"], b["scores"]
        if key.startswith("Bleu"):  # n lists of per-image scores
            scores_a, scores_b = scores_a[int(key[-1]) - 1], scores_b[int(key[-1]) - 1]
        d = np.abs(np.asarray(scores_a, dtype=float) - np.asarray(scores_b, dtype=float))
        out[key] = max(abs(float(a["score"]) - float(b["score"])), float(d.max(initial=0.0)))
    return out


def run(n: int = 5000, rounds: int = 2) -> list[dict[str, Any]]:
    from metricore.metrics.coco_caption import meteor_1_5_available
    from tests.gen_cider_captions import caption_corpus, fingerprint

    if not meteor_1_5_available():
        raise SystemExit("METEOR 1.5 is not installed (pip install 'metricore[coco]')")
    cands, refs = caption_corpus(n)
    corpus = f"{n} images x 5 refs, corpus {fingerprint(cands, refs)}"
    results = [
        {"image_id": 100_000 + i, "pred": c, "answer": rs} for i, (c, rs) in enumerate(zip(cands, refs))
    ]
    toolkit, switched = load_harness(switched=False), load_harness(switched=True)
    best: dict[str, tuple[float, dict[str, Any], dict[str, float]]] = {}
    slowest: dict[str, float] = {}
    for _ in range(rounds):
        for name, harness in (("toolkit", toolkit), ("metricore", switched)):
            gc.collect()
            t0 = time.perf_counter()
            out, per_key = _evaluation(harness, results)
            seconds = time.perf_counter() - t0
            slowest[name] = max(slowest.get(name, 0.0), seconds)
            if name not in best or seconds < best[name][0]:
                best[name] = (seconds, out, per_key)
    their_s, theirs, their_keys = best["toolkit"]
    our_s, ours, our_keys = best["metricore"]

    def breakdown(per_key: dict[str, float]) -> str:
        return ", ".join(f"{k} {v:.2f}" for k, v in per_key.items())

    diffs = _diffs(theirs, ours)
    nonzero = ", ".join(f"{k} {v:.1e}" for k, v in diffs.items() if v) or "none"

    impl = "lmms-eval-style aggregation: 7 calls (COCO + loadRes + PTBTokenizer x2 + 7 scorer objects + 1 scorer)"
    return [
        bench_row(
            "coco harness (7 keys)",
            f"pycocoevalcap 1.2 + Java: {impl}",
            n,
            their_s,
            None,
            None,
            0.0,
            f"{corpus}; 14 Java tokenizer runs, 7 METEOR JVMs; seconds per key: {breakdown(their_keys)}",
        ),
        bench_row(
            "coco harness (7 keys)",
            f"metricore.pycocoevalcap (import prefix switched): {impl}",
            n,
            our_s,
            their_s,
            peak_mib(lambda: _evaluation(switched, results)),
            max(diffs.values()),
            f"no process started; keys that differ at all: {nonzero}; seconds per key: {breakdown(our_keys)}; "
            f"slowest round {slowest['metricore']:.2f} s (the first loads METEOR 1.5's data)",
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=2, help="alternating repetitions, best time kept")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args(argv)
    rows = run(args.n, rounds=args.rounds)
    print(markdown_table(rows))
    if args.json:
        from metricore.core.files import write_atomic

        write_atomic(args.json, json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
