"""VQA accuracy (VQAv2, TextVQA, VizWiz, OK-VQA) as a Hugging Face `evaluate` metric.

A thin adapter over `metricore.metrics.vqa_accuracy.compute_vqa_accuracy`; the configs are the
core's variants: `vqav2` (default; GT-Vision-Lab/VQA `vqaEval.py` at master a013f00),
`vqav2_2017` (the same script at the v2.0 release a4f1afd, as the Python 3 ports copy it) and
`textvqa` (facebookresearch/mmf `TextVQAAccuracyEvaluator` with `EvalAIAnswerProcessor`). See
README.md beside this file for the exact rules.
"""

import datasets
import evaluate

from metricore.core.validation import check_strings
from metricore.metrics.vqa_accuracy import vqa_reference
from metricore_hf import evaluate_module as hf

_DESCRIPTION = """\
VQA accuracy scores an answer by how many of the (normally 10) human answers it equals after
the official answer processing: min(1, matches / 3), averaged over the leave-one-out subsets of
the human answers, then over questions (and over each answer type and question type when the
references carry them). Configs: vqav2 (default; official script at master), vqav2_2017 (its
2017 v2.0 release), textvqa (mmf/EvalAI).
"""

_CITATION = """\
@inproceedings{goyal2017making,
  title={Making the V in VQA Matter: Elevating the Role of Image Understanding in Visual Question Answering},
  author={Goyal, Yash and Khot, Tejas and Summers-Stay, Douglas and Batra, Dhruv and Parikh, Devi},
  booktitle={CVPR}, year={2017}}
@inproceedings{singh2019towards,
  title={Towards VQA Models That Can Read},
  author={Singh, Amanpreet and Natarajan, Vivek and Shah, Meet and Jiang, Yu and Chen, Xinlei and Batra, Dhruv and Parikh, Devi and Rohrbach, Marcus},
  booktitle={CVPR}, year={2019}}
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: one answer (str) per question.
    references: per question, the human answers (a list of str, normally 10), or the VQA
        annotation record {"answers": [...], "answer_type": ..., "question_type": ...}
        (answers as str or as {"answer": str, ...} records; other keys are ignored).
Returns:
    accuracy: the mean score over questions, a fraction in [0, 1].
    accuracy_<answer type>: the mean over that answer type's questions (when given).
    per_question_type: {question type: mean} (when given).
    official: vqav2/vqav2_2017: the figures the VQA script prints (percent, 2 decimals):
        overall, perAnswerType, perQuestionType.
    scores: the score of each question; columns.matches: how many human answers match.
    signature: reproducibility signature (metric, variant, version).
Examples:
    >>> import metricore_hf
    >>> vqa = metricore_hf.load("vqa_accuracy")
    >>> r = vqa.compute(predictions=["Two dogs."], references=[["2 dogs"] * 3 + ["two dogs"] * 2 + ["dogs"] * 5])
    >>> r["accuracy"], r["official"]["overall"]
    (1.0, 100.0)
"""

#: one schema for both reference forms: a list of answers is a record without types; a type
#: is stored as a list of zero or one str (evaluate refuses None where a str is declared)
VQA_FEATURES = datasets.Features(
    {
        "predictions": datasets.Value("string"),
        "references": {
            "answers": datasets.Sequence(datasets.Value("string")),
            "answer_type": datasets.Sequence(datasets.Value("string")),
            "question_type": datasets.Sequence(datasets.Value("string")),
        },
    }
)
_TYPES = ("answer_type", "question_type")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class VqaAccuracy(hf.CoreMetric):
    METRIC = "vqa_accuracy"
    STORAGE = VQA_FEATURES

    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    KWARGS_DESCRIPTION = _KWARGS_DESCRIPTION
    CODEBASE_URLS = (
        "https://github.com/GT-Vision-Lab/VQA",
        "https://github.com/facebookresearch/mmf/blob/main/mmf/utils/m4c_evaluators.py",
    )
    REFERENCE_URLS = ("https://visualqa.org/evaluation.html", "https://textvqa.org/")

    def _prepare(self, preds, refs, start):
        records = []
        for i, ref in enumerate(refs):
            answers, *types = vqa_reference(ref, start + i)
            records.append(
                {"answers": answers, **{k: [] if t is None else [t] for k, t in zip(_TYPES, types)}}
            )
        return check_strings(preds, self.METRIC, "predictions", start), records

    def _decode(self, predictions, references):
        if not any(r[k] for r in references for k in _TYPES):
            return predictions, [r["answers"] for r in references]
        records = [
            {"answers": r["answers"], **{k: r[k][0] if r[k] else None for k in _TYPES}} for r in references
        ]
        return predictions, records
