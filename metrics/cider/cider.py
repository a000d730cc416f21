"""CIDEr-D and CIDEr as a Hugging Face `evaluate` metric: the COCO caption toolkit's numbers,
without Java, with per-image scores.

A thin adapter over `metricore.compute_cider`; the configs are the core's variants:
`cider_d` (default; `pycocoevalcap` 1.2 `PTBTokenizer` + `Cider`, which is CIDEr-D) and
`cider` (plain CIDEr as in github.com/vrama91/cider). Captions are PTB-tokenized by a pure-Python
re-implementation of the Stanford tokenizer the toolkit runs in Java. See README.md beside
this file for the exact rules, the document-frequency options and the known divergences.
"""

import evaluate

from metricore.metrics.cider import check_cider_inputs
from metricore_hf import evaluate_module as hf

_DESCRIPTION = """\
CIDEr scores a candidate image caption by the tf-idf weighted n-gram (1-4) cosine similarity
to the image's reference captions, averaged over the references, the n-gram orders and the
images; n-grams common to many images weigh less. Configs: cider_d (default; the COCO caption
evaluation toolkit, pycocoevalcap: clipped counts, length penalty, x10) and cider (plain CIDEr).
Returns the corpus score and every image's score.
"""

_CITATION = """\
@inproceedings{vedantam2015cider,
  title={{CIDEr}: Consensus-based Image Description Evaluation},
  author={Vedantam, Ramakrishna and Zitnick, C. Lawrence and Parikh, Devi},
  booktitle={CVPR}, pages={4566--4575}, year={2015}}
@article{chen2015microsoft,
  title={Microsoft {COCO} Captions: Data Collection and Evaluation Server},
  author={Chen, Xinlei and Fang, Hao and Lin, Tsung-Yi and Vedantam, Ramakrishna and Gupta, Saurabh and Doll{\\'a}r, Piotr and Zitnick, C. Lawrence},
  journal={arXiv:1504.00325}, year={2015}}
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: one candidate caption (str) per image.
    references: per image, a list of reference captions (a bare str is one reference).
    tokenize: PTB-tokenize the raw captions as pycocoevalcap does (default True); False for
        already tokenized text (words separated by whitespace).
    n: longest n-gram order (default 4).
    sigma: length-penalty standard deviation (cider_d only; default 6.0).
    df: "corpus" (document frequencies from these references; default), a
        metricore.DocumentFrequency table, or the path of one saved with its .save().
Returns:
    cider: the corpus score, the mean of the per-image scores.
    scores: the score of each image.
    signature: reproducibility signature (variant, tokenizer, n, sigma, df source, version).
Examples:
    >>> import metricore_hf
    >>> cider = metricore_hf.load("cider")
    >>> r = cider.compute(predictions=["a cat sits on a mat", "a dog runs"],
    ...                   references=[["a cat sits on a mat", "a cat on a mat"],
    ...                               ["a dog runs in the park", "a dog in a park"]])
    >>> round(r["cider"], 4)
    5.0491
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Cider(hf.CoreMetric):
    METRIC = "cider"

    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    KWARGS_DESCRIPTION = _KWARGS_DESCRIPTION
    CODEBASE_URLS = (
        "https://github.com/salaniz/pycocoevalcap",
        "https://github.com/vrama91/cider",
    )
    REFERENCE_URLS = (
        "https://arxiv.org/abs/1411.5726",
        "https://arxiv.org/abs/1504.00325",
    )

    def _prepare(self, preds, refs, start):
        return check_cider_inputs(preds, refs, start)
