"""Text normalizers: the one home for every answer-cleaning rule.

A normalizer is a small frozen object with one method, ``__call__(text) -> text``, built from
named steps and exposed under a preset name (the style of rouge_score's tokenizers and
jiwer's transformations). Metrics refer to presets; they never re-write the rules inline.

* :mod:`~metricore.text.normalize.presets`: :class:`Normalizer`, the presets
  :data:`NORMALIZERS` (``rrc``, ``identity``, ``squad``, ``mlqa_<lang>``, ``fbc2_textqa``,
  ``fbc2_mathqa``) and :func:`get_normalizer`;
* :mod:`~metricore.text.normalize.steps`: the named steps presets are built from;
* :mod:`~metricore.text.normalize.rrc`: the Robust Reading Competition rule, batched for
  answer columns;
* :mod:`~metricore.text.normalize.squad`: SQuAD's ``normalize_answer`` and its fast path;
* :mod:`~metricore.text.normalize.fbc2`: FusionBrain Challenge 2.0 answer and caption
  cleaning.

Every public name is importable from this package.
"""

from metricore.text.normalize.fbc2 import (
    FBC2_NUMBER_LEMMAS,
    fbc2_caption_clean,
    fbc2_lemma,
    strip_ascii_punctuation_lower,
)
from metricore.text.normalize.presets import MLQA_LANGUAGES, NORMALIZERS, Normalizer, get_normalizer
from metricore.text.normalize.rrc import rrc_normalize, rrc_normalize_batch, rrc_normalize_many
from metricore.text.normalize.squad import squad_normalize
from metricore.text.normalize.steps import Step as Step
from metricore.text.normalize.steps import unicode_punctuation

# Not public. The tests import _BATCH_MIN, and _BLOCK is the name rrc_normalize_batch reads
# its block size from (see metricore.text.normalize.rrc).
from metricore.text.normalize.rrc import _BATCH_MIN as _BATCH_MIN  # isort: skip
from metricore.text.normalize.rrc import _BLOCK as _BLOCK  # isort: skip

__all__ = [
    "Normalizer",
    "NORMALIZERS",
    "MLQA_LANGUAGES",
    "get_normalizer",
    "rrc_normalize",
    "rrc_normalize_many",
    "rrc_normalize_batch",
    "squad_normalize",
    "unicode_punctuation",
    "strip_ascii_punctuation_lower",
    "fbc2_caption_clean",
    "FBC2_NUMBER_LEMMAS",
    "fbc2_lemma",
]
