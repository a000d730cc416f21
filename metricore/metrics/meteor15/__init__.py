"""METEOR 1.5 as the COCO caption toolkit (pycocoevalcap 1.2) runs its jar, in pure Python.

Modules: :mod:`.data` (the jar's resources), :mod:`.paraphrase` (the cached paraphrase
index), :mod:`.normalize` (``-norm``), :mod:`.stem` (Snowball English), :mod:`.matchers`
(exact, stem, synonym, paraphrase), :mod:`.align` (the beam search), :mod:`.score`
(statistics and scores), :mod:`.api` (:func:`compute_meteor_1_5`). The per-pair work and
the paraphrase walk run in one of two backends offering the same functions,
:mod:`.backend_py` (the modules above, as written) and :mod:`.backend_c` (the optional C
extension ``_fast``); :mod:`.dispatch` chooses, and :func:`backend` says which and why.
:mod:`.paraphrase_build` builds the paraphrase index (the optional extension ``_paraphrase``
parses the table); :mod:`.status` reports the data's state (:func:`data_status`) and prepares
it ahead; :mod:`.builds` says whether a compiled extension may run.
"""

from metricore.metrics.meteor15.api import (
    METEOR15Items,
    METEOR15Result,
    compute_meteor_1_5,
    corpus_statistic,
    data_prepared,
    explain_meteor_1_5,
    meteor15_items,
    meteor15_result,
    prepare_data,
)
from metricore.metrics.meteor15.dispatch import backend
from metricore.metrics.meteor15.status import DataStatus, data_status

__all__ = [
    "DataStatus",
    "METEOR15Items",
    "METEOR15Result",
    "data_status",
    "backend",
    "compute_meteor_1_5",
    "corpus_statistic",
    "data_prepared",
    "explain_meteor_1_5",
    "meteor15_items",
    "meteor15_result",
    "prepare_data",
]
