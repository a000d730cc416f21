"""The metrics a challenge task can use: each composes the core metrics (none is re-implemented).

A task's input is a mapping. Every metric accepts ``{"score": s}`` (a precomputed score in
[0, 1]); the others take raw inputs, and the composite ones take each of their sub-scores
either precomputed or from raw inputs:

``score``
    Only a given score (hidden tasks).
every registry metric with a :attr:`~metricore.core.spec.MetricSpec.task` (ANLS, token F1,
METEOR, 1-NED, ...)
    ``predictions``, ``references`` (plain lists, or per-id dicts of the challenge's typed
    answer parts) -> the metric's spec bound with the task's config and options
    (:meth:`~metricore.core.spec.MetricSpec.bind`, the options a task fixes added, e.g.
    ``percent=False``: a task score is in [0, 1]) and run; the task's score is the headline
    number the spec names (option ``score`` where it names several: token F1's ``"f1"`` or
    ``"exact_match"``, by default exact match for a variant whose letter fallback is decided
    on it, ``fbc2_mathqa``). One scorer serves them all; a metric added to the registry with a
    ``task`` is a task metric at once.
``image_generation`` (config ``fbc2``)
    ``(CLIP + (fid_cap - min(fid_cap, FID)) / fid_cap) / 2`` (FusionBrain
    ``evaluation/generation/evaluate_fid_clip.py``, fid_cap 200). ``clip``: given, or the
    mean over pairs of :func:`metricore.vision.clip_score.clip_cosine` of ``image_embeddings``
    (generated images) and ``text_embeddings`` (their prompts; ``(n, templates, d)`` is
    averaged over templates). ``fid``: given, or :func:`metricore.vision.fid.fid_from_features` of
    ``generated_features`` and ``real_features``. Options: ``fid_cap`` (default 200),
    ``clip``: ``"cosine"`` (the challenge's plain cosine, default) or ``"clip_score"``
    (Hessel et al.'s ``2.5 max(cos, 0)``). Optional ``ids`` (the sample ids, set by
    :func:`~metricore.challenge.split_submission`): per-id embedding dicts must match them.
``meteor_clip`` (config: a METEOR variant, ``fbc2_captioning`` for the challenge)
    ``(METEOR + CLIP) / 2`` (``evaluation/captioning/evaluate_ruclip_meteor.py``).
    ``meteor``: given, or from ``predictions``/``references``; ``clip``: given, or from
    ``image_embeddings`` (the input images) and ``text_embeddings`` (the predicted captions),
    one row per caption (or per-id dicts, matched with the predictions' ids).

A computed CLIP cosine can be negative, so an ``image_generation``/``meteor_clip`` score can
be below 0 (the challenge does not clip it); given scores must lie in [0, 1].
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from metricore import registry
from metricore.challenge.layout import fail, text_columns
from metricore.core.pairing import IdMismatch, pair_ids
from metricore.core.spec import Config, MetricSpec, Option, bind_options
from metricore.core.validation import check_number
from metricore.vision.clip_score import CLIP_S_WEIGHT, clip_cosine, clip_score
from metricore.vision.fid import fid_from_features

__all__ = ["TaskMetric", "TaskOutcome", "TASK_METRICS", "check_task_options", "given_number"]

_METRIC = "challenge_score"
DEFAULT_FID_CAP = 200.0
CLIP_KINDS = ("cosine", "clip_score")


@dataclass(frozen=True)
class TaskOutcome:
    """One task's score and what it is made of."""

    score: float
    #: sub-scores (e.g. ``{"meteor": .., "clip": ..}``; for a plain metric its headline)
    components: dict[str, float]
    n: int | None = None
    ids: list[str] | None = None
    item_scores: list[float] | None = None
    #: signatures of the core metrics that produced the numbers
    signatures: dict[str, str] = field(default_factory=dict)
    #: the score is the mean of ``item_scores`` (plus a constant from given sub-scores)
    mean_of_items: bool = False


Scorer = Callable[[str, str, Mapping[str, Any], Mapping[str, Any]], TaskOutcome]


@dataclass(frozen=True)
class TaskMetric:
    """A metric a challenge task can name: its configs (the first is the default), the
    options a spec may set, the raw input fields and the sub-scores that may be given."""

    name: str
    description: str
    configs: tuple[str, ...]
    options: frozenset[str]
    inputs: frozenset[str]
    components: tuple[str, ...]
    scorer: Scorer | None


