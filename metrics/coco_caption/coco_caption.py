"""The COCO caption evaluation table (BLEU-1..4, METEOR 1.5, ROUGE-L, CIDEr-D) as a Hugging Face
`evaluate` metric: the numbers of `pycocoevalcap` 1.2 `COCOEvalCap.evaluate()`, without Java,
with per-image scores of every key.

A thin adapter over `metricore.metrics.coco_caption.compute_coco_caption`; configs: `coco`
(default; the whole table), `bleu` (Bleu_1..Bleu_4) and `rouge_l` (ROUGE_L). METEOR is part of
`coco` when METEOR 1.5 (`metricore.metrics.meteor15`) is installed; SPICE is not computed.
See README.md beside this file for the rules, the degenerate cases and the limitations.
"""

import evaluate

from metricore.metrics.caption_text import check_caption_inputs
from metricore_hf import evaluate_module as hf

_DESCRIPTION = """\
The COCO caption evaluation toolkit's table in one call: Bleu_1..Bleu_4 (corpus BLEU over summed
n-gram statistics, closest reference length), METEOR (METEOR 1.5, when installed), ROUGE_L (LCS
F-measure with beta 1.2, mean over images) and CIDEr (CIDEr-D), on the same PTB tokens as
pycocoevalcap, without Java. Configs: coco (default; the whole table), bleu, rouge_l.
Returns every corpus number and every image's score of each.
"""

_CITATION = """\
@article{chen2015microsoft,
  title={Microsoft {COCO} Captions: Data Collection and Evaluation Server},
  author={Chen, Xinlei and Fang, Hao and Lin, Tsung-Yi and Vedantam, Ramakrishna and Gupta, Saurabh and Doll{\\'a}r, Piotr and Zitnick, C. Lawrence},
  journal={arXiv:1504.00325}, year={2015}}
@inproceedings{papineni2002bleu,
  title={{BLEU}: a Method for Automatic Evaluation of Machine Translation},
  author={Papineni, Kishore and Roukos, Salim and Ward, Todd and Zhu, Wei-Jing},
  booktitle={ACL}, pages={311--318}, year={2002}}
@inproceedings{lin2004rouge,
  title={{ROUGE}: A Package for Automatic Evaluation of Summaries},
  author={Lin, Chin-Yew}, booktitle={Text Summarization Branches Out}, pages={74--81}, year={2004}}
@inproceedings{vedantam2015cider,
  title={{CIDEr}: Consensus-based Image Description Evaluation},
  author={Vedantam, Ramakrishna and Zitnick, C. Lawrence and Parikh, Devi},
  booktitle={CVPR}, pages={4566--4575}, year={2015}}
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: one candidate caption (str) per image.
    references: per image, a list of reference captions (a bare str is one reference).
    tokenize: PTB-tokenize the raw captions as pycocoevalcap does (default True); False for
        already tokenized text.
    meteor: (coco only) include METEOR 1.5 when it is installed (default True).
Returns:
    Bleu_1 .. Bleu_4, METEOR, ROUGE_L, CIDEr: the corpus scores the config computes.
    scores: key -> the score of each image (as pycocoevalcap's imgToEval holds them).
    signature: reproducibility signature (tokenizer, keys, version).
Examples:
    >>> import metricore_hf
    >>> coco = metricore_hf.load("coco_caption", "bleu")
    >>> r = coco.compute(predictions=["a cat sits on a mat", "a dog runs"],
    ...                  references=[["a cat sits on a mat", "a cat on a mat"],
    ...                              ["a dog runs in the park", "a dog in a park"]])
    >>> round(r["Bleu_4"], 4)
    0.8007
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class CocoCaption(hf.CoreMetric):
    METRIC = "coco_caption"

    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    KWARGS_DESCRIPTION = _KWARGS_DESCRIPTION
    CODEBASE_URLS = ("https://github.com/salaniz/pycocoevalcap", "https://github.com/tylin/coco-caption")
    REFERENCE_URLS = ("https://arxiv.org/abs/1504.00325",)

    def _prepare(self, preds, refs, start):
        return check_caption_inputs(preds, refs, self.METRIC, start)
