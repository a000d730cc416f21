"""Hugging Face integrations of metricore: the ``evaluate`` module base class
(:mod:`metricore_hf.evaluate_module`) and the Gradio Space builder (:mod:`metricore_hf.space`).

Kept outside the core package so that ``metricore`` never imports ``evaluate``, ``datasets``
or ``gradio``; import the submodule you need.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["module_path"]

#: the checkout's ``metrics/`` folder (present for an editable install: ``pip install -e .``)
_METRICS = Path(__file__).resolve().parents[1] / "metrics"


def module_path(name: str) -> str:
    """The folder of the ``evaluate`` script of metric ``name``, as an absolute path, so that
    ``evaluate.load(module_path("anls"))`` works from any working directory (a relative
    ``evaluate.load("metrics/anls")`` works only from the repository root).

    Unknown names raise ``ValueError`` with a "did you mean" hint; a non-editable install
    (which ships no ``metrics/`` folder) raises ``FileNotFoundError`` saying what to do.
    """
    from metricore import registry

    spec = registry.get(name)  # ValueError for an unknown name
    folder = _METRICS / spec.name
    if not (folder / f"{spec.name}.py").is_file():
        raise FileNotFoundError(
            f"module_path: no evaluate script {folder / (spec.name + '.py')}; the scripts live in the "
            "repository's metrics/ folder: install metricore from a checkout with `pip install -e .`, "
            "or write a self-contained folder with `scripts/bundle` and load that"
        )
    return str(folder)
