"""metricore: exact, fast evaluation metrics for document VQA, QA, captioning and OCR.

Pure functions over Python lists; no ``evaluate``, ``datasets`` or ``gradio`` import. Each
metric is pinned to a named reference implementation (see its module docstring).
"""

from ._version import __version__
from .anls import ANLS_VARIANTS, ANLSResult, ANLSVariant, compute_anls
from .ned import EMPTY_PAIR_POLICIES, NEDResult, compute_one_minus_ned
from .signature import build_signature

__all__ = [
    "__version__",
    "ANLS_VARIANTS",
    "ANLSResult",
    "ANLSVariant",
    "compute_anls",
    "EMPTY_PAIR_POLICIES",
    "NEDResult",
    "compute_one_minus_ned",
    "build_signature",
]
