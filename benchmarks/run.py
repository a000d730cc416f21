#!/usr/bin/env python
"""Speed, memory and agreement of metricore against the reference implementations.

Usage (from the repository root)::

    .venv/bin/python benchmarks/run.py                  # full size, writes benchmarks/results.md
    .venv/bin/python benchmarks/run.py --quick          # 10x smaller smoke test, writes results-quick.md
    .venv/bin/python benchmarks/run.py --write-readme   # also refresh the README block
    .venv/bin/python benchmarks/run.py --profile        # also cProfile the core calls (benchmarks/out/)

What is measured, all in one process, one case after another, single-threaded (BLAS/OpenMP
thread variables are set to 1 before numpy is imported; metricore asks RapidFuzz for one
worker):

* ANLS ``docvqa`` on QA pairs: metricore core; the ``evaluate`` module
  (``evaluate.load("metrics/anls").compute``, loading excluded from the time); the Robust
  Reading Competition logic written out in pure Python (timed on a subsample, extrapolated per
  item); a bare RapidFuzz loop (``Levenshtein.normalized_similarity`` per pair, max over golds)
  and the same loop with the RRC normalization and the 0.5 cut-off.
* ANLS ``stvqa_paper`` against PyPI ``anls.anls_score`` (subsample).
* ANLS ``anls_star`` on structured pairs against PyPI ``anls_star.anls_score`` (subsample).
* 1-NED on OCR pairs: core; ``evaluate``; a pure-Python loop (ICDAR 2019 rule); an
  ``nltk`` ``edit_distance`` loop (what deep-text-recognition-benchmark calls, subsample); an
  ``editdistance.eval`` loop and a RapidFuzz loop with the same rule.

Then the token F1, METEOR and CIDEr benchmarks (``bench_token_f1.py``, ``bench_meteor.py``,
``bench_cider.py``) in the same run. The README block (``--write-readme``) has, for every
metric: items/s, the ratio to each reference measured in this run, the ``tracemalloc`` peak,
the largest difference from the core, and the evaluate-path overhead (``evaluate.load(...)
.compute`` time over the core's time on the same corpus, and the milliseconds it adds per
1,000 items). The corpora are generated deterministically (``benchmarks/corpus.py``) from
text shipped with Debian and the installed Python packages; the string corpora then go
through a JSON round trip (``corpus.read_back``), so that every implementation reads them laid
out in memory as a scorer reading a predictions file would (a "corpus as generated" row
shows the core on the scattered originals).

Timing: ``time.perf_counter`` (``time.process_time`` and the time spent in garbage collections
are recorded beside it); the best of ``--repeat`` runs (7) for fast cases and of
``--ref-repeat`` runs (3; 1 gives the classic single run) for the slow references, taken
round-robin within a metric so that a busy spell of a shared machine hits every implementation
alike. Memory, per case: the ``tracemalloc`` peak of a separate, untimed run
(Python and numpy allocations made during the call; C++ buffers inside RapidFuzz and Arrow
buffers are not traced) and the resident-set growth of the first timed run (peak RSS
``VmHWM`` minus RSS before the call, the peak being reset through ``/proc/self/clear_refs``;
where that is not possible, the growth of ``ru_maxrss``, which only shows growth beyond the
earlier peak of the process). Agreement: the largest absolute difference between the core's
per-item scores and each implementation's, on the items both scored.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import math
import os
import platform
import re
import shutil
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
README = REPO / "README.md"
OUT_DIR = HERE / "out"
README_START, README_END = "<!-- bench:start -->", "<!-- bench:end -->"
MiB = 1024 * 1024

_THREAD_VARS = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "RAYON_NUM_THREADS",
)


@dataclass(frozen=True)
class Sizes:
    qa: int
    ocr: int
    structured: int
    docvqa_python: int  # subsample for the pure-Python RRC loop
    stvqa_reference: int  # subsample for anls.anls_score
    star_reference: int  # subsample for anls_star.anls_score
    ned_python: int  # items for the pure-Python 1-NED loop
    ned_nltk: int  # subsample for the nltk edit_distance loop


FULL = Sizes(
    qa=100_000,
    ocr=100_000,
    structured=20_000,
    docvqa_python=10_000,
    stvqa_reference=10_000,
    star_reference=2_000,
    ned_python=100_000,
    ned_nltk=20_000,
)
QUICK = Sizes(
    qa=10_000,
    ocr=10_000,
    structured=2_000,
    docvqa_python=1_000,
    stvqa_reference=1_000,
    star_reference=200,
    ned_python=10_000,
    ned_nltk=2_000,
)


def prepare_environment() -> str:
    """Single-threaded numeric libraries and an offline, throw-away Hugging Face cache.

    Must run before numpy, rapidfuzz or evaluate are imported.
    """
    for var in _THREAD_VARS:
        os.environ[var] = "1"
    tmp = tempfile.mkdtemp(prefix="metricore-bench-")
    os.environ.update(
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        HF_EVALUATE_OFFLINE="1",
        HF_HUB_DISABLE_TELEMETRY="1",
        HF_DATASETS_DISABLE_PROGRESS_BARS="1",
        HF_HOME=os.path.join(tmp, "hf"),
        HF_MODULES_CACHE=os.path.join(tmp, "modules"),
        HF_METRICS_CACHE=os.path.join(tmp, "metrics"),
        HF_DATASETS_CACHE=os.path.join(tmp, "datasets"),
    )
    return tmp


# --------------------------------------------------------------------------------------------
# Pure-Python references (written for this benchmark)
# --------------------------------------------------------------------------------------------


def levenshtein_py(a: str, b: str) -> int:
    """Textbook dynamic programme over two rows, O(len(a) * len(b)) Python steps."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def rrc_docvqa_python(
    predictions: list[str], references: list[list[str]], threshold: float = 0.5
) -> list[float]:
    """The Robust Reading Competition DocVQA rule: distance on normalized strings, divisor
    from the raw strings' upper-cased lengths, ``1 - min(ratio)``, below ``threshold`` -> 0."""
    scores = []
    for pred, answers in zip(predictions, references):
        norm_pred = " ".join(pred.strip().lower().split())
        ratios = []
        for answer in answers:
            norm_answer = " ".join(answer.strip().lower().split())
            dist = levenshtein_py(norm_answer, norm_pred)
            length = max(len(answer.upper()), len(pred.upper()))
            ratios.append(0.0 if length == 0 else float(dist) / float(length))
        score = 1 - min(ratios)
        scores.append(0.0 if score < threshold else score)
    return scores


