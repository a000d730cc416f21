"""Token F1 (SQuAD, SQuAD v2, MLQA, question-level, QuAC HEQ) as a Hugging Face `evaluate` metric.

A thin adapter over `metricore.compute_token_f1`, `metricore.compute_question_level` and
`metricore.compute_quac`. Configs: `squad` (default; official SQuAD v1.1 script = HF `squad`),
`squad_v2` (official v2.0 script = HF `squad_v2`), `mlqa` (facebookresearch/MLQA
`mlqa_evaluation_v1.py`, `language=` at compute time), `question_level` (entity
precision/recall/F1 of list answers), `quac` (QuAC scorer: F1, HEQ-Q, HEQ-D) and
`fbc2_textqa`/`fbc2_mathqa` (ai-forever/fbc2_aij2022 TextQA F1 and MathQA exact match).
See README.md beside this file for the exact rules.
"""

from collections.abc import Mapping

import evaluate

from metricore.core.validation import check_str, check_string_list, check_strings, string_alternatives_column
from metricore.metrics.token_f1 import squad_prediction, squad_reference
from metricore_hf import evaluate_module as hf

_DESCRIPTION = """\
Token-overlap F1 and exact match of extractive QA answers, pinned to the official scripts:
squad (default; SQuAD v1.1), squad_v2 (SQuAD v2.0: no-answer questions, HasAns/NoAns,
thresholds), mlqa (MLQA per-language normalization), question_level (entity-level
precision/recall/F1 of list answers), quac (QuAC F1, HEQ-Q, HEQ-D), and fbc2_textqa /
fbc2_mathqa (FusionBrain Challenge 2.0 TextQA F1 and MathQA exact match: pymorphy lemmas,
Russian number words, option-letter fallback). Per-question scores included.
"""

