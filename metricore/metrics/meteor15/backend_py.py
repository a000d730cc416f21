"""The pure-Python backend of METEOR 1.5: the specification, run as it is written.

:mod:`.backend_c` offers the same two functions, computed by the C extension; :mod:`.dispatch`
chooses between them in one place (as rapidfuzz keeps ``fuzz_py`` and ``fuzz_cpp`` and
chooses in ``fuzz``). Both take and give the same values; the tests compare them with each
other and with the jar.
"""

from __future__ import annotations

from collections.abc import Sequence

from metricore.metrics.meteor15 import matchers
from metricore.metrics.meteor15.matchers import Line
from metricore.metrics.meteor15.score import Stats, best_line

__all__ = ["NAME", "SegmentResult", "line_info", "score_segments"]

NAME = "python"

#: (best reference index, its 23 statistics, its score) of a segment, as
#: :func:`.score.best_line` gives it: ``(-1, (), -1.0)`` without references
SegmentResult = tuple[int, Stats, float]


def line_info(lines: Sequence[tuple[str, ...]]) -> list[Line]:
    """The walked :class:`.matchers.Line` of each prepared line (equal lines share one)."""
    return matchers.line_info(lines)


def score_segments(segments: Sequence[tuple[Line, Sequence[Line]]]) -> list[SegmentResult]:
    """The best reference of each ``(hypothesis, references)`` segment, its statistics and
    score (:func:`.score.best_line`)."""
    return [best_line(hyp, refs) for hyp, refs in segments]