def ned_icdar_python(predictions: list[str], golds: list[str]) -> list[float]:
    """ICDAR 2019 1-NED per item: 0 when either string is empty, else 1 - LD / longer length."""
    scores = []
    for pred, gold in zip(predictions, golds):
        if not pred or not gold:
            scores.append(0.0)
        elif len(gold) > len(pred):
            scores.append(1 - levenshtein_py(pred, gold) / len(gold))
        else:
            scores.append(1 - levenshtein_py(pred, gold) / len(pred))
    return scores


# --------------------------------------------------------------------------------------------
# Measurement
# --------------------------------------------------------------------------------------------


class RSSProbe:
    """Resident-set growth during a call (see the module docstring for the method)."""

    def __init__(self) -> None:
        self.method = "none"
        try:
            self._reset_peak()
            self._status()
            self.method = "VmHWM - VmRSS (peak reset via /proc/self/clear_refs)"
        except OSError:
            try:
                import resource  # noqa: F401

                self.method = "ru_maxrss growth (lower bound: only growth past the earlier process peak)"
            except ImportError:
                pass

    @staticmethod
    def _status() -> dict[str, int]:
        out = {}
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(("VmRSS:", "VmHWM:")):
                    key, value = line.split(":", 1)
                    out[key] = int(value.split()[0]) * 1024
        return out

    @staticmethod
    def _reset_peak() -> None:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")

    def start(self) -> int:
        if self.method.startswith("VmHWM"):
            self._reset_peak()
            return self._status()["VmRSS"]
        if self.method.startswith("ru_maxrss"):
            import resource

            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        return 0

    def growth(self, start: int) -> int | None:
        if self.method.startswith("VmHWM"):
            return max(0, self._status()["VmHWM"] - start)
        if self.method.startswith("ru_maxrss"):
            import resource

            return max(0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - start)
        return None


@dataclass
class Case:
    group: str
    name: str
    #: "core", "evaluate", "reference" (a pinned or pure-Python reference), "baseline", or
    #: "layout" (the core call on the corpus as generated, before corpus.read_back)
    role: str
    fn: Callable[[], Any]
    scores: Callable[[Any], list[float]]
    items: int  # items one call scores
    total: int  # corpus size of the group (items / total < 1: subsample)
    repeat: int
    warmup: Callable[[], Any] | None = None
    note: str = ""

    def release(self) -> None:
        """Drop the closures (and with them the corpus) once the case is measured."""
        self.fn = _released
        self.warmup = None


def _released() -> Any:
    raise RuntimeError("this case was measured and released")


@dataclass
class Row:
    case: Case
    seconds: float  # wall time of the best run (time.perf_counter)
    runs: list[float]
    cpu_seconds: float  # process CPU time of that run (time.process_time): contention shows as cpu < wall
    gc_seconds: float  # time inside the garbage collector during that run (gc.callbacks)
    tracemalloc_peak: int
    rss_growth: int | None
    scores: list[float]
    speedup: float | None = None  # this implementation's wall time per item / the core's
    cpu_speedup: float | None = None  # the same with CPU time
    max_diff: float | None = None
    n_diff: int | None = None

    @property
    def rate(self) -> float:
        return self.case.items / self.seconds

    @property
    def subsample(self) -> bool:
        return self.case.items < self.case.total


class GCTimer:
    """Wall time spent in garbage collections, via ``gc.callbacks``."""

    def __init__(self) -> None:
        self.total = 0.0
        self._start: float | None = None

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        elif self._start is not None:
            self.total += time.perf_counter() - self._start
            self._start = None

    def __enter__(self) -> GCTimer:
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self)


def measure_group(cases: list[Case], probe: RSSProbe) -> list[Row]:
    """Time a group's cases round-robin (core, references, core, references, ...), so that a
    slow or busy spell of the machine hits every implementation alike; then memory."""
    for case in cases:
        if case.warmup is not None:
            case.warmup()
    runs: dict[int, list[tuple[float, float, float]]] = {i: [] for i in range(len(cases))}
    rss: dict[int, int | None] = {}
    scores: dict[int, list[float]] = {}
    for rnd in range(max(c.repeat for c in cases)):
        for i, case in enumerate(cases):
            if rnd >= case.repeat:
                continue
            gc.collect()
            base = probe.start() if rnd == 0 else 0
            with GCTimer() as gct:
                c0 = time.process_time()
                t0 = time.perf_counter()
                out = case.fn()
                elapsed = time.perf_counter() - t0
                cpu = time.process_time() - c0
            if rnd == 0:
                rss[i] = probe.growth(base)
                scores[i] = [float(x) for x in case.scores(out)]
                if len(scores[i]) != case.items:
                    raise RuntimeError(
                        f"{case.group} / {case.name}: {len(scores[i])} scores for {case.items} items"
                    )
            del out
            runs[i].append((elapsed, cpu, gct.total))
    rows = []
    for i, case in enumerate(cases):
        gc.collect()
        tracemalloc.start()
        tracemalloc.reset_peak()
        out = case.fn()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        del out
        best = min(runs[i])
        rows.append(Row(case, best[0], [r[0] for r in runs[i]], best[1], best[2], peak, rss[i], scores[i]))
    gc.collect()
    return rows


def _fmt_mib(n: int | None) -> str:
    return "n/a" if n is None else f"{n / MiB:,.1f}"


def _fmt_rate(r: float) -> str:
    return f"{r:,.0f}"


def _fmt_speedup(row: Row) -> str:
    if row.case.role == "core":
        return "1 (core)"
    assert row.speedup is not None
    s = row.speedup
    if row.case.role == "layout":
        return f"{s:.2f}x the core row's time"
    return f"**{s:,.1f}x**" if s >= 1 else f"{s:.2f}x (core {1 / s:.1f}x slower)"


def _fmt_diff(row: Row) -> str:
    if row.case.role == "core":
        return "-"
    assert row.max_diff is not None and row.n_diff is not None
    d = "0" if row.max_diff == 0 else f"{row.max_diff:.2e}"
    return f"{d} ({row.n_diff:,} > 1e-9)"


def print_row(row: Row) -> None:
    c = row.case
    runs = ", ".join(f"{t:.3f}" for t in row.runs)
    print(
        f"  {c.name:<48} {c.items:>8,} items  best {row.seconds:8.3f} s [{runs}]  "
        f"{_fmt_rate(row.rate):>10} items/s  cpu/wall {row.cpu_seconds / row.seconds:4.2f}  "
        f"gc {row.gc_seconds:6.3f} s  tracemalloc {_fmt_mib(row.tracemalloc_peak):>6} MiB  "
        f"RSS +{_fmt_mib(row.rss_growth)} MiB",
        flush=True,
    )


