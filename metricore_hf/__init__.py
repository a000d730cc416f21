"""Hugging Face integrations of metricore: the ``evaluate`` module base class
(:mod:`metricore_hf.evaluate_module`) and the Gradio Space builder (:mod:`metricore_hf.space`).

Kept outside the core package so that ``metricore`` never imports ``evaluate``, ``datasets``
or ``gradio``; import the submodule you need.
"""
