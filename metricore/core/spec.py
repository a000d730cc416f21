"""The description of a metric that every surface reads (:mod:`metricore.registry`).

A :class:`MetricSpec` holds every fact the ``evaluate`` adapters, the CLI, the challenge
tasks, the intervals, the Spaces and the Trainer recipes need: its configs (variants) with
the reference each is pinned to, the options each config takes (type, default, range or
choices, and how a Space shows it), the input kinds it reads, the compute function, the
per-item statistics that intervals resample, the explain function behind the Spaces' *why*
column, the card's worked examples, the data it prepares once per machine, how a challenge
task uses it, and a cost estimate of a request. Surfaces keep no table of their own.

**One call binds and runs**: :meth:`MetricSpec.bind` is the only place options are checked.
It refuses unknown names (``TypeError``, with a "did you mean"), checks every value's type and
range (``TypeError``/``ValueError`` naming the option), fills the defaults and returns a
:class:`BoundMetric`, whose :meth:`~BoundMetric.run` computes. The core builds the result's
reproducibility signature from exactly the options the bound call passes (options equal to
the config's declared defaults are left out of it).

>>> from metricore.registry import get
>>> bound = get("anls").bind("docvqa", threshold=0.4)
>>> bound.options
{'threshold': 0.4}
>>> bound.run(["CocaCola"], [["Coca Cola"]]).signature
'anls|variant:docvqa|threshold:0.4|version:0.1.0'
"""

from __future__ import annotations

import difflib
import math
import numbers
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, get_args

if TYPE_CHECKING:
    from metricore.core.stream import Stream

