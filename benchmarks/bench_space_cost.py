#!/usr/bin/env python
"""The Spaces' work budget: each metric's cost estimate (``metricore.registry.get(name).cost``,
units meant as microseconds of one core) against the measured scoring time, on the shapes
that make a request expensive (issue 17): long strings, many references per row, long
ANLS*/DUDE lists (a cubic assignment), METEOR and CIDEr at the row and character limits,
FID features of many dimensions.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_space_cost.py [--only NAME] [--max-seconds 20]

Prints one row per case: the estimate, the measured seconds (one run, the core scoring as
the Space's ``score_fn`` calls it, without the *why* texts) and their ratio (seconds per
million units; the budget ``metricore_hf.space.MAX_WORK`` assumes it stays under 1). A case
whose estimate is over ``--max-seconds`` million units is not run (the Space refuses it).
"""

from __future__ import annotations

import argparse
import random
import string
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from metricore.registry import get  # noqa: E402


def words(rng: random.Random, n: int, length: int = 7) -> str:
    return " ".join("".join(rng.choices(string.ascii_lowercase, k=length)) for _ in range(n))


def text(rng: random.Random, n: int) -> str:
    return "".join(rng.choices(string.ascii_letters + " ", k=n))


def cases() -> Iterator[tuple[str, str, str, list[Any], list[Any], dict[str, Any]]]:
    rng = random.Random(0)
    for n, chars, k in ((200, 2000, 1), (2000, 200, 5), (500, 2000, 5), (5000, 300, 20)):
        preds = [text(rng, chars) for _ in range(n)]
        refs = [[text(rng, chars) for _ in range(k)] for _ in range(n)]
        yield f"{n} x {chars} chars, {k} refs", "anls", "docvqa", preds, refs, {}
        yield f"{n} x {chars} chars, {k} refs", "one_minus_ned", "icdar2019", preds, refs, {}
    for m, rows, length in ((100, 20, 7), (400, 1, 7), (800, 1, 7), (200, 5, 60), (400, 1, 60), (800, 1, 30)):
        preds = [[text(rng, length) for _ in range(m)] for _ in range(rows)]
        refs = [[text(rng, length) for _ in range(m)] for _ in range(rows)]
        label = f"{rows} rows, lists of {m} x {length} chars"
        yield label, "anls", "anls_star", preds, refs, {}
        dude_refs = [{"answers": r, "answer_type": "list/extractive"} for r in refs]
        yield label, "anls", "dude", preds, dude_refs, {}
    for m, rows in ((50, 4), (100, 1), (200, 1), (400, 1)):
        preds = [[[text(rng, 5), text(rng, 9)] for _ in range(m)] for _ in range(rows)]
        refs = [[[text(rng, 5), text(rng, 9)] for _ in range(m)] for _ in range(rows)]
        yield f"{rows} rows, lists of {m} pairs (munkres)", "anls", "anls_star", preds, refs, {}
    for n, w, k in ((1000, 12, 5), (5000, 12, 5), (200, 250, 5), (2000, 250, 1), (500, 250, 20)):
        preds = [words(rng, w) for _ in range(n)]
        refs = [[words(rng, w) for _ in range(k)] for _ in range(n)]
        yield f"{n} x {w} unique words, {k} refs", "meteor", "nltk", preds, refs, {}
        yield f"{n} x {w} unique words, {k} refs", "cider", "cider_d", preds, refs, {}
        yield f"{n} x {w} unique words, {k} refs", "token_f1", "squad", preds, [r[:1] for r in refs], {}
    for n, d in ((3, 4096), (3, 2048), (500, 2048), (2000, 512), (1000, 1024)):
        feats = [[rng.gauss(0, 1) for _ in range(d)] for _ in range(n)]
        row = {"task": "ImageGeneration", "clip": 0.3, "generated_features": feats, "real_features": feats}
        yield f"FID {n} x {d}", "challenge_score", "fbc2", [row], [None], {"missing": "zero"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="")
    parser.add_argument("--max-seconds", type=float, default=20.0)
    args = parser.parse_args()
    warmed: set[tuple[str, str]] = set()
    print("| metric | config | case | estimate (M units) | seconds | s per M units |")
    print("|---|---|---|---:|---:|---:|")
    for label, name, config, preds, refs, options in cases():
        if args.only and args.only not in (name, config):
            continue
        metric = get(name)
        estimate = metric.cost(config, preds, refs, options) / 1e6
        if estimate > args.max_seconds:
            print(f"| {name} | {config} | {label} | {estimate:.2f} | (refused) | |", flush=True)
            continue
        if (name, config) not in warmed:  # imports, WordNet, tokenizer tables: not per request
            warmed.add((name, config))
            example = next(
                (e for e in metric.examples if (e.config or metric.default_config) == config), None
            )
            if example is not None:
                metric.run(config, list(example.predictions), list(example.references), **example.options)
        t0 = time.perf_counter()
        metric.run(config, preds, refs, **options)
        seconds = time.perf_counter() - t0
        print(
            f"| {name} | {config} | {label} | {estimate:.2f} | {seconds:.2f} | {seconds / max(estimate, 1e-9):.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
