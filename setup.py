"""Build hook for the optional C extension; the project's metadata is in pyproject.toml.

``metricore.metrics.meteor15._fast`` speeds up METEOR 1.5 and is optional: without a C
compiler the install goes on and the Python path computes the same scores. The extension
records a hash of its source, so that a build older than the source is noticed at import
(``metricore.metrics.meteor15.backend_c``) instead of being run. ``METRICORE_PURE_PYTHON_BUILD=1``
builds without it: a portable ``py3-none-any`` wheel (the Space bundles).
"""

import hashlib
import os
import sys

from setuptools import Extension, setup

_SOURCE = "metricore/metrics/meteor15/_fast.c"
# the score must be the jar's double arithmetic operation for operation: no fused multiply-add
_FLAGS = [] if sys.platform == "win32" else ["-O2", "-ffp-contract=off", "-fno-fast-math"]


def _extensions() -> list:
    if os.environ.get("METRICORE_PURE_PYTHON_BUILD") == "1" or not os.path.exists(_SOURCE):
        return []
    with open(_SOURCE, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    return [
        Extension(
            "metricore.metrics.meteor15._fast",
            [_SOURCE],
            define_macros=[("METRICORE_SOURCE_HASH", f'"{digest}"')],
            extra_compile_args=_FLAGS,
            optional=True,
        )
    ]


setup(ext_modules=_extensions())