def compare(rows: list[Row]) -> None:
    """Speed-ups and agreement of every row against the group's core row."""
    import numpy as np

    core = next(r for r in rows if r.case.role == "core")
    core_per_item = core.seconds / core.case.items
    core_scores = np.asarray(core.scores)
    for row in rows:
        if row is core:
            continue
        row.speedup = (row.seconds / row.case.items) / core_per_item
        row.cpu_speedup = (row.cpu_seconds / row.case.items) / (core.cpu_seconds / core.case.items)
        other = np.asarray(row.scores)
        diff = np.abs(core_scores[: row.case.items] - other)  # subsamples are corpus prefixes
        row.max_diff = float(diff.max())
        row.n_diff = int((diff > 1e-9).sum())
        verdict = "faster" if row.speedup >= 1 else "slower"
        factor = row.speedup if row.speedup >= 1 else 1 / row.speedup
        print(
            f"    core vs {row.case.name}: core {factor:,.1f}x {verdict}; "
            f"(CPU-time ratio {row.cpu_speedup:,.2f}); "
            f"max |diff| {row.max_diff:.3g} on {row.case.items:,} items ({row.n_diff:,} differ > 1e-9)"
        )


# --------------------------------------------------------------------------------------------
# The suite
# --------------------------------------------------------------------------------------------


# Reference loops over whole columns (each returns per-item scores).


def rapidfuzz_bare(preds: list[str], refs: list[list[str]]) -> list[float]:
    """``Levenshtein.normalized_similarity`` per (prediction, gold), best gold; nothing else."""
    from rapidfuzz.distance import Levenshtein

    norm_sim = Levenshtein.normalized_similarity
    out = []
    for p, golds in zip(preds, refs):
        best = 0.0
        for g in golds:
            s = norm_sim(p, g)
            if s > best:
                best = s
        out.append(best)
    return out


def rapidfuzz_rrc(preds: list[str], refs: list[list[str]]) -> list[float]:
    """The same loop with the RRC normalization and RapidFuzz's ``score_cutoff=0.5``."""
    from rapidfuzz.distance import Levenshtein

    norm_sim = Levenshtein.normalized_similarity
    out = []
    for p, golds in zip(preds, refs):
        norm_p = " ".join(p.lower().split())
        best = 0.0
        for g in golds:
            s = norm_sim(norm_p, " ".join(g.lower().split()), score_cutoff=0.5)
            if s > best:
                best = s
        out.append(best)
    return out


def cpdist_only(preds: list[str], golds: list[str]) -> list[float]:
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    return process.cpdist(preds, golds, scorer=Levenshtein.distance, workers=1).tolist()


LAYOUT_NOTE = (
    "the same call on the corpus as the generator left it, before `corpus.read_back`: its "
    "strings are scattered over the heap (built between temporary objects), so reading each "
    "one is a cache miss; every other row uses the read-back columns, laid out as `json.load` "
    "of a predictions file lays them out"
)


def stvqa_reference(preds: list[str], refs: list[list[str]]) -> list[float]:
    import anls

    return [anls.anls_score(p, g) for p, g in zip(preds, refs)]


def star_reference(preds: list[Any], golds: list[Any]) -> list[float]:
    import warnings

    import anls_star

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the package warns on every classic-QA item
        return [anls_star.anls_score(g, p) for p, g in zip(preds, golds)]


def ned_loop(distance: Callable[[str, str], int]) -> Callable[[list[str], list[str]], list[float]]:
    """A 1-NED loop with the ICDAR 2019 rule around any distance function."""

    def run(preds: list[str], golds: list[str]) -> list[float]:
        out = []
        for p, g in zip(preds, golds):
            if not p or not g:
                out.append(0.0)
            else:
                out.append(1 - distance(p, g) / max(len(p), len(g)))
        return out

    return run


def _scores_attr(r: Any) -> list[float]:
    return r.scores


def _scores_key(r: dict) -> list[float]:
    return r["scores"]


def _ident(r: list[float]) -> list[float]:
    return r


WARMUP = 200  # warm-up slice: first-call imports and caches stay out of the timings


