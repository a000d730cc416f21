"""``compute_meteor_1_5``: METEOR 1.5 exactly as pycocoevalcap 1.2 computes it, without Java.

pycocoevalcap's ``Meteor.compute_score`` runs ``java -jar -Xmx2G meteor-1.5.jar - - -stdio
-l en -norm``, sends one ``SCORE ||| ref1 ||| ... ||| hyp`` line per image (after removing
``|||`` and halving double spaces in the hypothesis), then one ``EVAL`` line with all the
statistics. The shipped jar answers EVAL with each segment's score and then the corpus
score of the summed statistics (``MeteorStats.addStats``; tylin/coco-caption#34: not the
published source's aggregation). This module reproduces that exchange on the jar's own data
(:mod:`.data`, :mod:`.paraphrase`), its normalizer (:mod:`.normalize`), matchers
(:mod:`.matchers`), alignment search (:mod:`.align`) and scoring (:mod:`.score`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from metricore.core._gc import paused_gc
from metricore.core.result import Headline, MetricResult
from metricore.core.signature import build_signature
from metricore.core.stream import ItemStats
from metricore.core.validation import check_pairs, check_string_list, check_strings
from metricore.metrics.meteor15 import dispatch
from metricore.metrics.meteor15.data import load_data
from metricore.metrics.meteor15.normalize import JAVA_TRIM
from metricore.metrics.meteor15.paraphrase import index_ready, load_paraphrases
from metricore.metrics.meteor15.score import (
    N_STATS,
    Stats,
    contribution,
    meteor_score,
    prepare,
)

if TYPE_CHECKING:
    from metricore.stats.significance import SumStatistic

__all__ = [
    "METEOR15Items",
    "METEOR15Result",
    "compute_meteor_1_5",
    "meteor15_items",
    "meteor15_result",
    "corpus_statistic",
    "explain_meteor_1_5",
    "score_line_parts",
]

_METRIC = "meteor"
_VARIANT = "meteor_1_5"
#: segments whose lines are analysed together (the analysed lines are the bulk of the memory)
_SEGMENTS_AT_ONCE = 8192


@dataclass(frozen=True)
class METEOR15Result(MetricResult):
    """Corpus METEOR 1.5 (from summed statistics, as pycocoevalcap returns it) and the
    per-image scores."""

    meteor: float
    scores: list[float]
    signature: str = field(repr=False)
    #: the 23 statistics of each image's ``SCORE`` line (those of its best reference)
    statistics: list[Stats] = field(default_factory=list, repr=False, compare=False)
    #: index of the reference each image's statistics come from
    best_reference: list[int] = field(default_factory=list, repr=False, compare=False)
    predictions: list[str] = field(default_factory=list, repr=False, compare=False)
    references: list[list[str]] = field(default_factory=list, repr=False, compare=False)

    METRIC = "meteor"
    HEADLINE = (Headline("meteor", higher_is_better=True, items="score"),)
    COLUMNS = (("best_reference", "best_reference"),)

    def item_closest(self) -> list[Any] | None:
        if not self.references:  # a streamed result keeps no texts
            return None
        return [
            refs[k] if 0 <= k < len(refs) else None for refs, k in zip(self.references, self.best_reference)
        ]


def score_line_parts(hypothesis: str, references: Sequence[str]) -> tuple[str, list[str]]:
    """The hypothesis and references the jar reads from pycocoevalcap's ``SCORE`` line.

    pycocoevalcap strips ``|||`` from the hypothesis only; a reference holding ``|||`` is
    split into several references by the jar. Java's ``String.split`` drops trailing empty
    parts and ``trim`` removes every char up to U+0020.
    """
    hyp = hypothesis.replace("|||", "").replace("  ", " ")
    line = " ||| ".join(("SCORE", " ||| ".join(references), hyp))
    parts = line.split("|||")
    while parts and parts[-1] == "":
        parts.pop()
    return parts[-1].strip(JAVA_TRIM), [p.strip(JAVA_TRIM) for p in parts[1:-1]]


def _check_line(text: str, where: str) -> None:
    # the jar reads lines: a line break inside a caption would desynchronise the exchange
    for ch in ("\n", "\r"):
        if ch in text:
            raise ValueError(
                f"{_METRIC}: `{where}` contains a line break ({ch!r}), which the METEOR 1.5 jar "
                "cannot read; pass PTB-tokenized captions (metricore.text.ptb_tokenize.coco_tokenize)"
            )


def prepare_data() -> None:
    """Load METEOR 1.5's language data, building the paraphrase index first if this machine's
    cache lacks it (about 4 s with the compiled parser, 18 s without; once per machine): a
    long-running service calls it at start-up, outside any request (``metricore prepare`` does
    it from the shell, :func:`.status.prepare` says what it did)."""
    load_data()
    load_paraphrases()


def data_prepared() -> bool:
    """Whether the paraphrase index is in this machine's cache (else the first call builds it)."""
    return index_ready()