_CITATION = """\
@inproceedings{rajpurkar2016squad,
  title={SQuAD: 100,000+ Questions for Machine Comprehension of Text},
  author={Rajpurkar, Pranav and Zhang, Jian and Lopyrev, Konstantin and Liang, Percy},
  booktitle={EMNLP}, year={2016}}
@inproceedings{rajpurkar2018know,
  title={Know What You Don't Know: Unanswerable Questions for SQuAD},
  author={Rajpurkar, Pranav and Jia, Robin and Liang, Percy}, booktitle={ACL}, year={2018}}
@inproceedings{lewis2020mlqa,
  title={MLQA: Evaluating Cross-lingual Extractive Question Answering},
  author={Lewis, Patrick and Oguz, Barlas and Rinott, Ruty and Riedel, Sebastian and Schwenk, Holger},
  booktitle={ACL}, year={2020}}
@inproceedings{choi2018quac,
  title={QuAC: Question Answering in Context},
  author={Choi, Eunsol and He, He and Iyyer, Mohit and Yatskar, Mark and Yih, Wen-tau and Choi, Yejin and Liang, Percy and Zettlemoyer, Luke},
  booktitle={EMNLP}, year={2018}}
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: squad/squad_v2/mlqa: one answer str per question, or HF SQuAD dicts
        {"id", "prediction_text"[, "no_answer_probability"]} (matched to references by id).
        question_level: a list of entity strings per question. quac: one answer str.
    references: squad/squad_v2/mlqa: a list of gold answers (or a bare str) per question
        (squad_v2: [] = no answer), or HF SQuAD dicts {"id", "answers": {"text": [...],
        "answer_start": [...]}}. question_level: a list of gold entities per question.
        quac: {"dialog_id": str, "answers": [str, ...]} per question.
    percent: corpus numbers x100 (default True, as the official scripts) or in [0, 1].
    no_answer_threshold: squad_v2: a question whose no_answer_probability is above it counts
        as predicted "no answer" (default 1.0).
    language: mlqa (required): en, es, hi, vi, de, ar or zh.
    normalizer: question_level: entity normalizer preset (default "squad").
    min_human_f1: quac: questions with a lower human F1 are not counted (default 0.4).
Returns:
    squad, mlqa: exact_match, f1, precision, recall; squad_v2: exact, f1, total, HasAns_exact,
    HasAns_f1, HasAns_total, NoAns_exact, NoAns_f1, NoAns_total, best_exact,
    best_exact_thresh, best_f1, best_f1_thresh, precision, recall; question_level:
    precision, recall, f1, exact_match and their micro_* forms; quac: f1, heq_q, heq_d,
    human_f1, total_questions, counted_questions, total_dialogs.
    scores: per-question scores in [0, 1]. signature: reproducibility signature.
Examples:
    >>> import metricore_hf
    >>> token_f1 = metricore_hf.load("token_f1")
    >>> r = token_f1.compute(predictions=["The Cat!", "cat cat cat"], references=[["cat"], ["cat"]])
    >>> r["exact_match"], r["f1"]
    (50.0, 75.0)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class TokenF1(hf.CoreMetric):
    METRIC = "token_f1"

    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    KWARGS_DESCRIPTION = _KWARGS_DESCRIPTION
    CODEBASE_URLS = (
        "https://rajpurkar.github.io/SQuAD-explorer/",
        "https://github.com/facebookresearch/MLQA",
        "https://quac.ai/",
    )
    REFERENCE_URLS = (
        "https://arxiv.org/abs/1606.05250",
        "https://arxiv.org/abs/1806.03822",
    )

    # ---------------------------------------------------------------- canonical rows

    def _prepare(self, preds, refs, start):
        variant = self.variant
        if ("squad_record", "squad_record") in self.spec.config(variant).inputs:
            return self._prepare_squad(preds, refs, start, variant == "squad_v2")
        if variant == "question_level":
            return (
                [check_string_list(x, self.METRIC, f"predictions[{start + i}]") for i, x in enumerate(preds)],
                [check_string_list(x, self.METRIC, f"references[{start + i}]") for i, x in enumerate(refs)],
            )
        out = []
        for i, ref in enumerate(refs):
            where = f"references[{start + i}]"
            if not isinstance(ref, Mapping) or "dialog_id" not in ref or "answers" not in ref:
                raise TypeError(
                    f"{self.METRIC}: `{where}` must be a dict {{'dialog_id': str, 'answers': [str, ...]}} "
                    f"for the quac config, got {ref!r:.80}"
                )
            out.append(
                {
                    "dialog_id": check_str(ref["dialog_id"], self.METRIC, f"{where}['dialog_id']"),
                    "answers": check_string_list(
                        ref["answers"], self.METRIC, f"{where}['answers']", allow_empty=False
                    ),
                }
            )
        return check_strings(preds, self.METRIC, "predictions", start), out

    def _prepare_squad(self, preds, refs, start, v2):
        """Plain rows (str, list of str) or SQuAD dict rows; one format per run."""
        keyed = bool(preds) and isinstance(preds[0], Mapping)
        chosen = self.selected_feature_format
        if chosen is not None and isinstance(chosen["predictions"], dict) != keyed:
            raise ValueError(
                f"{self.METRIC}: earlier rows were added "
                f"{'in the SQuAD dict format' if not keyed else 'as plain lists'}, this batch "
                f"{'is in the SQuAD dict format' if keyed else 'is plain lists'}; use one format per computation"
            )
        if keyed:
            p_rows, r_rows = [], []
            for i, row in enumerate(preds):
                qid, text, prob = squad_prediction(row, start + i, use_no_answer_probability=v2)
                p_rows.append({"id": qid, "prediction_text": text, "no_answer_probability": prob})
            for i, row in enumerate(refs):
                qid, golds = squad_reference(row, start + i)
                r_rows.append({"id": qid, "answers": golds})
            return p_rows, r_rows
        return (
            check_strings(preds, self.METRIC, "predictions", start),
            string_alternatives_column(refs, self.METRIC, start=start, allow_empty=v2),
        )