@dataclass
class Suite:
    """Group builders: each generates its corpus when called, so only one corpus is alive at a
    time (the garbage collector's cost grows with the live heap)."""

    sizes: Sizes
    seed: int
    repeat: int
    ref_repeat: int
    info: dict[str, Any] = field(default_factory=dict)
    hf: dict[str, Any] = field(default_factory=dict)

    def load_evaluate(self) -> None:
        import evaluate

        t0 = time.perf_counter()
        self.hf["anls"] = evaluate.load(str(REPO / "metrics" / "anls"))
        self.hf["one_minus_ned"] = evaluate.load(str(REPO / "metrics" / "one_minus_ned"))
        self.info["evaluate_load_seconds"] = time.perf_counter() - t0

    def builders(self) -> list[tuple[str, Callable[[], list[list[Case]]]]]:
        return [
            ("QA", self.qa_groups),
            ("structured", self.star_groups),
            ("OCR", self.ned_groups),
            ("OCR lines", self.ned_line_groups),
        ]

    def qa_groups(self) -> list[list[Case]]:
        import corpus

        import metricore

        sz, repeat, w = self.sizes, self.repeat, WARMUP
        t0 = time.perf_counter()
        gen_p, gen_r, qa_k = corpus.qa_pairs(sz.qa, self.seed)
        qa_p, qa_r = corpus.read_back(gen_p, gen_r)
        elapsed = time.perf_counter() - t0
        n_golds = sum(len(r) for r in qa_r)
        self.info["qa"] = dict(
            n=sz.qa,
            fingerprint=corpus.fingerprint(qa_p, qa_r),
            mix=_mix(qa_k),
            seconds=elapsed,
            golds_per_q=n_golds / len(qa_r),
            chars_per_gold=sum(len(g) for r in qa_r for g in r) / n_golds,
        )
        print(f"corpus: {sz.qa:,} QA pairs in {elapsed:.1f} s", flush=True)
        hf_anls = self.hf["anls"]
        n, k_doc, k_st = sz.qa, sz.docvqa_python, sz.stvqa_reference
        g = "ANLS docvqa"
        docvqa = [
            Case(
                g,
                "metricore.compute_anls (core)",
                "core",
                lambda: metricore.compute_anls(qa_p, qa_r, variant="docvqa"),
                _scores_attr,
                n,
                n,
                repeat,
                warmup=lambda: metricore.compute_anls(qa_p[:w], qa_r[:w]),
            ),
            Case(
                g,
                'evaluate.load("metrics/anls").compute',
                "evaluate",
                lambda: hf_anls.compute(predictions=qa_p, references=qa_r),
                _scores_key,
                n,
                n,
                repeat,
                warmup=lambda: hf_anls.compute(predictions=qa_p[:w], references=qa_r[:w]),
                note="module loading excluded; includes the Arrow round trip of add_batch/compute",
            ),
            Case(
                g,
                "metricore.compute_anls (core), corpus as generated",
                "layout",
                lambda: metricore.compute_anls(gen_p, gen_r, variant="docvqa"),
                _scores_attr,
                n,
                n,
                repeat,
                note=LAYOUT_NOTE,
            ),
            Case(
                g,
                "pure-Python RRC logic (DP Levenshtein)",
                "reference",
                lambda: rrc_docvqa_python(qa_p[:k_doc], qa_r[:k_doc]),
                _ident,
                k_doc,
                n,
                self.ref_repeat,
            ),
            Case(
                g,
                "RapidFuzz loop, bare normalized_similarity",
                "baseline",
                lambda: rapidfuzz_bare(qa_p, qa_r),
                _ident,
                n,
                n,
                repeat,
                note="raw strings, no normalization, no cut-off: not the docvqa metric (its diff is "
                "informative only); the speed yardstick of the 3x goal",
            ),
            Case(
                g,
                "RapidFuzz loop + RRC normalize + 0.5 cut-off",
                "baseline",
                lambda: rapidfuzz_rrc(qa_p, qa_r),
                _ident,
                n,
                n,
                repeat,
                note="divisor from the normalized strings, so items whose raw and normalized lengths "
                "differ (extra whitespace) score differently by design",
            ),
        ]
        g = "ANLS stvqa_paper"
        stvqa = [
            Case(
                g,
                "metricore.compute_anls (core)",
                "core",
                lambda: metricore.compute_anls(qa_p, qa_r, variant="stvqa_paper"),
                _scores_attr,
                n,
                n,
                repeat,
                warmup=lambda: metricore.compute_anls(qa_p[:w], qa_r[:w], variant="stvqa_paper"),
            ),
            Case(
                g,
                "anls.anls_score loop (PyPI anls 0.0.2)",
                "reference",
                lambda: stvqa_reference(qa_p[:k_st], qa_r[:k_st]),
                _ident,
                k_st,
                n,
                self.ref_repeat,
            ),
        ]
        return [docvqa, stvqa]

    def star_groups(self) -> list[list[Case]]:
        import corpus

        import metricore

        sz, repeat, w = self.sizes, self.repeat, WARMUP
        t0 = time.perf_counter()
        st_p, st_g, st_k = corpus.structured_pairs(sz.structured, self.seed)
        elapsed = time.perf_counter() - t0
        self.info["structured"] = dict(
            n=sz.structured, fingerprint=corpus.fingerprint(st_p, st_g), mix=_mix(st_k), seconds=elapsed
        )
        print(f"corpus: {sz.structured:,} structured pairs in {elapsed:.1f} s", flush=True)
        n, k = sz.structured, sz.star_reference
        g = "ANLS anls_star"
        return [
            [
                Case(
                    g,
                    "metricore.compute_anls (core)",
                    "core",
                    lambda: metricore.compute_anls(st_p, st_g, variant="anls_star"),
                    _scores_attr,
                    n,
                    n,
                    repeat,
                    warmup=lambda: metricore.compute_anls(st_p[:w], st_g[:w], variant="anls_star"),
                ),
                Case(
                    g,
                    "anls_star.anls_score loop (PyPI anls-star 1.0.1)",
                    "reference",
                    lambda: star_reference(st_p[:k], st_g[:k]),
                    _ident,
                    k,
                    n,
                    self.ref_repeat,
                    warmup=lambda: star_reference(st_p[:20], st_g[:20]),
                ),
            ]
        ]

    def ned_groups(self) -> list[list[Case]]:
        import corpus
        import editdistance
        from nltk.metrics.distance import edit_distance as nltk_edit_distance
        from rapidfuzz.distance import Levenshtein

        import metricore

        sz, repeat, w = self.sizes, self.repeat, WARMUP
        t0 = time.perf_counter()
        gen_p, gen_g, ocr_k = corpus.ocr_pairs(sz.ocr, self.seed)
        ocr_p, ocr_g = corpus.read_back(gen_p, gen_g)
        elapsed = time.perf_counter() - t0
        self.info["ocr"] = dict(
            n=sz.ocr,
            fingerprint=corpus.fingerprint(ocr_p, ocr_g),
            seconds=elapsed,
            scripts=_mix([k.split("/")[0] for k in ocr_k]),
            mix=_mix([k.split("/")[1] for k in ocr_k]),
            chars_per_gold=sum(map(len, ocr_g)) / len(ocr_g),
        )
        print(f"corpus: {sz.ocr:,} OCR pairs in {elapsed:.1f} s", flush=True)
        hf_ned = self.hf["one_minus_ned"]
        n, k, k_nltk = sz.ocr, sz.ned_python, sz.ned_nltk
        ned_nltk = ned_loop(nltk_edit_distance)
        ned_editdistance = ned_loop(editdistance.eval)
        ned_rapidfuzz = ned_loop(Levenshtein.distance)
        g = "1-NED"
        return [
            [
                Case(
                    g,
                    "metricore.compute_one_minus_ned (core)",
                    "core",
                    lambda: metricore.compute_one_minus_ned(ocr_p, ocr_g),
                    _scores_attr,
                    n,
                    n,
                    repeat,
                    warmup=lambda: metricore.compute_one_minus_ned(ocr_p[:w], ocr_g[:w]),
                ),
                Case(
                    g,
                    'evaluate.load("metrics/one_minus_ned").compute',
                    "evaluate",
                    lambda: hf_ned.compute(predictions=ocr_p, references=ocr_g),
                    _scores_key,
                    n,
                    n,
                    repeat,
                    warmup=lambda: hf_ned.compute(predictions=ocr_p[:w], references=ocr_g[:w]),
                    note="module loading excluded; includes the Arrow round trip of add_batch/compute",
                ),
                Case(
                    g,
                    "metricore.compute_one_minus_ned (core), corpus as generated",
                    "layout",
                    lambda: metricore.compute_one_minus_ned(gen_p, gen_g),
                    _scores_attr,
                    n,
                    n,
                    repeat,
                    note=LAYOUT_NOTE,
                ),
                Case(
                    g,
                    "pure-Python loop (DP Levenshtein, ICDAR rule)",
                    "reference",
                    lambda: ned_icdar_python(ocr_p[:k], ocr_g[:k]),
                    _ident,
                    k,
                    n,
                    self.ref_repeat,
                ),
                Case(
                    g,
                    "nltk edit_distance loop (ICDAR rule)",
                    "reference",
                    lambda: ned_nltk(ocr_p[:k_nltk], ocr_g[:k_nltk]),
                    _ident,
                    k_nltk,
                    n,
                    self.ref_repeat,
                    note="what clovaai/deep-text-recognition-benchmark test.py calls; no goal attached",
                ),
                Case(
                    g,
                    "editdistance.eval loop (ICDAR rule)",
                    "baseline",
                    lambda: ned_editdistance(ocr_p, ocr_g),
                    _ident,
                    n,
                    n,
                    repeat,
                ),
                Case(
                    g,
                    "RapidFuzz Levenshtein.distance loop (ICDAR rule)",
                    "baseline",
                    lambda: ned_rapidfuzz(ocr_p, ocr_g),
                    _ident,
                    n,
                    n,
                    repeat,
                ),
                Case(
                    g,
                    "RapidFuzz process.cpdist alone (distances, no rule, no checks)",
                    "baseline",
                    lambda: cpdist_only(ocr_p, ocr_g),
                    _ident,
                    n,
                    n,
                    repeat,
                    note="the one C++ call the core makes, with nothing around it: the floor of any "
                    "RapidFuzz-based 1-NED (its scores are distances, so its diff is not meaningful)",
                ),
            ]
        ]

    def ned_line_groups(self) -> list[list[Case]]:
        """1-NED on text lines: the pure-Python DP costs O(len^2) per pair, the core's C++ kernel
        far less, so the speed-up depends on the string length; reported beside the word rows."""
        import corpus

        import metricore

        sz, repeat, w = self.sizes, self.repeat, WARMUP
        t0 = time.perf_counter()
        p, g_, kinds = corpus.ocr_line_pairs(sz.ocr, self.seed)
        p, g_ = corpus.read_back(p, g_)
        elapsed = time.perf_counter() - t0
        self.info["ocr_lines"] = dict(
            n=sz.ocr,
            fingerprint=corpus.fingerprint(p, g_),
            seconds=elapsed,
            mix=_mix(kinds),
            chars_per_gold=sum(map(len, g_)) / len(g_),
        )
        print(f"corpus: {sz.ocr:,} OCR text lines in {elapsed:.1f} s", flush=True)
        n, k = sz.ocr, sz.ned_python // 10
        g = "1-NED (text lines)"
        return [
            [
                Case(
                    g,
                    "metricore.compute_one_minus_ned (core)",
                    "core",
                    lambda: metricore.compute_one_minus_ned(p, g_),
                    _scores_attr,
                    n,
                    n,
                    repeat,
                    warmup=lambda: metricore.compute_one_minus_ned(p[:w], g_[:w]),
                ),
                Case(
                    g,
                    "pure-Python loop (DP Levenshtein, ICDAR rule)",
                    "reference",
                    lambda: ned_icdar_python(p[:k], g_[:k]),
                    _ident,
                    k,
                    n,
                    self.ref_repeat,
                ),
            ]
        ]


