"""Build hook: the optional C extensions and the evaluate scripts; the metadata is in setup.cfg.

The ``evaluate`` scripts live in the repository's ``metrics/<name>/`` folders (one folder a
user can read whole, as evaluate's own metrics); the wheel ships them as package data of
``metricore_hf`` (``metricore_hf/metrics/<name>/``), so that ``metricore_hf.module_path(name)``
and ``metricore_hf.load(name)`` work after any install, editable or not.

``metricore.metrics.meteor15._fast`` speeds up METEOR 1.5's scoring and ``._paraphrase`` the
first-use build of its paraphrase index; both are optional: without a C compiler the install
goes on and the Python paths compute the same results. Each extension records a hash of its
source, so that a build older than the source is noticed at import (``meteor15.backend_c``,
``meteor15.paraphrase_build``) instead of being run. ``METRICORE_PURE_PYTHON_BUILD=1`` builds
without them: a portable ``py3-none-any`` wheel (the Space bundles).
"""

import hashlib
import os
import sys

from setuptools import Extension, find_namespace_packages, setup

_SOURCES = {
    "metricore.metrics.meteor15._fast": "metricore/metrics/meteor15/_fast.c",
    "metricore.metrics.meteor15._paraphrase": "metricore/metrics/meteor15/_paraphrase.c",
}
# the score must be the jar's double arithmetic operation for operation: no fused multiply-add
_FLAGS = [] if sys.platform == "win32" else ["-O2", "-ffp-contract=off", "-fno-fast-math"]


def _extension(name: str, source: str) -> Extension:
    with open(source, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    return Extension(
        name,
        [source],
        define_macros=[("METRICORE_SOURCE_HASH", f'"{digest}"')],
        extra_compile_args=_FLAGS,
        optional=True,
    )


def _extensions() -> list:
    if os.environ.get("METRICORE_PURE_PYTHON_BUILD") == "1":
        return []
    return [_extension(name, source) for name, source in _SOURCES.items() if os.path.exists(source)]


def _packages() -> tuple[list[str], dict[str, str], dict[str, list[str]]]:
    """The packages, ``metrics/<name>/`` mapped to ``metricore_hf.metrics.<name>``, and the
    package data (setup.cfg's, plus each metric's card and requirements)."""
    packages = find_namespace_packages(include=["metricore", "metricore.*", "metricore_hf", "metricore_hf.*"])
    packages = [p for p in packages if not p.endswith("__pycache__")]
    metrics = sorted(
        d for d in os.listdir("metrics") if os.path.isfile(os.path.join("metrics", d, f"{d}.py"))
    )
    packages += ["metricore_hf.metrics", *(f"metricore_hf.metrics.{d}" for d in metrics)]
    data = {
        "metricore": ["py.typed"],
        "metricore.data": ["*.json"],
        "metricore.data.challenges": ["*.json"],
        "metricore_hf": ["py.typed"],
        **{f"metricore_hf.metrics.{d}": ["*.md", "*.txt"] for d in metrics},
    }
    return packages, {"metricore_hf.metrics": "metrics"}, data


_PACKAGES, _PACKAGE_DIR, _PACKAGE_DATA = _packages()
setup(ext_modules=_extensions(), packages=_PACKAGES, package_dir=_PACKAGE_DIR, package_data=_PACKAGE_DATA)
