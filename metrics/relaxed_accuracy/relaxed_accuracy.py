"""Relaxed accuracy (ChartQA, PlotQA) as a Hugging Face `evaluate` metric.

A thin adapter over `metricore.metrics.relaxed_accuracy.compute_relaxed_accuracy`, pinned to
google-research/pix2struct `relaxed_correctness` (numbers within 5%, a trailing `%` read as a
fraction, a gold of 0 compared as text, other answers compared case-insensitively; the best of
several golds counts). See README.md beside this file for the options that give the variants
other harnesses use.
"""

import evaluate

from metricore_hf import evaluate_module as hf

_DESCRIPTION = """\
Relaxed accuracy counts a numeric answer as correct when it is within max_relative_change (5%)
of the gold, and any other answer when it equals the gold ignoring case, as pix2struct's
relaxed_correctness (the ChartQA and PlotQA metric); several golds: the best counts.
"""

_CITATION = """\
@inproceedings{masry2022chartqa,
  title={ChartQA: A Benchmark for Question Answering about Charts with Visual and Logical Reasoning},
  author={Masry, Ahmed and Long, Do Xuan and Tan, Jia Qing and Joty, Shafiq and Hoque, Enamul},
  booktitle={Findings of ACL}, year={2022}}
@inproceedings{methani2020plotqa,
  title={PlotQA: Reasoning over Scientific Plots},
  author={Methani, Nitesh and Ganguly, Pritha and Khapra, Mitesh M. and Kumar, Pratyush},
  booktitle={WACV}, year={2020}}
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: one answer (str) per question.
    references: per question, the gold answer (str) or a list of gold answers.
    max_relative_change: tolerance for numbers (default 0.05).
    swapped: call relaxed_correctness(prediction, gold), as Qwen-VL does (default False).
    strip: strip the prediction first, as Qwen-VL does (default False).
    lowercase: compare non-numbers ignoring case (default True).
    number_commas: read "1,234" as a number (default False).
Returns:
    relaxed_accuracy: the share of correct questions, a fraction in [0, 1].
    scores: 1.0 or 0.0 per question.
    signature: reproducibility signature (metric, variant, non-default options, version).
Examples:
    >>> import metricore_hf
    >>> relaxed = metricore_hf.load("relaxed_accuracy")
    >>> relaxed.compute(predictions=["12.5%", "10.6", "0.0"], references=["0.125", "10", "0"])["scores"]
    [1.0, 0.0, 0.0]
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class RelaxedAccuracy(hf.CoreMetric):
    METRIC = "relaxed_accuracy"

    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    KWARGS_DESCRIPTION = _KWARGS_DESCRIPTION
    CODEBASE_URLS = ("https://github.com/google-research/pix2struct/blob/main/pix2struct/metrics.py",)
    REFERENCE_URLS = ("https://arxiv.org/abs/2203.10244", "https://arxiv.org/abs/1909.00997")