def _mix(kinds: list[str]) -> str:
    from collections import Counter

    total = len(kinds)
    return ", ".join(f"{k} {100 * v / total:.0f}%" for k, v in Counter(kinds).most_common())


GOALS = (
    # (group, implementation name, minimum speed-up, description)
    (
        "ANLS docvqa",
        "pure-Python RRC logic (DP Levenshtein)",
        50.0,
        "core >= 50x faster than pure-Python RRC",
    ),
    (
        "ANLS docvqa",
        "RapidFuzz loop, bare normalized_similarity",
        1 / 3,
        "core within 3x of the bare RapidFuzz loop",
    ),
    (
        "ANLS anls_star",
        "anls_star.anls_score loop (PyPI anls-star 1.0.1)",
        20.0,
        "core >= 20x faster than anls_star.anls_score",
    ),
    (
        "1-NED",
        "pure-Python loop (DP Levenshtein, ICDAR rule)",
        100.0,
        "core >= 100x faster than pure-Python (scene-text words, textbook DP)",
    ),
    (
        "1-NED",
        "nltk edit_distance loop (ICDAR rule)",
        100.0,
        "core >= 100x faster than pure-Python (scene-text words, the official scorer's nltk DP)",
    ),
    (
        "1-NED (text lines)",
        "pure-Python loop (DP Levenshtein, ICDAR rule)",
        100.0,
        "core >= 100x faster than pure-Python (text lines)",
    ),
)


def check_goals(rows: list[Row]) -> list[tuple[str, str, str, bool]]:
    """Goals judged on wall time (perf_counter); the CPU-time ratio is shown as a cross-check."""
    out = []
    for group, name, minimum, text in GOALS:
        row = next(r for r in rows if r.case.group == group and r.case.name == name)
        assert row.speedup is not None and row.cpu_speedup is not None
        if minimum >= 1:
            measured = f"{row.speedup:,.1f}x (CPU time: {row.cpu_speedup:,.1f}x)"
            target = f">= {minimum:g}x"
        else:
            measured = (
                f"core takes {1 / row.speedup:.2f}x the loop's time (CPU time: {1 / row.cpu_speedup:.2f}x)"
            )
            target = f"core time <= {1 / minimum:g}x loop time"
        out.append((text, target, measured, row.speedup >= minimum))
    return out


# --------------------------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------------------------


class CPUShare:
    """How much CPU other processes used while the suite ran (from /proc/stat and os.times)."""

    def __init__(self) -> None:
        self.start = self._read()

    @staticmethod
    def _read() -> tuple[float, float, float] | None:
        try:
            with open("/proc/stat") as fh:
                fields = [int(x) for x in fh.readline().split()[1:]]
        except (OSError, ValueError):
            return None
        hz = os.sysconf("SC_CLK_TCK")
        busy = (
            sum(fields[i] for i in (0, 1, 2, 5, 6, 7) if i < len(fields)) / hz
        )  # user nice system irq softirq steal
        own = os.times()
        return busy, own.user + own.system, time.perf_counter()

    def others(self) -> str:
        end = self._read()
        if self.start is None or end is None:
            return "n/a (no /proc/stat)"
        busy, own, wall = (e - s for e, s in zip(end, self.start))
        other = max(0.0, busy - own) / wall
        return (
            f"{other:.2f} CPUs on average (of {os.cpu_count()}) were busy with other processes "
            f"while this suite ran; this process used {own / wall:.2f}"
        )


def machine_facts() -> list[tuple[str, str]]:
    import importlib.metadata as md
    import subprocess

    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count() or 0
    versions = []
    for dist in (
        "numpy",
        "scipy",
        "rapidfuzz",
        "metricore",
        "evaluate",
        "datasets",
        "anls",
        "anls-star",
        "editdistance",
        "munkres",
        "nltk",
    ):
        try:
            versions.append(f"{dist} {md.version(dist)}")
        except md.PackageNotFoundError:
            versions.append(f"{dist} (absent)")
    facts = [
        ("CPU", f"{cpu}; os.cpu_count() = {os.cpu_count()}, usable by this process = {usable}"),
        ("Platform", platform.platform()),
        ("Python", f"{platform.python_implementation()} {platform.python_version()}"),
        ("Packages", ", ".join(versions)),
    ]
    try:
        head = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--", "metricore", "metricore_hf", "metrics"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.split("\n")
        changed = sorted(line[3:] for line in dirty if line.strip())
        facts.append(
            (
                "Code measured",
                f"git HEAD {head}"
                + (f"; uncommitted changes in {', '.join(changed)}" if changed else "; metricore clean"),
            )
        )
    except (OSError, subprocess.SubprocessError):
        pass
    return facts


