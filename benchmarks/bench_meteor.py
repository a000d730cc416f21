#!/usr/bin/env python
"""METEOR speed, memory and agreement: metricore vs ``nltk.translate.meteor_score``.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_meteor.py [--n 5000] [--no-meteor15] [--json out.json]

``run(n)`` returns rows ``{metric, impl, items, seconds, items_per_s, ratio_vs_reference,
peak_mib, max_abs_diff, notes}`` (``benchmarks/run.py`` calls it). Everything runs in one
process, one case after another, single-threaded, on ``n`` generated caption sets with 5
references each (``tests/gen_captions.py``: synonyms, inflections, reordering, repeated words,
punctuation, empty strings).

Cases:

* NLTK reference on raw text: ``meteor_score([word_tokenize(r, preserve_line=True) ...],
  word_tokenize(h, preserve_line=True), wordnet=nltk.corpus.wordnet)`` per item (the HF
  ``meteor`` pipeline, offline); and on pre-tokenized input (``meteor_score`` alone).
* metricore ``compute_meteor`` on the same text / tokens with **cold caches** (tokenizer, stem
  and synonym caches emptied, a fresh WordNet synonym source), and once more warm.
* ``evaluate.load("metrics/meteor").compute`` (loading excluded).
* WordNet start-up: NLTK's ``WordNetCorpusReader`` (what ``nltk.corpus.wordnet`` builds) vs
  ``metricore.lexicon.wordnet.load_wordnet``; time and ``tracemalloc`` peak.
* Optional: METEOR 1.5 (``pycocoevalcap`` Java jar, needs ``java``) on the same sets, for the
  Pearson/Spearman correlation with the NLTK numbers quoted in the metric card.

Every case runs ``rounds`` times round-robin (default 2) and keeps its best wall and CPU time;
a "cold" run empties every metricore cache first. ``ratio_vs_reference`` is reference seconds /
implementation seconds on the same inputs (above 1: faster than NLTK); the CPU-time ratio is
in ``notes``. ``peak_mib`` is the ``tracemalloc`` peak of a separate untimed run.
``max_abs_diff`` compares per-sample scores with the NLTK reference.
"""

from __future__ import annotations

import argparse
import gc
import json
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_rows import bench_row, markdown_table, peak_mib

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    gc.collect()
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def _peak_mib(fn: Callable[[], Any]) -> float:
    return peak_mib(fn)


def _row(
    impl: str,
    items: int,
    seconds: float,
    ref_seconds: float | None,
    peak: float | None,
    diff: float | None,
    notes: str,
    metric: str = "meteor",
) -> dict[str, Any]:
    return bench_row(metric, impl, items, seconds, ref_seconds, peak, diff, notes)


