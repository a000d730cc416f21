"""Which backend computes METEOR 1.5, chosen in this one place.

Two modules offer the same functions (``line_info``, ``score_segments``; as rapidfuzz keeps
``fuzz_py`` and ``fuzz_cpp`` and chooses in ``fuzz``): :mod:`.backend_py`, the Python
specification, and :mod:`.backend_c`, the C extension. The compiled one runs when it
imported (built, current, with the Python modules' constants) unless the environment sets
``METRICORE_METEOR15_PURE_PYTHON`` to anything but ``0`` (read at each call, so a process
can switch). Scores are identical either way. :func:`backend` says which one runs and why.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Sequence
from types import ModuleType

from metricore.metrics.meteor15 import backend_py
from metricore.metrics.meteor15.backend_py import SegmentResult
from metricore.metrics.meteor15.builds import ENV_PURE_PYTHON, pure_python_requested
from metricore.metrics.meteor15.matchers import Line

__all__ = ["ENV_PURE_PYTHON", "SegmentResult", "backend", "compiled_module", "implementation"]


def _load() -> tuple[ModuleType | None, str]:
    """The compiled backend and why it runs, or ``None`` and why not (a build that exists
    but must not run is also a warning)."""
    try:
        backend_c = importlib.import_module("metricore.metrics.meteor15.backend_c")
    except ModuleNotFoundError as exc:  # not built: an install without a C compiler
        return None, f"{exc}; the Python backend computes the same scores"
    except ImportError as exc:  # stale, or its constants differ
        warnings.warn(str(exc), RuntimeWarning, stacklevel=2)
        return None, str(exc)
    return (
        backend_c,
        "the C extension is built from this version's _fast.c with the Python modules' constants",
    )


_COMPILED, _WHY = _load()


def compiled_module() -> ModuleType | None:
    """The compiled backend when it is usable (whatever the environment says)."""
    return _COMPILED


def backend() -> tuple[str, str]:
    """``("compiled" | "python", reason)``: the backend the next call runs, and why."""
    if _COMPILED is None:
        return backend_py.NAME, _WHY
    value = pure_python_requested()
    if value is not None:
        return backend_py.NAME, f"{ENV_PURE_PYTHON}={value} is set"
    return _COMPILED.NAME, _WHY


def implementation() -> ModuleType:
    """The module of the backend :func:`backend` names (:mod:`.backend_c` or
    :mod:`.backend_py`): a call takes it once and uses its functions throughout."""
    if _COMPILED is not None and backend()[0] == _COMPILED.NAME:
        return _COMPILED
    return backend_py


def line_info(lines: Sequence[tuple[str, ...]]) -> list[Line]:
    """The walked line of each prepared line, by the chosen backend."""
    return implementation().line_info(lines)


def score_segments(segments: Sequence[tuple[Line, Sequence[Line]]]) -> list[SegmentResult]:
    """The best reference, statistics and score of each segment, by the chosen backend."""
    return implementation().score_segments(segments)