def given_number(task: str, name: str, value: Any, lo: float, hi: float) -> float:
    """A given (sub-)score, checked to be a number in ``[lo, hi]``."""
    return check_number(value, f"{_METRIC}: task {task!r}", name, lo, hi)


@contextmanager
def _as_task(task: str) -> Iterator[None]:
    """Re-raise a core metric's input error with the task named first."""
    try:
        yield
    except (TypeError, ValueError) as err:
        message = str(err)
        if message.startswith(f"{_METRIC}:"):
            raise
        # not type(err)(message): a subclass such as UnicodeEncodeError takes five arguments
        kind = TypeError if isinstance(err, TypeError) else ValueError
        raise kind(f"{_METRIC}: task {task!r}: {message}") from None


def _need(task: str, data: Mapping[str, Any], component: str, raw: tuple[str, ...]) -> bool:
    """True when ``component`` is given; False when all of its ``raw`` inputs are."""
    present = [k for k in raw if k in data]
    if component in data:
        if present:
            raise fail(task, f"give either `{component}` or {_fields(raw)}, not both")
        return True
    if len(present) != len(raw):
        missing = [k for k in raw if k not in data]
        raise fail(task, f"needs `{component}` or {_fields(raw)} (missing {_fields(tuple(missing))})")
    return False


def _fields(names: tuple[str, ...]) -> str:
    return " + ".join(f"`{n}`" for n in names)


# --------------------------------------------------------------------------------------------
# Registry metrics: one scorer
# --------------------------------------------------------------------------------------------


def _spec_scorer(spec: MetricSpec) -> Scorer:
    """The scorer of a task that uses ``spec``: bind, run, take the task's headline number."""
    use = spec.task
    assert use is not None  # only metrics with a task use get a scorer

    def score(task: str, config: str, options: Mapping[str, Any], data: Mapping[str, Any]) -> TaskOutcome:
        ids: list[str] | None
        if spec.config(config).structured:  # structured answers go to the core as they are
            ids, preds, golds = None, data["predictions"], data["references"]
        else:
            ids, preds, golds = text_columns(data["predictions"], data["references"], task)
        opts = dict(options)
        key = opts.pop("score", use.score_for(config))
        with _as_task(task):
            result = spec.bind_options(config, {**opts, **use.fixed}).run(preds, golds)
        head = result.headline_info(key)
        items = list(result.column(head.items)) if head.items is not None else None
        value = float(result.headline()[key])
        return TaskOutcome(
            value,
            {key: value},
            len(result.scores),
            ids,
            items,
            {spec.name: result.signature},
            mean_of_items=head.mean,
        )

    return score


def _spec_metric(spec: MetricSpec) -> TaskMetric:
    """A task metric from a registry spec: its task configs and options (those a task fixes
    left out; ``score`` added where the task may pick among several headline numbers)."""
    use = spec.task
    assert use is not None
    configs = [spec.config(c) for c in use.configs]
    options = frozenset().union(*(c.option_names for c in configs)) - set(use.fixed)
    if len(use.scores) > 1:
        options |= {"score"}
    return TaskMetric(
        spec.name,
        f"{spec.title} (metricore.registry.get({spec.name!r}))",
        tuple(use.configs),
        options,
        _TEXT,
        (),
        _spec_scorer(spec),
    )


# --------------------------------------------------------------------------------------------
# CLIP and FID (metricore.vision.clip_score, metricore.vision.fid)
# --------------------------------------------------------------------------------------------


def _rows(value: Any, task: str, name: str, ids: list[str] | None) -> tuple[Any, list[str] | None]:
    """An embedding column: an array-like (row order = item order) or a per-id dict (rows
    arranged in ``ids`` order; without ``ids`` the dict's own order defines them)."""
    if not isinstance(value, Mapping):
        return value, ids
    keys = [str(k) for k in value]
    rows = list(value.values())
    if ids is None:
        return rows, keys
    try:
        order = pair_ids(keys, ids)
    except IdMismatch as err:
        what = []
        if err.missing:
            what.append(f"no row for id(s) {', '.join(repr(ids[i]) for i in err.missing[:5])}")
        if err.extra:
            what.append(f"id(s) {', '.join(repr(keys[i]) for i in err.extra[:5])} are not scored")
        if err.repeated_left:
            what.append(f"id(s) {', '.join(repr(keys[i]) for i, _ in err.repeated_left[:5])} repeat")
        raise fail(task, f"mismatched ids in `{name}`: " + "; ".join(what)) from None
    return [rows[i] for i in order], ids