def render_table(rows: list[Row]) -> str:
    head = (
        "| Metric | Implementation | Items timed | Time (s) | Items/s | Core speed-up | CPU/wall | GC (s) | "
        "tracemalloc peak (MiB) | RSS growth (MiB) | Max abs diff vs core (items > 1e-9) |\n"
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n"
    )
    lines = []
    for r in rows:
        c = r.case
        items = f"{c.items:,}" if not r.subsample else f"{c.items:,} of {c.total:,}"
        secs = f"{r.seconds:.3f}"
        if r.subsample:
            secs += f" (≈{r.seconds * c.total / c.items:,.1f} for {c.total:,})"
        how = f"best of {len(r.runs)}" if len(r.runs) > 1 else "1 run"
        lines.append(
            f"| {c.group} | {c.name} | {items} | {secs}, {how} | {_fmt_rate(r.rate)} | {_fmt_speedup(r)} | "
            f"{r.cpu_seconds / r.seconds:.2f} | {r.gc_seconds:.3f} | "
            f"{_fmt_mib(r.tracemalloc_peak)} | {_fmt_mib(r.rss_growth)} | {_fmt_diff(r)} |"
        )
    return head + "\n".join(lines) + "\n"


def render_goals(goals: list[tuple[str, str, str, bool]]) -> str:
    out = "| Goal | Target | Measured | Met |\n|---|---|---|---|\n"
    for text, target, measured, ok in goals:
        out += f"| {text} | {target} | {measured} | {'yes' if ok else '**no**'} |\n"
    return out


def render_results(
    rows: list[Row],
    goals,
    suite: Suite,
    args,
    wall: float,
    probe: RSSProbe,
    started: str,
    load: tuple[str, str],
    cpu_share: str,
) -> str:
    import corpus

    info = suite.info
    src = corpus.source_text()
    qa, ocr, st = info["qa"], info["ocr"], info["structured"]
    notes = [f"- **{r.case.group} / {r.case.name}**: {r.case.note}" for r in rows if r.case.note]
    sub = [r for r in rows if r.subsample]
    cmd = (
        "python benchmarks/run.py"
        + (" --quick" if args.quick else "")
        + (f" --repeat {args.repeat}" if args.repeat != 3 else "")
        + (f" --ref-repeat {args.ref_repeat}" if args.ref_repeat != 3 else "")
        + (f" --seed {args.seed}" if args.seed is not None else "")
    )
    text = [
        "# metricore benchmarks",
        "",
        f"Generated by `{cmd}` on {started} "
        f"({'QUICK smoke-test sizes' if args.quick else 'full size'}); the whole run took {wall:,.0f} s.",
        "",
        render_table(rows),
        "**Core speed-up** = the implementation's time per item / the core's time per item, same machine, "
        "same run (above 1: the core is faster). Rows marked *of N* ran on the first items of the "
        "corpus and are extrapolated per item to N"
        + (" (" + "; ".join(f"{r.case.name}: {r.case.items:,} items" for r in sub) + ")" if sub else "")
        + "; their agreement is checked on those items.",
        "",
        "## Goals",
        "",
        render_goals(goals),
        "## Notes",
        "",
        *notes,
        "- **Timing**: `time.perf_counter` around one call over the whole column (or subsample); best of "
        f"{args.repeat} runs for the fast implementations and of {args.ref_repeat} for the slow references "
        "(pure Python, nltk, PyPI anls and anls-star). Within a metric the runs go round-robin (core, "
        "references, core, references, ...) so a busy spell of a shared machine hits all of them alike. "
        f"A warm-up call on {WARMUP} items comes first (imports, module compilation). Everything runs one "
        "call at a time in one process with the garbage collector on, as in a user's process; only the "
        "corpus being measured is alive. BLAS/OpenMP thread variables are set to 1 and metricore calls "
        "RapidFuzz with `workers=1`.",
        "- **CPU/wall**: process CPU time (`time.process_time`) over wall time for the reported run; "
        "well below 1 means other processes took the CPU during that run (the CPU-time ratios in the "
        "goal table are the cross-check). **GC (s)**: time inside garbage collections during that run "
        "(`gc.callbacks`).",
        "- **tracemalloc peak**: a separate untimed run under `tracemalloc` (Python objects and numpy "
        "buffers allocated during the call; RapidFuzz's C++ scratch space and Arrow buffers are not traced).",
        f"- **RSS growth**: first timed run, {probe.method}; memory freed earlier and reused by the "
        "allocator makes small values read as 0.",
        "- **Agreement**: per-item scores of each implementation against the core on the items both scored.",
        "",
        "## Corpus",
        "",
        f"Built by `benchmarks/corpus.py` (seed {suite.seed}) from text installed on this machine: "
        f"{len(src.sources)} sources (Debian license texts, the Zen of Python, standard-library docstrings, "
        "package metadata, gradio's Russian/Ukrainian/Chinese/Japanese/Korean UI strings): "
        f"{len(src.sentences):,} English sentences, {len(src.words):,} words, {len(src.cyrillic):,} Cyrillic "
        f"and {len(src.cjk):,} CJK phrases; source digest `{src.digest}`"
        + (f"; {'; '.join(src.notes)}" if src.notes else "")
        + ".",
        "",
        f"- QA: {qa['n']:,} pairs (fingerprint `{qa['fingerprint']}`), {qa['golds_per_q']:.2f} gold answers per "
        f"question, {qa['chars_per_gold']:.1f} characters per gold; predictions: {qa['mix']}.",
        f"- OCR: {ocr['n']:,} pairs (fingerprint `{ocr['fingerprint']}`), {ocr['chars_per_gold']:.1f} characters "
        f"per gold; scripts: {ocr['scripts']}; predictions: {ocr['mix']}.",
        *(
            [
                f"- OCR text lines: {lines['n']:,} pairs (fingerprint `{lines['fingerprint']}`), "
                f"{lines['chars_per_gold']:.1f} characters per gold line (English sentences); predictions: "
                f"{lines['mix']}."
            ]
            if (lines := info.get("ocr_lines"))
            else []
        ),
        f"- Structured (ANLS*): {st['n']:,} pairs (fingerprint `{st['fingerprint']}`): {st['mix']}.",
        "",
        "## Machine",
        "",
        *[f"- {k}: {v}" for k, v in machine_facts()],
        f"- Load average at start / end: {load[0]} / {load[1]}",
        f"- Other load during the run: {cpu_share}",
        f"- Date: {started}",
        f"- evaluate module loading (excluded from the timings): {info['evaluate_load_seconds']:.1f} s",
        "",
    ]
    return "\n".join(text)


