"""Oracle: the FusionBrain Challenge 2.0 captioning METEOR, restated plainly from
ai-forever/fbc2_aij2022 ``evaluation/captioning/metrics/calc_meteor.py``, ``utils.py`` and
``rumeteor.py``.

Per image and reference: ``postprocess(ref, hyp, language="ru", detokenize_after=True,
tokenize_after=True, lower=True)`` (``punct_detokenize`` on both; ``@@UNKNOWN@@`` -> ``<unk>``
in the hypothesis; razdel tokens re-joined with spaces; lowercased), then ``get_meteor``: the
hypothesis goes through ``wordtodigits.convert`` (the real PyPI package, 1.0.2), both are
word-tokenized and scored by rumeteor's METEOR (Snowball Russian stemmer, thesaurus
hypernyms, alpha 0.9, beta 3, gamma 0.5); the best over the references, strict ``>`` from 0.

Replaced because they cannot run offline (and only those): ``nltk.word_tokenize(text)`` ->
``word_tokenize(text, preserve_line=True)`` (Punkt's data is a download) and ``RuWordNet()``
-> :class:`tests.oracles.fbc2_vqa_ref.FakeRuWordNet` (its database is a download).
Deliberately naive: nothing shared with ``metricore``.
"""

from __future__ import annotations

import re

import razdel
import wordtodigits as w2d
from nltk import word_tokenize
from nltk.stem.snowball import SnowballStemmer

from tests.oracles.fbc2_vqa_ref import FakeRuWordNet, meteor_score

_RUSSIAN = SnowballStemmer("russian")


def punct_detokenize(text: str) -> str:
    text = text.strip()
    for ch in ",.!?:;%" + ")]}" + "([}":
        text = text.replace(ch, "")
    for pattern in (r'"\s[^"]+\s"', r"'\s[^']+\s'"):
        for found in re.findall(pattern, text, re.U):
            text = text.replace(found, found[0] + found[2:-2] + found[-1])
    return text.replace("' s", "'s").replace(" 's", "'s").strip()


def postprocess(ref: str, hyp: str) -> tuple[str, str]:
    ref, hyp = punct_detokenize(ref.strip()), punct_detokenize(hyp.strip())
    hyp = hyp.replace("@@UNKNOWN@@", "<unk>")
    hyp = " ".join(t.text for t in razdel.tokenize(hyp))
    ref = " ".join(t.text for t in razdel.tokenize(ref))
    return ref.lower(), hyp.lower()


def get_meteor(pred: str, true: list[str], wordnet: FakeRuWordNet) -> float:
    hypothesis = word_tokenize(w2d.convert(pred), preserve_line=True)
    reference = [word_tokenize(t, preserve_line=True) for t in true]
    return meteor_score(reference, hypothesis, wordnet, gamma=0.5, stemmer=_RUSSIAN)


def score_caption(hyp: str, refs: list[str], wordnet: FakeRuWordNet | None = None) -> float:
    """One image of ``calc_meteor``: the best over the references."""
    wordnet = wordnet or FakeRuWordNet()
    best = 0.0
    for ref in refs:
        ref_p, hyp_p = postprocess(ref, hyp)
        new = get_meteor(hyp_p, [ref_p], wordnet)
        if new > best:
            best = new
    return best
