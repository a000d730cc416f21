"""The description of a metric that every surface reads (:mod:`metricore.registry`).

A :class:`MetricSpec` holds every fact the ``evaluate`` adapters, the CLI, the challenge
tasks, the intervals, the Spaces and the Trainer recipes need: its configs (variants) with
the reference each is pinned to, the options each config takes (type, default, range or
choices), the input kinds it reads, the compute function, the per-item statistics that
intervals resample, the explain function behind the Spaces' *why* column, the card's worked
examples, and a cost estimate of a request. Surfaces keep no table of their own.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from metricore.core.validation import check_bool, check_choice, check_number

__all__ = [
    "INPUT_KINDS",
    "Config",
    "Example",
    "InputKind",
    "MetricSpec",
    "Option",
    "did_you_mean",
]

#: what one item of a column may be:
#: ``text`` a str; ``alternatives`` a str or a list of str (gold alternatives, the best counts);
#: ``tokens`` a list of str tokens (pre-tokenized); ``structured`` any JSON-like value
#: (str, number, bool, None, list, dict; tuples = alternatives); ``squad_record`` a Hugging
#: Face SQuAD dict row (matched by id); ``entities`` a list of str (a set of answers);
#: ``dialog_turn`` ``{"dialog_id": str, "answers": [str, ...]}``; ``task_inputs`` a
#: challenge submission (task name -> inputs).
InputKind = Literal[
    "text", "alternatives", "tokens", "structured", "squad_record", "entities", "dialog_turn", "task_inputs"
]
INPUT_KINDS: tuple[str, ...] = get_args(InputKind)

#: kinds whose CSV/table cells are read as JSON
JSON_CELL_KINDS = frozenset({"structured", "entities", "dialog_turn", "squad_record", "task_inputs"})

OptionType = Literal["number", "integer", "bool", "choice", "text", "table"]


@dataclass(frozen=True)
class Option:
    """A keyword a config accepts.

    ``type``: ``number`` (a float in ``[low, high]``), ``integer`` (an int in ``[low, high]``),
    ``bool``, ``choice`` (one of ``choices``; ``open_choices`` also allows values a surface
    cannot list, such as a synonym dict), ``text`` (free text) or ``table`` (a value a file
    names, such as a document-frequency table). ``default`` ``None``: chosen by the core
    (e.g. per language) or required when ``required``.
    """

    name: str
    type: OptionType
    default: Any
    doc: str
    low: float = -math.inf
    high: float = math.inf
    choices: tuple[Any, ...] = ()
    open_choices: bool = False
    required: bool = False
    #: offered as a control in the Spaces (``False``: a file or a presentation choice the
    #: Space makes itself, said in ``doc``)
    interactive: bool = True

    def check(self, value: Any, metric: str) -> Any:
        """``value`` checked against the declared type and range (the core checks again)."""
        where = f"option `{self.name}`"
        if self.type == "bool":
            return check_bool(value, metric, where)
        if self.type in ("number", "integer"):
            number = check_number(value, metric, where, self.low, self.high)
            if self.type == "integer" and number != int(number):
                raise ValueError(f"{metric}: {where} must be a whole number, got {value!r}")
            return value
        if self.type == "choice" and not (self.open_choices and not isinstance(value, str)):
            return check_choice(value, self.choices, metric, where)
        return value


@dataclass(frozen=True)
class Config:
    """A named variant: its reference, its options and the input kinds it reads.

    ``inputs``: the accepted ``(prediction kind, reference kind)`` formats, the first being
    the canonical one (see :data:`InputKind`).
    """

    name: str
    reference: str
    options: tuple[Option, ...] = ()
    inputs: tuple[tuple[InputKind, InputKind], ...] = (("text", "alternatives"),)

    @property
    def option_names(self) -> frozenset[str]:
        return frozenset(o.name for o in self.options)

    def option(self, name: str) -> Option:
        for o in self.options:
            if o.name == name:
                return o
        raise KeyError(name)

    @property
    def json_cells(self) -> bool:
        """True when a table cell of this config holds JSON (structured answers)."""
        return any(kind in JSON_CELL_KINDS for pair in self.inputs for kind in pair)


@dataclass(frozen=True)
class Example:
    """A worked example of the card and the Space (``options`` override the defaults)."""

    title: str
    predictions: Sequence[Any]
    references: Sequence[Any]
    config: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)


#: ``compute(config, predictions, references, options) -> result``
Compute = Callable[[str, list[Any], list[Any], Mapping[str, Any]], Any]
#: ``explain(config, predictions, references, options, result) -> one text per item``
Explain = Callable[[str, Sequence[Any], Sequence[Any], Mapping[str, Any], Any], list[str]]
#: ``statistics(result) -> {headline key: Statistic}`` (metricore.stats)
Statistics = Callable[[Any], Mapping[str, Any]]
#: ``intervals(result, confidence, n_resamples, seed) -> {key: ConfidenceInterval}``, for a
#: result whose numbers are not statistics of one item set (the challenge score)
Intervals = Callable[[Any, float, int, "int | None"], Mapping[str, Any]]
#: ``cost(config, predictions, references, options) -> work units`` (~ microseconds of a
#: 2-core machine; the Spaces refuse a request above their budget)
Cost = Callable[[str, Sequence[Any], Sequence[Any], Mapping[str, Any]], float]


@dataclass(frozen=True)
class MetricSpec:
    """Everything a surface needs to offer a metric (module docstring)."""

    name: str
    title: str
    summary: str
    configs: tuple[Config, ...]
    compute: Compute
    result_types: tuple[type, ...]
    headline: tuple[str, ...]
    cost: Cost
    statistics: Statistics | None = None
    intervals: Intervals | None = None
    explain: Explain | None = None
    examples: tuple[Example, ...] = ()
    #: configs whose computation needs a resource installed separately (shown by surfaces)
    needs: Mapping[str, str] = field(default_factory=dict)

    @property
    def config_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.configs)

    @property
    def default_config(self) -> str:
        return self.configs[0].name

    def config(self, name: str | None = None) -> Config:
        """The config ``name`` (``None`` or ``"default"``: the first); unknown names raise
        ``ValueError`` listing the allowed ones, with a "did you mean" hint."""
        if name in (None, "default"):
            return self.configs[0]
        for c in self.configs:
            if c.name == name:
                return c
        hint = did_you_mean(str(name), self.config_names)
        raise ValueError(
            f"{self.name}: unknown config {name!r}{hint}; allowed: {', '.join(map(repr, self.config_names))}"
        )

    def check_options(self, config: str | None, options: Mapping[str, Any]) -> dict[str, Any]:
        """``options`` checked against ``config``'s declared names (the core checks the values,
        with its own messages; :meth:`Option.check` serves surfaces that check earlier)."""
        chosen = self.config(config)
        allowed = chosen.option_names
        unknown = sorted(set(options) - allowed)
        if unknown:
            hints = "".join(did_you_mean(u, allowed) for u in unknown[:1])
            raise TypeError(
                f"{self.name} ({chosen.name}): unknown option(s) {', '.join(map(repr, unknown))}{hints}; "
                f"allowed: {', '.join(sorted(allowed)) or 'none'}"
            )
        return dict(options)

    def run(
        self, config: str | None, predictions: Sequence[Any], references: Sequence[Any], **options: Any
    ) -> Any:
        """Check the options and compute: the one entry point of every surface."""
        chosen = self.config(config).name
        checked = self.check_options(chosen, options)
        return self.compute(chosen, list(predictions), list(references), checked)


def did_you_mean(word: str, allowed: Sequence[str] | frozenset[str]) -> str:
    """``" (did you mean 'x'?)"`` for the closest allowed word, or ``""``."""
    close = difflib.get_close_matches(word, sorted(allowed), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