__all__ = [
    "INPUT_KINDS",
    "BoundMetric",
    "Config",
    "DataNeed",
    "Example",
    "InputKind",
    "MetricSpec",
    "Option",
    "TaskUse",
    "bind_options",
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

    How a Space shows it: ``label`` (default: the name), a slider's ``step`` and its range
    ``ui_low``/``ui_high`` (default: ``low``/``high``; needed for an unbounded number), and
    ``ui_choices``, the choices a Space offers when it cannot offer them all (e.g. a
    thesaurus a Space does not install). ``interactive=False``: no control (a file, or a
    presentation choice the surface makes itself, said in ``doc``).
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
    interactive: bool = True
    label: str | None = None
    step: float | None = None
    ui_low: float | None = None
    ui_high: float | None = None
    ui_choices: tuple[Any, ...] | None = None

    def check(self, value: Any, where: str) -> Any:
        """``value`` checked against the declared type and range; ``where`` names the metric
        and config for the message (e.g. ``"anls (docvqa)"``)."""
        at = f"{where}: option `{self.name}`"
        if self.type == "bool":
            if not isinstance(value, bool):
                raise TypeError(f"{at} must be true or false, got {type(value).__name__} ({value!r:.60})")
            return value
        if self.type in ("number", "integer"):
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(
                    f"{at} must be a number in [{self.low:g}, {self.high:g}], got {type(value).__name__} "
                    f"({value!r:.60})"
                )
            number = float(value)
            if not self.low <= number <= self.high:  # also refuses NaN
                raise ValueError(f"{at} must be in [{self.low:g}, {self.high:g}], got {value!r}")
            if self.type == "integer" and number != int(number):
                raise ValueError(f"{at} must be a whole number, got {value!r}")
            return value
        if self.type == "choice" and not (self.open_choices and not isinstance(value, str)):
            try:
                known = value in self.choices
            except TypeError:  # unhashable: not one of the choices
                known = False
            if not known:
                hint = did_you_mean(value, [str(c) for c in self.choices]) if isinstance(value, str) else ""
                raise ValueError(
                    f"{at} must be one of {', '.join(map(repr, self.choices))}{hint}, got {value!r:.60}"
                )
        return value

    @property
    def shown_choices(self) -> tuple[Any, ...]:
        return self.choices if self.ui_choices is None else self.ui_choices


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
    def defaults(self) -> dict[str, Any]:
        """``{option: default}`` (options whose default the core chooses are left out)."""
        return {o.name: o.default for o in self.options if o.default is not None}

    @property
    def json_cells(self) -> bool:
        """True when a cell of this config may hold JSON (some accepted format is structured)."""
        return any(kind in JSON_CELL_KINDS for pair in self.inputs for kind in pair)

    @property
    def structured(self) -> bool:
        """True when this config's canonical input is structured: table and CSV cells are read
        as JSON (when they parse), not as text."""
        return any(kind in JSON_CELL_KINDS for kind in self.inputs[0])


def bind_options(
    config: Config, options: Mapping[str, Any], where: str, *, also_allowed: Collection[str] = ()
) -> dict[str, Any]:
    """The one check of a config's options (:meth:`MetricSpec.bind` and the challenge's own
    task metrics use it): unknown names raise ``TypeError`` (``also_allowed``: names the
    caller takes itself, listed as allowed), a missing required option ``TypeError``, a bad
    value ``TypeError``/``ValueError``; ``None`` means "not given". Returns every option
    whose value is known (given, else its default)."""
    allowed = config.option_names
    unknown = sorted(set(options) - allowed - set(also_allowed))
    if unknown:
        everything = sorted(allowed | set(also_allowed))
        hint = did_you_mean(unknown[0], everything)
        raise TypeError(
            f"{where}: unknown option(s) {', '.join(map(repr, unknown))}{hint}; "
            f"allowed: {', '.join(everything) or 'none'}"
        )
    bound: dict[str, Any] = {}
    for option in config.options:
        value = options.get(option.name)
        if value is None:
            if option.required:
                choices = f" (one of {', '.join(map(repr, option.choices))})" if option.choices else ""
                raise TypeError(f"{where}: option `{option.name}` is required{choices}: {option.doc}")
            if option.default is not None:
                bound[option.name] = option.default
            continue
        bound[option.name] = option.check(value, where)
    return bound


@dataclass(frozen=True)
class Example:
    """A worked example of the card and the Space (``options`` override the defaults)."""

    title: str
    predictions: Sequence[Any]
    references: Sequence[Any]
    config: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class DataNeed:
    """Data some configs build once per machine before they can score (METEOR 1.5's
    paraphrase index): ``prepare()`` builds it (idempotent), ``prepared()`` says whether it is
    there. A long-running surface (a Space) builds it outside any request; until then a config
    in ``fallback`` scores with those options (saying so), any other config in ``configs``
    is refused with a message that says the data is being prepared."""

    what: str
    configs: tuple[str, ...]
    prepare: Callable[[], Any]
    prepared: Callable[[], bool]
    #: whether the data can be prepared on this machine at all (e.g. its source is installed)
    available: Callable[[], bool] = lambda: True
    fallback: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class TaskUse:
    """How a challenge task uses the metric (:mod:`metricore.challenge.tasks`): the configs
    it may name (those whose inputs are prediction and reference texts or structures), the
    headline numbers that can be the task's score (``score`` option of the task; the first is
    the default unless ``default_score`` picks one per config) and options a task fixes (a
    task score is in [0, 1])."""

    configs: tuple[str, ...]
    scores: tuple[str, ...]
    fixed: Mapping[str, Any] = field(default_factory=dict)
    default_score: Callable[[str], str] | None = None

    def score_for(self, config: str) -> str:
        return self.default_score(config) if self.default_score is not None else self.scores[0]


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
    cost: Cost
    statistics: Statistics | None = None
    intervals: Intervals | None = None
    explain: Explain | None = None
    examples: tuple[Example, ...] = ()
    #: configs whose computation needs a resource installed separately (shown by surfaces)
    needs: Mapping[str, str] = field(default_factory=dict)
    #: data built once per machine before some configs can score
    data: DataNeed | None = None
    #: how a challenge task may use this metric (``None``: it cannot)
    task: TaskUse | None = None
    #: short name (the index Space's tab, tables)
    label: str = ""
    #: what a surface adds to the summary (how to read its per-item table, caveats)
    notes: str = ""
    #: the range of the per-item main score (``result.scores``), for histograms
    score_range: tuple[float, float] = (0.0, 1.0)
    #: how surfaces name the per-item ``closest`` gold
    closest_label: str = "closest"
    #: whether rows are scored as a whole (``False``: the challenge score, whose input is a
    #: submission, has its own surfaces)
    rows: bool = True
    #: how the metric scores in batches (:mod:`metricore.core.stream`); ``None``: its rows are
    #: held and scored at once
    stream: Stream | None = None

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

    def bind(self, config: str | None = None, /, **options: Any) -> BoundMetric:
        """Check ``options`` against ``config`` (module docstring) and return the bound call."""
        return self.bind_options(config, options)

    def bind_options(
        self, config: str | None, options: Mapping[str, Any], *, also_allowed: Collection[str] = ()
    ) -> BoundMetric:
        """:meth:`bind` with the options as a mapping; ``also_allowed`` names keywords the
        caller takes itself (listed as allowed in the error, not bound)."""
        chosen = self.config(config)
        where = f"{self.name} ({chosen.name})"
        given = {k: v for k, v in options.items() if k not in also_allowed}
        bound = bind_options(chosen, given, where, also_allowed=also_allowed)
        return BoundMetric(self, chosen, bound)

    def run(
        self, config: str | None, predictions: Sequence[Any], references: Sequence[Any], **options: Any
    ) -> Any:
        """``bind(config, **options).run(predictions, references)``."""
        return self.bind_options(config, options).run(predictions, references)


@dataclass(frozen=True)
class BoundMetric:
    """A metric with a config and checked options (:meth:`MetricSpec.bind`)."""

    spec: MetricSpec
    config: Config
    #: every option whose value is known: the given values, checked, and the defaults
    options: Mapping[str, Any]

    @property
    def where(self) -> str:
        """How messages name this call: ``"anls (docvqa)"``."""
        return f"{self.spec.name} ({self.config.name})"

    def run(self, predictions: Sequence[Any], references: Sequence[Any]) -> Any:
        """Compute the metric (the core checks the rows and names the bad one)."""
        return self.spec.compute(self.config.name, list(predictions), list(references), dict(self.options))

    def explain(self, predictions: Sequence[Any], references: Sequence[Any], result: Any) -> list[str]:
        """Why each item scored what it did (empty strings where the metric has no texts)."""
        if self.spec.explain is None:
            return [""] * len(result.scores)
        return self.spec.explain(self.config.name, predictions, references, dict(self.options), result)

    def cost(self, predictions: Sequence[Any], references: Sequence[Any]) -> float:
        """The estimated work of scoring these rows (:data:`Cost`)."""
        return self.spec.cost(self.config.name, predictions, references, dict(self.options))


def did_you_mean(word: str, allowed: Sequence[str] | frozenset[str]) -> str:
    """``" (did you mean 'x'?)"`` for the closest allowed word, or ``""``."""
    close = difflib.get_close_matches(word, sorted(allowed), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
