"""Whether METEOR 1.5's compiled code (``_fast.c``) runs, and the module when it does.

The extension is built by ``pip install`` when a C compiler is there (``setup.py``, an
optional extension). It is used unless it is missing, older than the ``_fast.c`` beside it
(an editable install whose source changed: refused with a warning), or the environment
sets ``METRICORE_METEOR15_PURE_PYTHON=1``. Scores are identical either way; the Python
modules are the specification the C code follows.
"""

from __future__ import annotations

import hashlib
import os
import warnings
from types import ModuleType

try:
    from metricore.metrics.meteor15 import _fast as _built  # type: ignore[attr-defined]
except ImportError:  # no compiler when the package was installed
    _built = None

__all__ = ["ENV_PURE_PYTHON", "built", "compiled", "stale_build"]

ENV_PURE_PYTHON = "METRICORE_METEOR15_PURE_PYTHON"


def stale_build(module: ModuleType | None) -> str | None:
    """Why ``module`` must not run: it was compiled from another version of ``_fast.c`` than
    the one beside it."""
    source = os.path.join(os.path.dirname(__file__), "_fast.c")
    if module is None or not os.path.exists(source):  # a wheel ships no source
        return None
    with open(source, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    if getattr(module, "SOURCE_HASH", "") != digest:
        return (
            "meteor 1.5: the compiled extension is older than its source, so the Python path is "
            "used; rebuild it with `pip install --no-deps -e .` (or `bash scripts/setup`)"
        )
    return None


if (_STALE := stale_build(_built)) is not None:
    warnings.warn(_STALE, RuntimeWarning, stacklevel=1)
    _built = None


def built() -> ModuleType | None:
    """The extension module when it is built and current (whatever the environment says)."""
    return _built


def compiled() -> ModuleType | None:
    """The extension module when the compiled code is to run, else ``None``."""
    if _built is None or os.environ.get(ENV_PURE_PYTHON, "") not in ("", "0"):
        return None
    return _built
