"""ANLS (Average Normalized Levenshtein Similarity) as a Hugging Face `evaluate` metric.

A thin adapter over `metricore.compute_anls`; the configs are the core's variants:
`docvqa` (default; the Robust Reading Competition DocVQA script), `stvqa_paper` (ST-VQA paper,
PyPI `anls` 0.0.2), `anls_star` (arXiv 2402.03848, PyPI `anls-star` 1.0.1) and `dude`
(github.com/Jordy-VL/DUDEeval). See README.md beside this file for the exact rules.
"""

import evaluate

from metricore_hf import evaluate_module as hf

_DESCRIPTION = """\
ANLS scores each answer by its normalized Levenshtein similarity to the closest gold answer,
zeroed below a threshold (0.5), and averages over questions. Configs: docvqa (default),
stvqa_paper, anls_star (structured answers: dicts, lists, tuples of alternatives, None),
dude (not-answerable and list answers).
"""

_CITATION = """\
@inproceedings{biten2019scene,
  title={Scene Text Visual Question Answering},
  author={Biten, Ali Furkan and Tito, Ruben and Mafla, Andres and Gomez, Lluis and Rusinol, Marcal and Valveny, Ernest and Jawahar, C. V. and Karatzas, Dimosthenis},
  booktitle={ICCV}, year={2019}}
@article{peer2024anls,
  title={ANLS* -- A Universal Document Processing Metric for Generative Large Language Models},
  author={Peer, David and Sch{\\"o}pf, Philemon and Nebendahl, Volckmar and Rietzler, Alexander and Stabinger, Sebastian},
  journal={arXiv:2402.03848}, year={2024}}
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: one answer per question. docvqa/stvqa_paper: str. anls_star: any
        structure (str, number, bool, None, list, dict). dude: str or list of str.
    references: per question, a list of gold alternatives or a bare str (one answer).
        anls_star: a structure (tuple = alternatives, list = matched list). dude: a list
        of str (empty = not answerable) or {"answers": [...], "answer_type": "..."}.
    threshold: similarity threshold tau in [0, 1] (default 0.5).
Returns:
    anls: mean score over questions, in [0, 1].
    scores: the score of each question.
    signature: reproducibility signature (metric, variant, options, version).
Examples:
    >>> import metricore_hf
    >>> anls = metricore_hf.load("anls")
    >>> r = anls.compute(predictions=["CocaCola"], references=[["Coca Cola", "Coca Cola Company"]])
    >>> round(r["anls"], 4)
    0.8889
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Anls(hf.CoreMetric):
    METRIC = "anls"

    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    KWARGS_DESCRIPTION = _KWARGS_DESCRIPTION
    CODEBASE_URLS = (
        "https://github.com/Jordy-VL/DUDEeval",
        "https://pypi.org/project/anls-star/",
    )
    REFERENCE_URLS = (
        "https://rrc.cvc.uab.es/?ch=17&com=tasks",
        "https://arxiv.org/abs/2402.03848",
    )

    def _prepare(self, preds, refs, start):
        if self.spec.config(self.variant).json_cells:
            return hf.prepare_structured(preds, refs, self.METRIC, start)
        return hf.prepare_strings(preds, refs, self.METRIC, start)

    def _decode(self, predictions, references):
        if self.spec.config(self.variant).json_cells:
            return hf.decode_structured(predictions), hf.decode_structured(references)
        return predictions, hf.single_golds(references)
