"""``pycocoevalcap.spice.spice.Spice``: not computed here; constructing it says why and how to get
SPICE from the toolkit.
"""

from __future__ import annotations

__all__ = ["Spice", "SPICE_UNAVAILABLE"]

#: the error message of :class:`Spice`
SPICE_UNAVAILABLE = (
    "SPICE is not computed by metricore.pycocoevalcap. SPICE (Anderson et al. 2016) is a Java "
    "program (pycocoevalcap's spice-1.0.jar, run with java -Xmx8G) that parses every caption "
    "into a scene graph with the Stanford CoreNLP 3.6.0 models, which pycocoevalcap downloads "
    "at run time (get_stanford_models: about 1 GB, network access the first time). To report "
    "SPICE, run the toolkit's scorer on the same tokenized captions, with Java 8+ installed: "
    "`from pycocoevalcap.spice.spice import Spice; score, scores = Spice().compute_score(gts, res)` "
    '(gts/res as PTBTokenizer().tokenize returns them); otherwise leave (Spice(), "SPICE") out '
    "of the scorer list (metricore.pycocoevalcap.eval.COCOEvalCap leaves the SPICE key out)."
)


class Spice:
    """Raises ``NotImplementedError`` (:data:`SPICE_UNAVAILABLE`): what SPICE needs and how to run
    the toolkit's."""

    def __init__(self) -> None:
        raise NotImplementedError(SPICE_UNAVAILABLE)

    @staticmethod
    def method() -> str:
        return "SPICE"
