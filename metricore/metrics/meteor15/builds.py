"""The two optional C extensions of METEOR 1.5 (``_fast``: the scoring backend; ``_paraphrase``:
the paraphrase index's parser): whether a build may run, in one place.

Each extension records the hash of the source it was compiled from (``SOURCE_HASH``, set by
``setup.py``); a build older than the source beside it (an editable install whose source
changed) must not run. ``METRICORE_METEOR15_PURE_PYTHON`` set to anything but ``0`` switches
both off (read at each call, so a process can switch).
"""

from __future__ import annotations

import hashlib
import os
from types import ModuleType

__all__ = ["ENV_PURE_PYTHON", "pure_python_requested", "stale_build"]

ENV_PURE_PYTHON = "METRICORE_METEOR15_PURE_PYTHON"


def pure_python_requested() -> str | None:
    """The value of :data:`ENV_PURE_PYTHON` when it asks for the Python paths, else ``None``."""
    value = os.environ.get(ENV_PURE_PYTHON, "")
    return None if value in ("", "0") else value


def stale_build(module: ModuleType, source_name: str, what: str) -> str | None:
    """Why ``module`` must not run: it was compiled from another version of ``source_name``
    (a file beside this module) than the one installed; ``None`` when current, or when no
    source is installed (a wheel). ``what`` names the extension in the message."""
    source = os.path.join(os.path.dirname(__file__), source_name)
    if not os.path.exists(source):
        return None
    with open(source, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    if getattr(module, "SOURCE_HASH", "") != digest:
        return (
            f"meteor 1.5: {what} is older than its source {source_name}, so the Python path is used; "
            "rebuild it with `pip install --no-deps -e .` (or `bash scripts/setup`)"
        )
    return None
