"""Loading ``harness_code.py`` as written (the toolkit) or with only its import prefix switched
to ``metricore.pycocoevalcap`` (shared by the parity tests and
``benchmarks/bench_pycocoevalcap.py``)."""

from __future__ import annotations

import re
import types
from pathlib import Path

HARNESS = Path(__file__).with_name("harness_code.py")
_IMPORT = re.compile(r"^(\s*)from pycocoevalcap\.", re.M)
#: ``__name__`` of the switched module
SWITCHED = "metricore_harness"


def load_harness(switched: bool) -> types.ModuleType:
    """``harness_code.py`` as a module; ``switched``: with every ``from pycocoevalcap.`` turned
    into ``from metricore.pycocoevalcap.`` and nothing else changed (the file may name the
    toolkit nowhere else but in its docstring)."""
    source = HARNESS.read_text(encoding="utf-8")
    body = source.split('"""', 2)[2]  # after the module docstring
    for line in body.splitlines():
        if "pycocoevalcap" in line and not line.strip().startswith("from pycocoevalcap."):
            raise AssertionError(f"harness_code.py names the toolkit outside an import: {line!r}")
    if switched:
        source, count = _IMPORT.subn(r"\1from metricore.pycocoevalcap.", source)
        assert count >= 10, count
    module = types.ModuleType(SWITCHED if switched else "toolkit_harness")
    exec(compile(source, str(HARNESS), "exec"), module.__dict__)
    return module
