"""1-NED (one minus normalized edit distance) as a Hugging Face `evaluate` metric.

A thin adapter over `metricore.compute_one_minus_ned`, pinned to the ICDAR 2019 rule as coded
in clovaai/deep-text-recognition-benchmark (`test.py`): an item with an empty prediction or
an empty gold scores 0. See README.md beside this file.
"""

import evaluate

from metricore_hf import evaluate_module as hf

_DESCRIPTION = """\
1-NED = 1 - mean_i LD(pred_i, gold_i) / max(|pred_i|, |gold_i|), the scene-text recognition
score of ICDAR 2019 ReCTS/ArT, also reported with corpus CER. Several gold strings per item
are allowed (the best counts).
"""

_CITATION = """\
@inproceedings{sun2019icdar,
  title={ICDAR 2019 Competition on Large-scale Street View Text with Partial Labeling -- RRC-LSVT},
  author={Sun, Yipeng and others}, booktitle={ICDAR}, year={2019}}
@inproceedings{baek2019wrong,
  title={What Is Wrong With Scene Text Recognition Model Comparisons? Dataset and Model Analysis},
  author={Baek, Jeonghun and others}, booktitle={ICCV}, year={2019}}
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: one recognised string per item.
    references: per item, the gold string or a list of acceptable gold strings.
    empty_pair: "zero" (ICDAR 2019, default) or "one": the score when both are empty.
    lowercase: compare case-insensitively (default False).
    nfkc: apply Unicode NFKC first (default False).
Returns:
    one_minus_ned: mean similarity in [0, 1].
    cer: corpus character error rate, sum of distances / sum of gold lengths.
    scores: the similarity of each item.
    signature: reproducibility signature.
Examples:
    >>> import metricore_hf
    >>> ned = metricore_hf.load("one_minus_ned")
    >>> r = ned.compute(predictions=["kitten", "abc"], references=["sitting", "abd"])
    >>> round(r["one_minus_ned"], 4), round(r["cer"], 4)
    (0.619, 0.4)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class OneMinusNed(hf.CoreMetric):
    METRIC = "one_minus_ned"

    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    KWARGS_DESCRIPTION = _KWARGS_DESCRIPTION
    CODEBASE_URLS = ("https://github.com/clovaai/deep-text-recognition-benchmark",)
    REFERENCE_URLS = ("https://rrc.cvc.uab.es/?ch=12&com=tasks",)

    def _decode(self, predictions, references):
        return predictions, hf.single_golds(references)