@dataclass(frozen=True, eq=False)
class METEOR15Items(ItemStats):
    """Per image, what the corpus score and the image's own score come from: the 23
    statistics of its best reference (``statistics``, one row each; ``present``: the image
    had a reference the jar read), the index of that reference (``best``, -1: the jar split
    one on ``|||``), the image's score; and the texts of its per-image rows, which a stream
    drops (:mod:`metricore.core.stream`). An image's numbers depend on its own captions only."""

    statistics: np.ndarray
    present: np.ndarray
    best: np.ndarray
    scores: np.ndarray
    predictions: list[str] | None = None
    references: list[list[str]] | None = None

    TEXT = ("predictions", "references")


@paused_gc()
def compute_meteor_1_5(predictions: list[str], references: list[list[str]]) -> METEOR15Result:
    """METEOR 1.5 of each caption against its references, and the corpus score, exactly as
    pycocoevalcap 1.2's ``Meteor().compute_score`` returns them.

    The inputs are the strings pycocoevalcap feeds the jar: ``COCOEvalCap`` PTB-tokenizes
    first (:func:`metricore.text.ptb_tokenize.coco_tokenize` does the same). Needs the
    ``pycocoevalcap`` package for its data (``pip install 'metricore[coco]'``), not Java.

    >>> r = compute_meteor_1_5(["a man riding a horse"], [["a man rides a horse", "a horse"]])
    >>> round(r.meteor, 6), r.scores == [r.meteor]
    (0.890909, True)
    """
    return meteor15_result(meteor15_items(predictions, references))


@paused_gc()
def meteor15_items(predictions: list[str], references: list[list[str]]) -> METEOR15Items:
    """Each image's statistics and score (arguments as :func:`compute_meteor_1_5`, which is
    ``meteor15_result(meteor15_items(...))``)."""
    preds, raw_refs = check_pairs(predictions, references, _METRIC)
    preds = check_strings(preds, _METRIC, "predictions")
    # an image without references is an error, as in pycocoevalcap's COCOEvalCap (its tokenizer
    # drops the image and Bleu asserts) and in every other surface of this metric
    refs = [
        check_string_list(r, _METRIC, f"references[{i}]", allow_empty=False) for i, r in enumerate(raw_refs)
    ]
    for i, p in enumerate(preds):
        _check_line(p, f"predictions[{i}]")
        for j, r in enumerate(refs[i]):
            _check_line(r, f"references[{i}][{j}]")
    parts = [score_line_parts(p, rs) for p, rs in zip(preds, refs)]
    # one backend for the whole call (dispatch.backend() says which and why)
    impl = dispatch.implementation()
    num = len(parts)
    statistics = np.zeros((num, N_STATS))
    present = np.zeros(num, bool)
    best = np.zeros(num, np.int64)
    scores = np.zeros(num)
    # the analysed lines of a slice of segments at a time: their memory follows the slice
    for at in range(0, num, _SEGMENTS_AT_ONCE):
        some = parts[at : at + _SEGMENTS_AT_ONCE]
        # each distinct line is prepared and analysed once (captions repeat across images)
        words = {t: prepare(t) for hyp, jar_refs in some for t in (hyp, *jar_refs)}
        lines = dict(zip(words, impl.line_info(list(words.values()))))
        segments = [(lines[hyp], [lines[r] for r in jar_refs]) for hyp, jar_refs in some]
        for i, (k, st, score) in enumerate(impl.score_segments(segments), at):
            # the index into the caller's references (the jar may have split one on "|||")
            best[i] = k if len(parts[i][1]) == len(refs[i]) else -1
            if st:
                statistics[i] = st
                present[i] = True
            scores[i] = score if st else meteor_score(st)
    return METEOR15Items(statistics, present, best, scores, preds, refs)