#: per-metric benchmark modules: (module, full size, quick size, what the size counts)
METRIC_MODULES = (
    ("bench_token_f1", 100_000, 10_000, "questions"),
    ("bench_meteor", 5_000, 500, "caption sets x 5 references"),
    ("bench_cider", 5_000, 500, "images x 5 references"),
    ("bench_coco", 5_000, 500, "images x 5 references"),
    ("bench_meteor15", 5_000, 500, "images x 5 references"),
    ("bench_meteor15_first_use", 5_000, 500, "images x 5 references"),
    ("bench_pycocoevalcap", 5_000, 500, "images x 5 references"),
    ("bench_vqa", 200_000, 20_000, "questions x 10 answers"),
    ("bench_significance", 100_000, 10_000, "items (1,000 resamples)"),
    ("bench_cli", 1_000_000, 100_000, "ANLS rows (JSONL, ids, 2 references)"),
)


def run_metric_modules(quick: bool, skip: bool) -> list[dict[str, Any]]:
    """Rows of the token F1, METEOR and CIDEr benchmarks (each module's ``run(n)``), in this run."""
    if skip:
        return []
    import importlib

    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    rows: list[dict[str, Any]] = []
    for name, full, small, unit in METRIC_MODULES:
        n = small if quick else full
        print(f"\n== {name} (n={n:,} {unit})", flush=True)
        module = importlib.import_module(name)
        for row in module.run(n):
            row = dict(row)
            row.setdefault("module", name)
            print(
                "  "
                + "  ".join(
                    f"{k}={row[k]}"
                    for k in ("metric", "impl", "items", "seconds", "ratio_vs_reference")
                    if k in row
                ),
                flush=True,
            )
            rows.append(row)
        gc.collect()
    return rows


def _fmt_extra_ratio(row: dict[str, Any]) -> str:
    ratio = row.get("ratio_vs_reference")
    if ratio is None or ratio == "":
        return "reference"
    try:
        return f"{float(ratio):.1f}x"
    except (TypeError, ValueError):
        return str(ratio)


def _fmt_extra_num(value: Any, fmt: str) -> str:
    try:
        return format(float(value), fmt)
    except (TypeError, ValueError):
        return "" if value is None else str(value)


