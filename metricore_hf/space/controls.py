"""A Space's controls, derived from the metric's options (:mod:`metricore.core.spec`).

One control per interactive option of any config: a slider for a number (its range and step
from the option's UI hints), a checkbox for a bool, a dropdown for a choice. A control is
shown only for the configs that take the option, and reset to a config's own default when
the user picks that config. Values are checked by the spec's ``bind``, never here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import gradio as gr

from metricore.core.spec import MetricSpec, Option

__all__ = ["Control", "controls_of"]

Kind = Literal["slider", "checkbox", "dropdown"]
_KINDS: dict[str, Kind] = {"bool": "checkbox", "choice": "dropdown"}


@dataclass(frozen=True)
class Control:
    """The control of one option: its kind, the configs that take it and each one's default."""

    option: Option
    kind: Kind
    #: config name -> the option's default in that config (only configs that take it)
    defaults: Mapping[str, Any]

    @property
    def name(self) -> str:
        return self.option.name

    def applies_to(self, config: str) -> bool:
        return config in self.defaults

    def default_for(self, config: str) -> Any:
        """The value the control shows under ``config`` (a config without the option: the
        first config's, for a hidden control)."""
        return self.defaults.get(config, next(iter(self.defaults.values())))

    def value_for_core(self, value: Any) -> Any:
        """The control's value as the option takes it (a slider sends 4.0 for an integer)."""
        if self.option.type == "integer" and isinstance(value, float) and value.is_integer():
            return int(value)
        return value

    def component(self, config: str) -> gr.components.Component:
        option = self.option
        value = self.default_for(config)
        label, info, visible = option.label or option.name, option.doc, self.applies_to(config)
        if self.kind == "checkbox":
            return gr.Checkbox(value=value, label=label, info=info, visible=visible)
        if self.kind == "dropdown":
            return gr.Dropdown(
                list(option.shown_choices), value=value, label=label, info=info, visible=visible
            )
        low = option.ui_low if option.ui_low is not None else option.low
        high = option.ui_high if option.ui_high is not None else option.high
        if not (math.isfinite(low) and math.isfinite(high)):
            raise ValueError(f"option {option.name!r}: a slider needs a finite range (set ui_low/ui_high)")
        step = option.step if option.step is not None else (1 if option.type == "integer" else 0.01)
        return gr.Slider(low, high, value=value, step=step, label=label, info=info, visible=visible)


def controls_of(metric: MetricSpec) -> tuple[Control, ...]:
    """The controls of every interactive option, in the order the configs declare them."""
    names: list[str] = []
    for config in metric.configs:
        names.extend(o.name for o in config.options if o.interactive and o.name not in names)
    out = []
    for name in names:
        having = [c for c in metric.configs if name in c.option_names]
        first = having[0].option(name)
        defaults = {}
        for c in having:
            default = c.option(name).default
            if default is None:  # chosen by the core, or required: the first choice
                default = first.shown_choices[0] if first.shown_choices else None
            defaults[c.name] = default
        out.append(Control(first, _KINDS.get(first.type, "slider"), defaults))
    return tuple(out)
