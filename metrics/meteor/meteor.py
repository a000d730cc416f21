"""METEOR as a Hugging Face `evaluate` metric: NLTK's numbers, offline, with per-sample scores.

A thin adapter over `metricore.compute_meteor`; the configs are the core's variants:
`nltk` (default; `nltk.translate.meteor_score` 3.10.x with HF `meteor`'s tokenization made to
work offline), `fbc2_captioning` and `fbc2_vqa` (the AIJ 2022 FusionBrain Challenge 2.0
scorers, github.com/ai-forever/fbc2_aij2022). This is NOT METEOR 1.5 (the Java jar in
`pycocoevalcap`): see README.md beside this file.
"""

import evaluate

from metricore.core.structured import to_json
from metricore.metrics.meteor import check_meteor_inputs
from metricore_hf import evaluate_module as hf

_DESCRIPTION = """\
METEOR aligns hypothesis and reference words in three stages (exact, Porter stem, WordNet
synonym), scores the harmonic mean of unigram precision and recall weighted towards recall,
and lowers it by a fragmentation penalty. Configs: nltk (default; the same numbers as
nltk.translate.meteor_score), fbc2_captioning and fbc2_vqa (FusionBrain Challenge 2.0).
Returns the mean and every sample's score.
"""

_CITATION = """\
@inproceedings{banerjee2005meteor,
  title={{METEOR}: An Automatic Metric for {MT} Evaluation with Improved Correlation with Human Judgments},
  author={Banerjee, Satanjeev and Lavie, Alon},
  booktitle={Proceedings of the ACL Workshop on Intrinsic and Extrinsic Evaluation Measures for Machine Translation and/or Summarization},
  pages={65--72}, year={2005}}
@inproceedings{lavie2007meteor,
  title={{METEOR}: An Automatic Metric for {MT} Evaluation with High Levels of Correlation with Human Judgments},
  author={Lavie, Alon and Agarwal, Abhaya},
  booktitle={Proceedings of the Second Workshop on Statistical Machine Translation}, pages={228--231}, year={2007}}
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: one hypothesis per sample: a str, or (nltk config) a list of str tokens.
    references: per sample, a reference str or a list of reference strs (the best counts);
        for a pre-tokenized prediction, a list of token lists.
    alpha: precision/recall weight in [0, 1] (default 0.9).
    beta: fragmentation penalty shape, >= 0 (default 3).
    gamma: fragmentation penalty weight in [0, 1] (default 0.5; fbc2_vqa: 0).
    synonyms: "wordnet", "ruwordnet", "wiki_ru_wordnet", "auto", "none", or a dict
        {word: [synonyms]} (default: nltk "wordnet"; fbc2 configs "auto").
    tokenizer: "nltk_line" (default), "nltk_punkt" or "whitespace".
    lemmatize: fbc2_vqa only; pymorphy whole-answer lemmatization (default True).
    number_words: fbc2_vqa only; "prediction" (default: the challenge's code, wordtodigits on the
        prediction) or "both" (English and Russian number words as cardinals on both sides).
Returns:
    meteor: mean score over samples, in [0, 1].
    scores: the score of each sample.
    signature: reproducibility signature (variant, options, NLTK and WordNet versions).
Examples:
    >>> import metricore_hf
    >>> meteor = metricore_hf.load("meteor")
    >>> r = meteor.compute(predictions=["the cat was sat on the mat"], references=[["the cat sat on the mat"]])
    >>> round(r["meteor"], 4)
    0.9654
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Meteor(hf.CoreMetric):
    METRIC = "meteor"
    # Rows travel through the Arrow cache as JSON text: a prediction is a str or a token list.
    STORAGE = hf.JSON_FEATURES

    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    KWARGS_DESCRIPTION = _KWARGS_DESCRIPTION
    CODEBASE_URLS = (
        "https://github.com/nltk/nltk/blob/develop/nltk/translate/meteor_score.py",
        "https://github.com/ai-forever/fbc2_aij2022",
    )
    REFERENCE_URLS = (
        "https://www.cs.cmu.edu/~alavie/METEOR/",
        "https://aclanthology.org/W05-0909/",
    )

    def _prepare(self, preds, refs, start):
        p, r = check_meteor_inputs(preds, refs, start=start, allow_tokens=self.variant == "nltk")
        return [to_json(x) for x in p], [to_json(x) for x in r]

    def _decode(self, predictions, references):
        return hf.decode_structured(predictions), hf.decode_structured(references)