def render_extra_table(extra: list[dict[str, Any]]) -> list[str]:
    if not extra:
        return []
    lines = [
        "",
        "| Metric | Implementation | Items | Seconds | Items/s | Speed-up vs reference | Peak MiB | Max abs diff |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in extra:
        lines.append(
            f"| {r.get('metric', '')} | {r.get('impl', '')} | {_fmt_extra_num(r.get('items'), ',.0f')} | "
            f"{_fmt_extra_num(r.get('seconds'), '.3f')} | {_fmt_extra_num(r.get('items_per_s'), ',.0f')} | "
            f"{_fmt_extra_ratio(r)} | {_fmt_extra_num(r.get('peak_mib'), '.1f')} | "
            f"{_fmt_extra_num(r.get('max_abs_diff'), '.2g')} |"
        )
    return lines


def render_extra(extra: list[dict[str, Any]]) -> str:
    if not extra:
        return ""
    notes = [f"- {r.get('metric', '')} / {r.get('impl', '')}: {r['notes']}" for r in extra if r.get("notes")]
    return "\n".join(["", "## Token F1, METEOR, CIDEr", *render_extra_table(extra), "", *notes, ""])


#: (metric, core implementation, evaluate implementation) pairs among the bench_*.py rows:
#: the same corpus scored by the core and through ``evaluate.load(...).compute``. METEOR's
#: evaluate run has warm synonym caches and cold token caches; it is set against the core's
#: cold-cache run (so its overhead is, if anything, understated).
EXTRA_OVERHEAD_PAIRS = (
    (
        "token_f1 squad [squad_like, 3 golds]",
        "metricore core compute_token_f1",
        "evaluate.load('metrics/token_f1').compute (plain lists)",
    ),
    (
        "token_f1 squad [squad_like, 3 golds]",
        "metricore core compute_token_f1",
        "evaluate ... .compute (HF SQuAD dict format)",
    ),
    (
        "meteor",
        "metricore.compute_meteor (text, cold caches)",
        'evaluate.load("metrics/meteor").compute (text)',
    ),
    (
        "cider_d end to end",
        "metricore.compute_cider (end to end, raw captions)",
        'evaluate.load("metrics/cider").compute (raw captions)',
    ),
)


def evaluate_overhead(rows: list[Row], extra: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The cost of the ``evaluate`` path over the core, per metric: both timed in this run on
    the same corpus (Arrow cache, input checks and canonicalisation, module plumbing)."""
    out: list[dict[str, Any]] = []
    for group in dict.fromkeys(r.case.group for r in rows):
        members = [r for r in rows if r.case.group == group]
        core = next((r for r in members if r.case.role == "core"), None)
        for r in members:
            if core is not None and r.case.role == "evaluate":
                out.append(
                    {
                        "metric": group,
                        "impl": r.case.name,
                        "core_per_item": core.seconds / core.case.items,
                        "evaluate_per_item": r.seconds / r.case.items,
                    }
                )
    for metric, core_impl, ev_impl in EXTRA_OVERHEAD_PAIRS:
        found = {}
        for impl in (core_impl, ev_impl):
            row = next((x for x in extra if x.get("metric") == metric and x.get("impl") == impl), None)
            try:
                seconds, items = float(row["seconds"]), int(row["items"])  # type: ignore[index]
            except (TypeError, ValueError, KeyError):
                break
            if not (seconds > 0 and items > 0 and math.isfinite(seconds)):
                break
            found[impl] = seconds / items
        else:
            out.append(
                {
                    "metric": metric,
                    "impl": ev_impl,
                    "core_per_item": found[core_impl],
                    "evaluate_per_item": found[ev_impl],
                }
            )
    return out


def render_overhead_table(overhead: list[dict[str, Any]]) -> list[str]:
    if not overhead:
        return []
    lines = [
        "",
        "| Metric | evaluate path | Core items/s | evaluate items/s | evaluate time / core time "
        "| Added ms per 1,000 items |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for o in overhead:
        core, ev = o["core_per_item"], o["evaluate_per_item"]
        lines.append(
            f"| {o['metric']} | {o['impl']} | {_fmt_rate(1 / core)} | {_fmt_rate(1 / ev)} | "
            f"{ev / core:.2f}x | {(ev - core) * 1e6:,.1f} |"
        )
    return lines


def render_readme_block(
    rows: list[Row], goals, args, started: str, extra: list[dict[str, Any]] | None = None
) -> str:
    lines = [
        README_START,
        f"Measured by `python benchmarks/run.py{' --quick' if args.quick else ''}` on {started}"
        f"{' (QUICK smoke-test sizes)' if args.quick else ''}; time, memory, corpus and machine in "
        "[benchmarks/results.md](benchmarks/results.md).",
        "",
        "| Metric | Implementation | Items/s | Core speed-up | Peak MiB | Max abs diff vs core |",
        "|---|---|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.case.group} | {r.case.name} | {_fmt_rate(r.rate)} | {_fmt_speedup(r)} | "
            f"{_fmt_mib(r.tracemalloc_peak)} | {_fmt_diff(r)} |"
        )
    lines += render_extra_table(extra or [])
    lines += render_overhead_table(evaluate_overhead(rows, extra or []))
    lines += ["", render_goals(goals).rstrip(), README_END]
    return "\n".join(lines)


def update_readme(readme: Path, block: str) -> None:
    if not readme.exists():
        print(f"README: {readme} does not exist; skipping --write-readme")
        return
    text = readme.read_text(encoding="utf-8")
    if README_START not in text or README_END not in text[text.find(README_START) :]:
        print(f"README: markers {README_START} / {README_END} not found in {readme}; skipping")
        return
    start = text.index(README_START)
    end = text.index(README_END, start) + len(README_END)
    readme.write_text(text[:start] + block + text[end:], encoding="utf-8")
    print(f"README: benchmark block in {readme} updated")


def profile_core(group: list[Case]) -> None:
    """cProfile the group's core call once; the top of the profile goes to benchmarks/out/."""
    import cProfile
    import io
    import pstats

    core = group[0]
    OUT_DIR.mkdir(exist_ok=True)
    gc.collect()
    with GCTimer() as gct:
        t0 = time.perf_counter()
        core.fn()
        with_gc = time.perf_counter() - t0
    gc.collect()
    gc.disable()
    try:
        t0 = time.perf_counter()
        core.fn()
        without_gc = time.perf_counter() - t0
    finally:
        gc.enable()
    summary = (
        f"{core.group} / {core.name}, {core.items:,} items: {with_gc:.3f} s with the garbage collector "
        f"({gct.total:.3f} s inside collections), {without_gc:.3f} s with gc disabled\n\n"
    )
    prof = cProfile.Profile()
    prof.enable()
    core.fn()
    prof.disable()
    buf = io.StringIO()
    buf.write(summary)
    stats = pstats.Stats(prof, stream=buf).strip_dirs()
    stats.sort_stats("tottime").print_stats(25)
    stats.sort_stats("cumulative").print_stats(25)
    name = re.sub(r"[^a-z0-9]+", "_", core.group.lower()).strip("_")
    path = OUT_DIR / f"profile_{name}.txt"
    path.write_text(buf.getvalue(), encoding="utf-8")
    print(f"  profile: {summary.strip()} -> {path.relative_to(REPO)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="10x smaller corpora (smoke test)")
    parser.add_argument(
        "--write-readme",
        action="store_true",
        help=f"replace the block between {README_START} and {README_END} in README.md",
    )
    parser.add_argument("--readme", type=Path, default=README, help=argparse.SUPPRESS)  # for testing
    parser.add_argument(
        "--output",
        type=Path,
        default=None,
        help="results file (default benchmarks/results.md, or results-quick.md with --quick)",
    )
    parser.add_argument("--seed", type=int, default=None, help="corpus seed (default: corpus.DEFAULT_SEED)")
    parser.add_argument(
        "--repeat", type=int, default=7, help="runs per fast case; the best counts (default 7)"
    )
    parser.add_argument(
        "--ref-repeat",
        type=int,
        default=3,
        help="runs per slow reference (pure Python, PyPI anls/anls-star, nltk; default 3)",
    )
    parser.add_argument(
        "--profile", action="store_true", help="also cProfile the core calls into benchmarks/out/"
    )
    parser.add_argument(
        "--only-anls-ned",
        action="store_true",
        help="skip the token F1, METEOR and CIDEr benchmarks (bench_*.py)",
    )
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.ref_repeat < 1:
        parser.error("--repeat and --ref-repeat must be at least 1")

    wall0 = time.perf_counter()
    tmp = prepare_environment()
    sys.path.insert(0, str(HERE))
    # the evaluate scripts import `metricore_hf`, which lives at the repository root (not installed)
    if str(REPO) not in sys.path:
        sys.path.insert(1, str(REPO))
    started = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load_start = " ".join(f"{x:.2f}" for x in os.getloadavg())
    share = CPUShare()
    try:
        import corpus

        seed = corpus.DEFAULT_SEED if args.seed is None else args.seed
        sizes = QUICK if args.quick else FULL
        print(f"metricore benchmarks ({'quick' if args.quick else 'full'}), {started}", flush=True)
        src = corpus.source_text()
        print(f"source text: {len(src.sources)} sources, digest {src.digest}", flush=True)
        suite = Suite(sizes, seed, args.repeat, args.ref_repeat)
        suite.load_evaluate()
        probe = RSSProbe()
        print(f"memory: tracemalloc peak per case; RSS via {probe.method}", flush=True)
        rows: list[Row] = []
        for _, build in suite.builders():
            groups = build()
            for group in groups:
                print(f"\n== {group[0].group}", flush=True)
                group_rows = measure_group(group, probe)
                for row in group_rows:
                    print_row(row)
                compare(group_rows)
                if args.profile:
                    profile_core(group)
                rows.extend(group_rows)
                for case in group:
                    case.release()
            del groups, group  # with the closures released, this drops the corpus before the next is built
            gc.collect()
        extra = run_metric_modules(args.quick, args.only_anls_ned)
        goals = check_goals(rows)
        print("\nGoals:")
        for text, target, measured, ok in goals:
            print(f"  [{'PASS' if ok else 'MISS'}] {text}: {measured} (target {target})")
        wall = time.perf_counter() - wall0
        load_end = " ".join(f"{x:.2f}" for x in os.getloadavg())
        output = args.output or (HERE / ("results-quick.md" if args.quick else "results.md"))
        others = share.others()
        print(f"machine: {others}")
        output.write_text(
            render_results(rows, goals, suite, args, wall, probe, started, (load_start, load_end), others)
            + render_extra(extra)
            + "\n".join(
                ["", "## evaluate-path overhead", *render_overhead_table(evaluate_overhead(rows, extra)), ""]
            ),
            encoding="utf-8",
        )
        print(f"\nresults: {output}")
        if args.write_readme:
            update_readme(args.readme, render_readme_block(rows, goals, args, started, extra))
        print(f"total wall time: {wall:,.1f} s")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
