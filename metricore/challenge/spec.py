"""A challenge as data: tasks -> metric + config (+ options) -> weight -> threshold.

A spec is a JSON or YAML mapping::

    name: my_challenge                 # required, used in the signature
    title: ...                         # optional free text: title, reference, description
    tasks:                             # required: task name -> task (or a list with "name")
      QA:
        group: open                    # optional (default "main"); sums are reported per group
        metric: token_f1               # optional (default "score": a given score only)
        config: squad                  # optional (default: the metric's first config)
        options: {score: f1}           # optional, the metric's options
        weight: 1/15                   # required: a number >= 0 or a fraction string "p/q"
        threshold: 0.2                 # optional: eligibility needs score >= threshold
        task_id: 0                     # optional: the task number of a sample_ids.json file

The integral score is ``sum(weight * score)`` over the tasks. Every field is checked when the
spec is loaded; errors name the spec, the task and the field. ``fbc2`` is shipped as
``metricore/data/challenges/fbc2.json``.
"""

from __future__ import annotations

import hashlib
import json
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from importlib import resources
from pathlib import Path
from typing import Any

from metricore.challenge.layout import fail
from metricore.challenge.tasks import TASK_METRICS, check_task_options

__all__ = ["TaskSpec", "ChallengeSpec", "load_challenge", "builtin_challenges", "parse_spec_text"]

_METRIC = "challenge_score"
_TOP_FIELDS = frozenset({"name", "title", "reference", "description", "tasks"})
_TASK_FIELDS = frozenset(
    {"name", "group", "metric", "config", "options", "weight", "threshold", "task_id", "description"}
)
_DATA_DIR = "data/challenges"


@dataclass(frozen=True)
class TaskSpec:
    name: str
    group: str
    metric: str
    config: str | None
    options: dict[str, Any]
    weight: float
    threshold: float | None
    task_id: str | None
    description: str = ""

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"group": self.group, "metric": self.metric}
        if self.config is not None:
            out["config"] = self.config
        if self.options:
            out["options"] = dict(self.options)
        out["weight"] = self.weight
        if self.threshold is not None:
            out["threshold"] = self.threshold
        if self.task_id is not None:
            out["task_id"] = self.task_id
        if self.description:
            out["description"] = self.description
        return out


