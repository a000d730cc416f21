"""Hugging Face integrations of metricore: the ``evaluate`` module base class
(:mod:`metricore_hf.evaluate_module`), the Gradio Space builder (:mod:`metricore_hf.space`),
the Trainer hooks (:mod:`metricore_hf.trainer`) and the Space bundles
(:mod:`metricore_hf.bundle`).

Kept outside the core package so that ``metricore`` never imports ``evaluate``, ``datasets``
or ``gradio``; import the submodule you need. The ``evaluate`` scripts ship with the package
(``metricore_hf/metrics/<name>/`` in a wheel, the repository's ``metrics/<name>/`` in a
checkout): :func:`load` and :func:`module_path` find them from any directory.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["load", "module_path"]

_HERE = Path(__file__).resolve().parent
#: where the scripts are: package data of an installed wheel, or the checkout's metrics/ folder
#: (an editable install, or the source tree on sys.path)
_FOLDERS = (_HERE / "metrics", _HERE.parent / "metrics")


def module_path(name: str) -> str:
    """The folder of the ``evaluate`` script of metric ``name``, as an absolute path, so that
    ``evaluate.load(module_path("anls"))`` works from any working directory.

    Unknown names raise ``ValueError`` with a "did you mean" hint; a missing script (a broken
    install) raises ``FileNotFoundError`` naming the places looked at.
    """
    from metricore import registry

    spec = registry.get(name)  # ValueError for an unknown name
    for base in _FOLDERS:
        folder = base / spec.name
        if (folder / f"{spec.name}.py").is_file():
            return str(folder)
    looked = ", ".join(str(base / spec.name / f"{spec.name}.py") for base in _FOLDERS)
    raise FileNotFoundError(
        f"module_path: the evaluate script of {spec.name!r} is not installed (looked at {looked}); "
        "reinstall metricore (`pip install 'metricore[hf]'`)"
    )


def load(name: str, config: str | None = None, **kwargs: Any) -> Any:
    """``evaluate.load`` of metric ``name`` (default config: the metric's first), from the
    scripts this package ships: no Hub look-up, any working directory. ``kwargs`` go to
    ``evaluate.load`` (``num_process``, ``process_id``, ``experiment_id``, ...).

    An unknown config raises ``ValueError`` listing the metric's configs."""
    import evaluate

    from metricore import registry

    config = registry.get(name).config(config).name
    return evaluate.load(module_path(name), config, **kwargs)