def run(n: int = 5000, meteor15: bool = True, rounds: int = 2) -> list[dict[str, Any]]:
    from nltk.corpus.reader.wordnet import WordNetCorpusReader
    from nltk.tokenize import word_tokenize
    from nltk.translate.meteor_score import meteor_score

    from metricore import compute_meteor
    from metricore.lexicon import wordnet as mwn
    from metricore.lexicon.synonyms import WordNetSynonyms
    from metricore.metrics.meteor import clear_caches
    from tests.gen_captions import caption_sets

    hyps, refs = caption_sets(n)
    items = len(hyps)
    rows: list[dict[str, Any]] = []

    # ---- WordNet start-up ------------------------------------------------------------------
    loc = mwn.ensure_wordnet()
    mwn._clear_cache()
    _, ours_load, _ = _timed(lambda: mwn.load_wordnet(loc))
    import warnings

    def stock_load() -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return WordNetCorpusReader(str(loc.corpus_dir), None)

    stock, stock_load_s, _ = _timed(stock_load)
    stock_peak = _peak_mib(stock_load)
    mwn._clear_cache()
    ours_peak = _peak_mib(lambda: mwn.load_wordnet(loc))
    mwn.load_wordnet(loc)
    rows.append(
        _row(
            "nltk WordNetCorpusReader (nltk.corpus.wordnet start-up)",
            1,
            stock_load_s,
            None,
            stock_peak,
            None,
            f"WordNet {stock.get_version()} from {loc.corpus_dir} ({loc.source})",
            metric="wordnet load",
        )
    )
    rows.append(
        _row(
            "metricore.lexicon.wordnet.load_wordnet (NLTK reader, fast index load, no OMW map)",
            1,
            ours_load,
            stock_load_s,
            ours_peak,
            None,
            "same English lookups (parity-tested)",
            metric="wordnet load",
        )
    )

    # ---- inputs ---------------------------------------------------------------------------------
    tok_h = [word_tokenize(h, preserve_line=True) for h in hyps]
    tok_r = [[word_tokenize(r, preserve_line=True) for r in rs] for rs in refs]

    def fresh_source() -> WordNetSynonyms:
        clear_caches()
        return WordNetSynonyms(loc)

    # ---- NLTK reference -------------------------------------------------------------------
    def ref_text() -> list[float]:
        return [
            meteor_score(
                [word_tokenize(r, preserve_line=True) for r in rs],
                word_tokenize(h, preserve_line=True),
                wordnet=stock,
            )
            for h, rs in zip(hyps, refs)
        ]

    def ref_tokens() -> list[float]:
        return [meteor_score(r, h, wordnet=stock) for h, r in zip(tok_h, tok_r)]

    # Round-robin, best of `rounds` for every case, so that a busy spell of a shared machine
    # hits every implementation alike. "Cold" = every cache emptied before that run.
    def best(runs: list[tuple[Any, float, float]]) -> tuple[Any, float, float]:
        return runs[0][0], min(r[1] for r in runs), min(r[2] for r in runs)

    r_text, r_tok, o_text, o_text_w, o_tok, o_tok_w = [], [], [], [], [], []
    for _ in range(rounds):
        r_text.append(_timed(ref_text))
        r_tok.append(_timed(ref_tokens))
        src = fresh_source()
        o_text.append(_timed(lambda src=src: compute_meteor(hyps, refs, synonyms=src)))
        o_text_w.append(_timed(lambda src=src: compute_meteor(hyps, refs, synonyms=src)))
        src = fresh_source()
        o_tok.append(_timed(lambda src=src: compute_meteor(tok_h, tok_r, synonyms=src)))
        o_tok_w.append(_timed(lambda src=src: compute_meteor(tok_h, tok_r, synonyms=src)))
    ref_scores, ref_text_s, ref_text_cpu = best(r_text)
    ref_tok_scores, ref_tok_s, ref_tok_cpu = best(r_tok)
    assert ref_scores == ref_tok_scores
    ours_text, ours_text_s, ours_text_cpu = best(o_text)
    ours_text_w, warm_s, warm_cpu = best(o_text_w)
    ours_tok, ours_tok_s, ours_tok_cpu = best(o_tok)
    ours_tok_w, warm_tok_s, warm_tok_cpu = best(o_tok_w)

    def diff(scores: list[float]) -> float:
        return max(abs(a - b) for a, b in zip(scores, ref_scores))

    ours_text_peak = _peak_mib(lambda: compute_meteor(hyps, refs, synonyms=fresh_source()))
    ref_sub = slice(0, max(1, items // 10))
    ref_peak = _peak_mib(
        lambda: [meteor_score(r, h, wordnet=stock) for h, r in zip(tok_h[ref_sub], tok_r[ref_sub])]
    )

    cpu_note = "CPU-time ratio {:.1f}x"
    rows.append(
        _row(
            "nltk word_tokenize(preserve_line=True) + meteor_score (reference, text)",
            items,
            ref_text_s,
            None,
            None,
            0.0,
            f"{items} sets x 5 refs; HF meteor pipeline offline; CPU {ref_text_cpu:.2f} s",
        )
    )
    rows.append(
        _row(
            "metricore.compute_meteor (text, cold caches)",
            items,
            ours_text_s,
            ref_text_s,
            ours_text_peak,
            diff(ours_text.scores),
            cpu_note.format(ref_text_cpu / ours_text_cpu) + "; includes tokenization",
        )
    )
    rows.append(
        _row(
            "metricore.compute_meteor (text, warm caches)",
            items,
            warm_s,
            ref_text_s,
            None,
            diff(ours_text_w.scores),
            cpu_note.format(ref_text_cpu / warm_cpu) + "; second call, caches kept",
        )
    )
    rows.append(
        _row(
            "nltk meteor_score (reference, pre-tokenized)",
            items,
            ref_tok_s,
            None,
            ref_peak,
            0.0,
            f"tracemalloc peak on {ref_sub.stop} items; CPU {ref_tok_cpu:.2f} s",
        )
    )
    rows.append(
        _row(
            "metricore.compute_meteor (pre-tokenized, cold caches)",
            items,
            ours_tok_s,
            ref_tok_s,
            None,
            diff(ours_tok.scores),
            cpu_note.format(ref_tok_cpu / ours_tok_cpu),
        )
    )
    rows.append(
        _row(
            "metricore.compute_meteor (pre-tokenized, warm caches)",
            items,
            warm_tok_s,
            ref_tok_s,
            None,
            diff(ours_tok_w.scores),
            cpu_note.format(ref_tok_cpu / warm_tok_cpu) + "; second call, caches kept",
        )
    )

    try:
        import evaluate

        metric = evaluate.load(str(ROOT / "metrics" / "meteor"))
        clear_caches()
        got, ev_s, _ = _timed(lambda: metric.compute(predictions=hyps, references=refs))
        rows.append(
            _row(
                'evaluate.load("metrics/meteor").compute (text)',
                items,
                ev_s,
                ref_text_s,
                None,
                diff(got["scores"]),
                "loading excluded; synonym caches warm, token caches cold",
            )
        )
    except Exception as err:  # pragma: no cover - evaluate missing or offline cache issues
        rows.append(
            _row(
                'evaluate.load("metrics/meteor").compute',
                items,
                float("nan"),
                None,
                None,
                None,
                f"skipped: {err}",
            )
        )

    if meteor15:
        rows.extend(_meteor15(hyps, refs, ours_text.scores))
    return rows


def _meteor15(hyps: list[str], refs: list[list[str]], nltk_scores: list[float]) -> list[dict[str, Any]]:
    """METEOR 1.5 (Java, pycocoevalcap) on the same sets, and its correlation with NLTK's."""
    if shutil.which("java") is None:
        return [
            _row(
                "METEOR 1.5 (pycocoevalcap jar)",
                len(hyps),
                float("nan"),
                None,
                None,
                None,
                "skipped: no java",
            )
        ]
    try:
        from pycocoevalcap.meteor.meteor import Meteor
        from scipy.stats import pearsonr, spearmanr
    except ImportError as err:
        return [
            _row(
                "METEOR 1.5 (pycocoevalcap jar)", len(hyps), float("nan"), None, None, None, f"skipped: {err}"
            )
        ]
    gts = {i: [" ".join(r.split()) for r in rs] for i, rs in enumerate(refs)}
    res = {i: [" ".join(h.split())] for i, h in enumerate(hyps)}
    scorer = Meteor()
    (corpus, seg), seconds, _ = _timed(lambda: scorer.compute_score(gts, res))
    pear = pearsonr(nltk_scores, seg).statistic
    spear = spearmanr(nltk_scores, seg).statistic
    mean15 = sum(seg) / len(seg)
    nltk_mean = sum(nltk_scores) / len(nltk_scores)
    return [
        _row(
            "METEOR 1.5 (pycocoevalcap meteor-1.5.jar, -l en -norm)",
            len(hyps),
            seconds,
            None,
            None,
            max(abs(a - b) for a, b in zip(nltk_scores, seg)),
            f"a different metric: per-sample Pearson r={pear:.3f}, Spearman rho={spear:.3f} with NLTK METEOR; "
            f"mean of segment scores {mean15:.4f} (corpus score {corpus:.4f}) vs NLTK mean {nltk_mean:.4f}",
            metric="meteor 1.5",
        )
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--no-meteor15", action="store_true", help="skip the Java METEOR 1.5 comparison")
    parser.add_argument(
        "--rounds", type=int, default=2, help="round-robin repetitions, best time kept (default 2)"
    )
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args(argv)
    rows = run(args.n, meteor15=not args.no_meteor15, rounds=args.rounds)
    print(markdown_table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