def _clip(
    task: str, data: Mapping[str, Any], kind: str, ids: list[str] | None, n: int | None
) -> tuple[float, list[float] | None, list[str] | None, dict[str, str]]:
    """(mean CLIP, per-pair values, ids, signatures) from the given ``clip`` or embeddings."""
    if _need(task, data, "clip", ("image_embeddings", "text_embeddings")):
        hi = CLIP_S_WEIGHT if kind == "clip_score" else 1.0
        lo = 0.0 if kind == "clip_score" else -1.0
        return given_number(task, "clip", data["clip"], lo, hi), None, ids, {}
    images, ids = _rows(data["image_embeddings"], task, "image_embeddings", ids)
    texts, ids = _rows(data["text_embeddings"], task, "text_embeddings", ids)
    with _as_task(task):
        fn = clip_score if kind == "clip_score" else clip_cosine
        per_pair = np.asarray(fn(images, texts), dtype=np.float64)
    if n is not None and len(per_pair) != n:
        raise fail(task, f"mismatched lengths: {len(per_pair)} embedding pairs for {n} predictions")
    values = per_pair.astype(np.float64).tolist()
    return float(np.mean(per_pair)), values, ids, {"clip": f"clip|{kind}"}


def _fid(task: str, data: Mapping[str, Any]) -> float:
    if _need(task, data, "fid", ("generated_features", "real_features")):
        return given_number(task, "fid", data["fid"], 0.0, math.inf)
    with _as_task(task):
        value = float(fid_from_features(data["generated_features"], data["real_features"]))
    return value


def _sample_ids(task: str, value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, (list, tuple)):
        raise fail(task, f"`ids` must be a list of sample ids, got {type(value).__name__}", TypeError)
    ids = [str(i) for i in value]
    if len(set(ids)) != len(ids):
        raise fail(task, "`ids` has duplicates")
    return ids


def _image_generation(
    task: str, config: str, options: Mapping[str, Any], data: Mapping[str, Any]
) -> TaskOutcome:
    cap = float(options.get("fid_cap", DEFAULT_FID_CAP))
    kind = options.get("clip", "cosine")
    ids = _sample_ids(task, data.get("ids"))
    clip, items, ids, sigs = _clip(task, data, kind, ids, None if ids is None else len(ids))
    fid = _fid(task, data)
    score = (clip + (cap - min(cap, fid)) / cap) / 2
    sigs = dict(sigs)
    if "generated_features" in data:
        sigs["fid"] = "fid|pytorch-fid formula"
    return TaskOutcome(
        score, {"clip": clip, "fid": fid}, None if items is None else len(items), ids, items, sigs
    )


def _meteor_clip(task: str, config: str, options: Mapping[str, Any], data: Mapping[str, Any]) -> TaskOutcome:
    opts = dict(options)
    kind = opts.pop("clip", "cosine")
    sigs: dict[str, str] = {}
    ids: list[str] | None = None
    n: int | None = None
    mean = False
    if _need(task, data, "meteor", ("predictions", "references")):
        meteor = given_number(task, "meteor", data["meteor"], 0.0, 1.0)
        meteor_items = None
    else:
        outcome = _spec_scorer(registry.get("meteor"))(task, config, opts, data)
        meteor, meteor_items, n, ids = outcome.score, outcome.item_scores, outcome.n, outcome.ids
        mean = outcome.mean_of_items
        sigs.update(outcome.signatures)
    clip, clip_items, ids, clip_sigs = _clip(task, data, kind, ids, n)
    sigs.update(clip_sigs)
    items = None
    if meteor_items is not None and clip_items is not None:
        items = [(m + c) / 2 for m, c in zip(meteor_items, clip_items)]
    n_items = n if n is not None else (None if clip_items is None else len(clip_items))
    return TaskOutcome(
        (meteor + clip) / 2, {"meteor": meteor, "clip": clip}, n_items, ids, items, sigs, mean_of_items=mean
    )