@dataclass(frozen=True)
class ChallengeSpec:
    """A validated challenge. ``digest`` identifies its scoring-relevant content."""

    name: str
    tasks: tuple[TaskSpec, ...]
    title: str = ""
    reference: str = ""
    description: str = ""
    digest: str = field(default="", compare=False)

    @property
    def task_names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tasks)

    @property
    def groups(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(t.group for t in self.tasks))

    def task(self, name: str) -> TaskSpec:
        for t in self.tasks:
            if t.name == name:
                return t
        raise fail(
            None, f"unknown task {name!r}; tasks of {self.name!r}: {', '.join(map(repr, self.task_names))}"
        )

    def as_dict(self) -> dict[str, Any]:
        """The spec as plain data (loading it again gives an equal spec)."""
        out: dict[str, Any] = {"name": self.name}
        for key in ("title", "reference", "description"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        out["tasks"] = {t.name: t.as_dict() for t in self.tasks}
        return out


def _err(spec: str, task: str | None, message: str, kind: type[Exception] = ValueError) -> Exception:
    where = f"spec {spec!r}" + (f", task {task!r}" if task is not None else "")
    return kind(f"{_METRIC}: {where}: {message}")


def _text(value: Any, spec: str, task: str | None, name: str) -> str:
    if not isinstance(value, str):
        raise _err(spec, task, f"field `{name}` must be a str, got {type(value).__name__}", TypeError)
    return value


def _weight(value: Any, spec: str, task: str) -> float:
    if isinstance(value, str):
        try:
            number = float(Fraction(value.strip()))
        except (ValueError, ZeroDivisionError):
            raise _err(
                spec, task, f"field `weight` {value!r} is not a number or a fraction like '1/15'"
            ) from None
    elif isinstance(value, numbers.Real) and not isinstance(value, bool):
        number = float(value)
    else:
        raise _err(
            spec,
            task,
            f"field `weight` must be a number or a fraction string, got {type(value).__name__}",
            TypeError,
        )
    if not math.isfinite(number) or number < 0:
        raise _err(spec, task, f"field `weight` must be a finite number >= 0, got {number}")
    return number


def _threshold(value: Any, spec: str, task: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise _err(
            spec, task, f"field `threshold` must be a number in [0, 1], got {type(value).__name__}", TypeError
        )
    number = float(value)
    if not 0.0 <= number <= 1.0:
        raise _err(spec, task, f"field `threshold` must be in [0, 1], got {number}")
    return number


def _task(name: str, raw: Any, spec: str) -> TaskSpec:
    if not isinstance(raw, Mapping):
        raise _err(spec, name, f"must be a mapping of fields, got {type(raw).__name__}", TypeError)
    unknown = sorted(set(map(str, raw)) - _TASK_FIELDS)
    if unknown:
        raise _err(
            spec,
            name,
            f"unknown field(s) {', '.join(map(repr, unknown))}; allowed: {', '.join(sorted(_TASK_FIELDS))}",
        )
    if "weight" not in raw:
        raise _err(spec, name, "missing field `weight`")
    metric_name = _text(raw.get("metric", "score"), spec, name, "metric")
    metric = TASK_METRICS.get(metric_name)
    if metric is None:
        raise _err(
            spec,
            name,
            f"field `metric`: unknown metric {metric_name!r}; allowed: {', '.join(map(repr, TASK_METRICS))}",
        )
    config = raw.get("config")
    if metric.configs:
        config = metric.configs[0] if config is None else _text(config, spec, name, "config")
        if config not in metric.configs:
            raise _err(
                spec,
                name,
                f"field `config`: unknown config {config!r} for metric {metric_name!r}; allowed: "
                + ", ".join(map(repr, metric.configs)),
            )
    elif config is not None:
        raise _err(spec, name, f"field `config`: metric {metric_name!r} has no configs")
    options = raw.get("options") or {}
    if not isinstance(options, Mapping):
        raise _err(spec, name, f"field `options` must be a mapping, got {type(options).__name__}", TypeError)
    options = dict(options)
    try:
        check_task_options(name, metric, config or "", options)
    except (TypeError, ValueError) as err:
        message = str(err).split(f"task {name!r}: ", 1)[-1]
        raise _err(spec, name, f"field `options`: {message}", type(err)) from None
    task_id = raw.get("task_id")
    if task_id is not None:
        if isinstance(task_id, bool) or not isinstance(task_id, (str, int)):
            raise _err(
                spec,
                name,
                f"field `task_id` must be a str or an int, got {type(task_id).__name__}",
                TypeError,
            )
        task_id = str(task_id)
    return TaskSpec(
        name=name,
        group=_text(raw.get("group", "main"), spec, name, "group"),
        metric=metric_name,
        config=config,
        options=options,
        weight=_weight(raw["weight"], spec, name),
        threshold=_threshold(raw.get("threshold"), spec, name),
        task_id=task_id,
        description=_text(raw.get("description", ""), spec, name, "description"),
    )


def _digest(data: dict[str, Any]) -> str:
    scoring = {k: v for k, v in data.items() if k not in ("title", "reference", "description")}
    scoring["tasks"] = {
        n: {k: v for k, v in t.items() if k != "description"} for n, t in scoring["tasks"].items()
    }
    text = json.dumps(scoring, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def _from_mapping(raw: Any) -> ChallengeSpec:
    if not isinstance(raw, Mapping):
        raise TypeError(f"{_METRIC}: a challenge spec must be a mapping, got {type(raw).__name__}")
    raw_name = raw.get("name")
    label = raw_name if isinstance(raw_name, str) else "?"
    unknown = sorted(set(map(str, raw)) - _TOP_FIELDS)
    if unknown:
        raise _err(
            label,
            None,
            f"unknown field(s) {', '.join(map(repr, unknown))}; allowed: {', '.join(sorted(_TOP_FIELDS))}",
        )
    if "name" not in raw:
        raise _err(label, None, "missing field `name`")
    name = _text(raw["name"], label, None, "name")
    if not name.strip():
        raise _err(label, None, "field `name` is empty")
    if "tasks" not in raw:
        raise _err(name, None, "missing field `tasks`")
    tasks_raw = raw["tasks"]
    if isinstance(tasks_raw, list):
        pairs = []
        for k, t in enumerate(tasks_raw):
            if not isinstance(t, Mapping) or not isinstance(t.get("name"), str):
                raise _err(name, None, f"`tasks[{k}]` must be a mapping with a str `name`")
            pairs.append((t["name"], {f: v for f, v in t.items() if f != "name"}))
        seen: set[str] = set()
        for task_name, _ in pairs:
            if task_name in seen:
                raise _err(name, task_name, "duplicate task name")
            seen.add(task_name)
    elif isinstance(tasks_raw, Mapping):
        pairs = list(tasks_raw.items())
        for task_name, _ in pairs:
            if not isinstance(task_name, str):
                raise _err(name, None, f"task names must be str, got {type(task_name).__name__}", TypeError)
    else:
        raise _err(
            name,
            None,
            f"field `tasks` must be a mapping (or a list), got {type(tasks_raw).__name__}",
            TypeError,
        )
    if not pairs:
        raise _err(name, None, "field `tasks` is empty")
    tasks = tuple(_task(task_name, t, name) for task_name, t in pairs)
    ids: dict[str, str] = {}
    for t in tasks:
        if t.task_id is not None:
            if t.task_id in ids:
                raise _err(
                    name, t.name, f"field `task_id` {t.task_id!r} is also the task_id of {ids[t.task_id]!r}"
                )
            ids[t.task_id] = t.name
    spec = ChallengeSpec(
        name=name,
        tasks=tasks,
        title=_text(raw.get("title", ""), name, None, "title"),
        reference=_text(raw.get("reference", ""), name, None, "reference"),
        description=_text(raw.get("description", ""), name, None, "description"),
    )
    return ChallengeSpec(
        spec.name, spec.tasks, spec.title, spec.reference, spec.description, _digest(spec.as_dict())
    )


def parse_spec_text(text: str, fmt: str = "auto") -> Any:
    """Parse JSON or YAML text (``fmt``: ``"json"``, ``"yaml"`` or ``"auto"``: JSON first)."""
    if fmt in ("json", "auto"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as err:
            if fmt == "json":
                raise ValueError(f"{_METRIC}: the spec is not valid JSON: {err}") from None
    try:
        import yaml
    except ImportError:
        raise ImportError(
            f"{_METRIC}: YAML specs need PyYAML (`pip install pyyaml`); or write the spec in JSON"
        ) from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise ValueError(f"{_METRIC}: the spec is neither valid JSON nor valid YAML: {err}") from None


def builtin_challenges() -> tuple[str, ...]:
    """Names of the specs shipped in ``metricore/data/challenges``."""
    folder = resources.files("metricore").joinpath(_DATA_DIR)
    return tuple(sorted(p.name[: -len(".json")] for p in folder.iterdir() if p.name.endswith(".json")))


_CACHE: dict[str, ChallengeSpec] = {}


def load_challenge(source: Any = "fbc2") -> ChallengeSpec:
    """A validated :class:`ChallengeSpec` from a built-in name (``"fbc2"``), a path to a JSON or
    YAML file, JSON/YAML text, a mapping, or a spec (returned as is)."""
    if isinstance(source, ChallengeSpec):
        return source
    if isinstance(source, Mapping):
        return _from_mapping(source)
    if isinstance(source, Path):
        return _from_file(source)
    if not isinstance(source, str):
        raise TypeError(
            f"{_METRIC}: `challenge` must be a built-in name, a path, spec text, a mapping or a ChallengeSpec, "
            f"got {type(source).__name__}"
        )
    if source in builtin_challenges():
        if source not in _CACHE:
            text = resources.files("metricore").joinpath(f"{_DATA_DIR}/{source}.json").read_text("utf-8")
            _CACHE[source] = _from_mapping(json.loads(text))
        return _CACHE[source]
    stripped = source.strip()
    if "\n" in stripped or stripped.startswith("{"):
        return _from_mapping(parse_spec_text(source))
    path = Path(source)
    if path.suffix.lower() in (".json", ".yaml", ".yml") or path.is_file():
        return _from_file(path)
    raise ValueError(
        f"{_METRIC}: unknown challenge {source!r}; built-in: {', '.join(map(repr, builtin_challenges()))} "
        "(or give a path to a JSON/YAML spec, spec text or a mapping)"
    )


def _from_file(path: Path) -> ChallengeSpec:
    if not path.is_file():
        raise ValueError(f"{_METRIC}: no challenge spec file at {str(path)!r}")
    fmt = (
        "json"
        if path.suffix.lower() == ".json"
        else "yaml"
        if path.suffix.lower() in (".yaml", ".yml")
        else "auto"
    )
    return _from_mapping(parse_spec_text(path.read_text("utf-8"), fmt))