def meteor15_result(items: METEOR15Items, *, columns: bool = True) -> METEOR15Result:
    """The corpus score of every image's statistics (summed as ``MeteorStats.addStats`` sums
    them, :func:`.score.aggregate`) and the per-image scores. ``columns=False``: without the
    per-image columns (the same ``meteor``)."""
    kept = items.statistics[items.present]
    # a segment that is one chunk matching every word adds no chunk (score.contribution)
    matched_t = kept[:, 4] + kept[:, 6] + kept[:, 8] + kept[:, 10] + kept[:, 12] + kept[:, 14]
    matched_t = matched_t + kept[:, 16] + kept[:, 18]
    matched_r = kept[:, 5] + kept[:, 7] + kept[:, 9] + kept[:, 11] + kept[:, 13] + kept[:, 15]
    matched_r = matched_r + kept[:, 17] + kept[:, 19]
    perfect = (matched_t == kept[:, 0]) & (matched_r == kept[:, 1]) & (kept[:, 20] == 1.0)
    totals = kept.sum(axis=0)
    # the statistics are whole numbers: their sums are exact in any order
    totals[20] -= float(np.count_nonzero(perfect))
    statistics: list[Stats] = []
    if columns:
        rows = items.statistics.tolist()
        statistics = [tuple(row) if ok else () for row, ok in zip(rows, items.present.tolist())]
    return METEOR15Result(
        meteor=meteor_score(tuple(totals.tolist())),
        scores=items.scores.tolist() if columns else [],
        signature=build_signature(_METRIC, _VARIANT, backends={"reference": "pycocoevalcap-1.2"}),
        statistics=statistics,
        best_reference=items.best.tolist() if columns else [],
        predictions=(items.predictions or []) if columns else [],
        references=(items.references or []) if columns else [],
    )


def corpus_statistic(result: METEOR15Result) -> SumStatistic:
    """The corpus score as a statistic of per-image columns, for bootstrap intervals and
    paired tests: the 23 statistics summed as ``addStats`` sums them (a segment that is one
    chunk matching every word adds no chunk), scored by :func:`.score.meteor_score`."""
    # imported here: scipy (behind the statistics layer) costs a second at start-up
    from metricore.stats.significance import SumStatistic

    rows = [st if st else (0.0,) * N_STATS for st in result.statistics]
    columns = np.array([contribution(st) for st in rows], dtype=np.float64).T

    def score(sums: np.ndarray, n: int) -> np.ndarray:
        return np.array([meteor_score(tuple(row)) for row in sums.tolist()])

    return SumStatistic(columns, score, name="meteor")


def explain_meteor_1_5(result: METEOR15Result) -> list[str]:
    """One line per image: lengths, matches per module, chunks and the score."""
    out = []
    for st, s in zip(result.statistics, result.scores):
        if not st:
            out.append(f"no reference; score {s:.4f}")
            continue
        per = ", ".join(
            f"{name} {int(st[4 + 4 * k] + st[6 + 4 * k])}"
            for k, name in enumerate(("exact", "stem", "synonym", "paraphrase"))
        )
        out.append(
            f"{int(st[0])} hypothesis / {int(st[1])} reference words; matched {per}; "
            f"{int(st[20])} chunk(s); score {s:.4f}"
        )
    return out