# --------------------------------------------------------------------------------------------
# The task metrics and their option checks
# --------------------------------------------------------------------------------------------

_TEXT = frozenset({"predictions", "references"})
#: the options of the challenge's own composite metrics, checked like a spec's
_FID_CAP = Option("fid_cap", "number", DEFAULT_FID_CAP, "FID above it scores 0", low=0.0)
_CLIP = Option("clip", "choice", "cosine", "plain cosine (the challenge) or CLIPScore", choices=CLIP_KINDS)


def _meteor_options() -> frozenset[str]:
    return _spec_metric(registry.get("meteor")).options


def _task_metrics() -> dict[str, TaskMetric]:
    found = [registry.get(name) for name in registry.names()]
    return {
        m.name: m
        for m in (
            TaskMetric(
                "score",
                "a precomputed score in [0, 1] (hidden tasks)",
                (),
                frozenset(),
                frozenset(),
                (),
                None,
            ),
            *(_spec_metric(spec) for spec in found if spec.task is not None),
            TaskMetric(
                "image_generation",
                "(CLIP + (fid_cap - min(fid_cap, FID)) / fid_cap) / 2",
                ("fbc2",),
                frozenset({"fid_cap", "clip"}),
                frozenset(
                    {"image_embeddings", "text_embeddings", "generated_features", "real_features", "ids"}
                ),
                ("clip", "fid"),
                _image_generation,
            ),
            TaskMetric(
                "meteor_clip",
                "(METEOR + CLIP) / 2",
                ("fbc2_captioning",)
                + tuple(v for v in registry.get("meteor").task.configs if v != "fbc2_captioning"),  # type: ignore[union-attr]
                _meteor_options() | {"clip"},
                _TEXT | {"image_embeddings", "text_embeddings"},
                ("meteor", "clip"),
                _meteor_clip,
            ),
        )
    }


class _TaskMetrics(Mapping[str, TaskMetric]):
    """Name -> task metric, built on first use (it reads every spec of the registry, and the
    challenge score's own spec imports this package)."""

    @functools.cached_property
    def _table(self) -> dict[str, TaskMetric]:
        return _task_metrics()

    def __getitem__(self, name: str) -> TaskMetric:
        return self._table[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table)

    def __len__(self) -> int:
        return len(self._table)


TASK_METRICS: Mapping[str, TaskMetric] = _TaskMetrics()


def check_task_options(task: str, metric: TaskMetric, config: str, options: Mapping[str, Any]) -> None:
    """Refuse what a task's metric would refuse: the spec's one check (:func:`bind_options`)
    for a registry metric's options, the same check for the composite metrics' own
    (``fid_cap``, ``clip``) and a task's ``score`` choice; errors name the task."""
    unknown = sorted(set(options) - metric.options)
    if unknown:
        allowed = ", ".join(repr(o) for o in sorted(metric.options)) or "none"
        raise fail(
            task,
            f"unknown option(s) {', '.join(map(repr, unknown))} for metric {metric.name!r}; allowed: {allowed}",
        )
    where = f"{_METRIC}: task {task!r}"
    own = dict(options)
    spec_name = "meteor" if metric.name == "meteor_clip" else metric.name
    use = registry.get(spec_name).task if spec_name in registry.names() else None
    if use is not None:
        if "score" in own:
            choice = Option("score", "choice", None, "the task's headline number", choices=use.scores)
            choice.check(own.pop("score"), where)
        theirs = {k: v for k, v in own.items() if k != "clip"}
        chosen = registry.get(spec_name).config(config)
        settable = tuple(o for o in chosen.options if o.name not in use.fixed)
        bind_options(Config(chosen.name, chosen.reference, settable), theirs, where)
        own = {k: v for k, v in own.items() if k == "clip"}
    bind_options(Config("task", "", tuple(o for o in (_FID_CAP, _CLIP) if o.name in own)), own, where)
    if "fid_cap" in own and (own["fid_cap"] <= 0 or math.isinf(own["fid_cap"])):
        raise fail(task, f"`options.fid_cap` must be a positive finite number, got {own['fid_cap']}")
